"""The forward-AD part of the generated Autograd kernels, and the kernels VariableTypeManual.cpp
writes by hand for forward AD (_fw_primal, _make_dual).

Mirrors what `tools/autograd/gen_variable_type.py`'s emit_fw_derivatives writes into each
`VariableType_*.cpp` kernel: when an input has a tangent at level 0 (isFwGradDefined), run the
op (recording the backward graph too when an input requires grad), then unpack each input's
tangent (toNonOptFwGrad, zeros where it has none) and primal (toNonOptPrimal: `_fw_primal(0)`,
a view without the tangent), evaluate the op's `result:` formula from derivatives.yaml, and
give the output its tangent (`_set_fw_grad`). An op with no formula raises torch's
NotImplementedError instead (emit_forbid_fw_derivatives). The formula runs inside a frame of
its own, layer autograd, named `<op> (forward AD)`, so a trace shows where tangents come from.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tensortrace.aten import functions as at
from tensortrace.aten.dispatcher import OperatorHandle
from tensortrace.aten.tensor_body import Tensor
from tensortrace.autograd import grad_mode
from tensortrace.autograd.forward_grad import fw_grad, is_fw_grad_defined, set_fw_grad
from tensortrace.autograd.function import collect_next_edges
from tensortrace.autograd.graph_record import record_grad_fn
from tensortrace.autograd.saved_variable import SavedVariable
from tensortrace.autograd.traceable_function import is_differentiable_output
from tensortrace.autograd.variable import as_view
from tensortrace.autograd.variable_type import requires_grad
from tensortrace.autograd.variable_type_utils import set_history
from tensortrace.c10.dispatch_key import (
    DispatchKeySet,
    after_ADInplaceOrView_keyset,
    after_autograd_keyset,
)
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.local_dispatch_key_set import (
    AutoDispatchBelowADInplaceOrView,
    AutoDispatchBelowAutograd,
)
from tensortrace.trace import FrameSite, recorder, traced

VARIABLE_TYPE = "torch/csrc/autograd/generated/VariableType.cpp"
VARIABLE_TYPE_MANUAL = "torch/csrc/autograd/VariableTypeManual.cpp"
INPLACE_OR_VIEW_MANUAL = "torch/csrc/autograd/ADInplaceOrViewTypeManual.cpp"

NOT_IMPLEMENTED = (
    "Trying to use forward AD with {} that does not support it because it has not been "
    "implemented yet.\nPlease file an issue to PyTorch at https://github.com/pytorch/pytorch/"
    "issues/new?template=feature-request.yml so that we can prioritize its implementation or "
    "submit a PR adding the implementation to derivatives.yaml"
)
OUT_FN = "Trying to use forward AD with {} that does not support it because it is an out= function"


def toNonOptFwGrad(t: Any) -> Tensor:  # noqa: N802 - torch's name
    """The tangent at level 0, or an undefined Tensor."""
    if isinstance(t, Tensor) and t.defined():
        tangent = fw_grad(t, 0)
        if tangent is not None:
            return tangent
    return Tensor()


def toNonOptPrimal(t: Any) -> Any:  # noqa: N802 - torch's name
    """The primal: a view of `t` without its tangent (a wrapped number is its own)."""
    if isinstance(t, Tensor) and t.defined():
        if t.unsafeGetTensorImpl().is_wrapped_number_:
            return t
        return t._fw_primal(0)
    return t


def _zeros_for(t: Tensor, efficient: bool) -> Tensor:
    """A missing tangent: torch's _efficientzerotensor (or zeros for an in-place op's self).
    tensortrace has no ZeroTensor: real zeros, kept a wrapped number if `t` is one so type
    promotion treats them as the Scalar they stand for (update_wrapped_number)."""
    zeros = at.zeros(list(t.sizes()), dtype=t.scalar_type(), device=t.device())
    if efficient and t.unsafeGetTensorImpl().is_wrapped_number_:
        zeros.unsafeGetTensorImpl().is_wrapped_number_ = True
    return zeros


class ForwardRecording:
    """The forward-grad body of one op's VariableType kernel; `jvp` is the generated formula
    (None: the op has none, and raises), `graph` the op's GraphRecording (or None)."""

    __slots__ = (
        "op",
        "below",
        "graph",
        "jvp",
        "outputs",
        "needs",
        "diff_inputs",
        "is_inplace",
        "original_self",
        "clone_self_t",
        "site",
        "index_of",
        "message",
    )

    def __init__(
        self,
        op: OperatorHandle,
        below: Any,
        graph: Any,
        jvp: Callable[[dict[str, Any]], Any] | None,
        outputs: tuple[str, ...],
        needs: frozenset[str],
        diff_inputs: tuple[str, ...],
        original_self: bool = False,
        clone_self_t: bool = False,
    ) -> None:
        self.op = op
        self.below = below
        self.graph = graph
        self.jvp = jvp
        self.outputs = outputs  # the outputs the formula gives tangents, by name
        self.needs = needs  # the names the formula reads
        self.diff_inputs = diff_inputs
        self.original_self = original_self
        self.clone_self_t = clone_self_t
        # the rest on the first call (Note [Autograd recordings prepared on first call])
        self.index_of: dict[str, int] | None = None

    def _prepare(self) -> None:
        schema = self.op.schema
        self.is_inplace = schema.is_inplace
        self.site = FrameSite(
            "autograd",
            f"{schema.name} (forward AD)",
            VARIABLE_TYPE,
            f"torch::autograd::VariableType::{schema.name} (emit_fw_derivatives)",
        )
        # cpp.name(f.func): an out= op is named `<op>_out`
        if schema.is_out:
            self.message = OUT_FN.format(f"{schema.name}_out")
        else:
            self.message = NOT_IMPLEMENTED.format(schema.name)
        self.index_of = {a.name: i for i, a in enumerate(schema.arguments)}

    def __call__(self, ks: DispatchKeySet, args: tuple[Any, ...], record: bool) -> Any:
        if self.index_of is None:
            self._prepare()
        original = args[0].clone() if self.original_self else None
        if record:
            result = self.graph(ks, args)
        else:
            with self.below():
                result = self.op.redispatch(ks & after_autograd_keyset, *args)
        if self.jvp is None:
            # emit_forbid_fw_derivatives, after the call as in torch; an op whose outputs are
            # not differentiable (bool, integer, not tensors: isnan, equal, bucketize) has no
            # differentiable outputs there, so no check
            outputs = result if isinstance(result, (tuple, list)) else (result,)
            if any(is_differentiable_output(out) for out in outputs):
                raise NotImplementedError(self.message)
            return result
        rec = recorder.current
        if rec is None:
            tangents = self._tangents(args, result, original)
        else:
            tangents = recorder.record_call(
                rec, self.site, {"args": {}}, self._tangents, (args, result, original)
            )
        self._set(args, result, tangents)
        if record:
            _save_output_tangents(result)
        return result

    def _tangents(self, args: tuple[Any, ...], result: Any, original: Any) -> Any:
        """Unpack the tangents and primals the formula reads, and evaluate it."""
        needs, index_of = self.needs, self.index_of
        assert index_of is not None  # prepared by __call__
        fw: dict[str, Any] = {}
        for name, i in index_of.items():
            value = args[i]
            fw[name] = value
            if name not in self.diff_inputs:
                continue
            if f"{name}_t" in needs or f"{name}_t_raw" in needs:
                raw = toNonOptFwGrad(value)
                fw[f"{name}_t_raw"] = raw
                tangent = raw
                if not raw.defined() and isinstance(value, Tensor) and value.defined():
                    tangent = _zeros_for(value, not (self.is_inplace and name == "self"))
                if name == "self" and self.clone_self_t and grad_mode.is_grad_enabled():
                    tangent = tangent.clone()
                fw[f"{name}_t"] = tangent
            if f"{name}_p" in needs:
                fw[f"{name}_p"] = toNonOptPrimal(value)
        if original is not None:  # the clone of self before the op: clone gave it a tangent
            raw = toNonOptFwGrad(original)
            fw["original_self_t"] = raw if raw.defined() else _zeros_for(original, True)
            fw["original_self_p"] = toNonOptPrimal(original)
        outputs = list(result) if isinstance(result, tuple) else [result]
        names = self.op.schema.return_names
        for i, out in enumerate(outputs):
            fw[f"result{i}"] = out
            if i < len(names) and names[i]:
                fw[names[i]] = out
        fw["result"] = result
        assert self.jvp is not None
        return self.jvp(fw)

    def _set(self, args: tuple[Any, ...], result: Any, tangents: Any) -> None:
        if self.is_inplace:
            if isinstance(tangents, Tensor) and tangents.defined():
                set_fw_grad(args[0], tangents, 0, True)
            return
        if len(self.outputs) > 1 or isinstance(result, tuple):
            outputs = list(result) if isinstance(result, tuple) else [result]
            names = self.op.schema.return_names
            for name, tangent in zip(
                self.outputs, tangents if len(self.outputs) > 1 else [tangents]
            ):
                position = names.index(name) if name in names else int(name[6:] or 0)
                _set_one(outputs[position], tangent)
        elif isinstance(result, list):  # a view op returning pieces: unbind, split
            for out, tangent in zip(result, tangents):
                _set_one(out, tangent)
        else:
            _set_one(result, tangents)


def _save_output_tangents(result: Any) -> None:
    """gen_variable_type saves the outputs "only after the forward AD has been set up": the
    graph recording saved them before the formula ran, so each saved output takes its
    output's tangent now (double backward under forward AD, as jvp(grad(f)) runs)."""
    outputs = result if isinstance(result, (tuple, list)) else (result,)
    for out in outputs:
        if not isinstance(out, Tensor) or not out.defined():
            continue
        impl = out.impl_.target_
        meta = impl.autograd_meta_ if impl is not None else None
        node = meta.grad_fn_ if meta is not None else None
        saved = getattr(node, "saved_", None)
        if not saved:
            continue
        for value in saved.values():
            for var in value if isinstance(value, list) else (value,):
                if type(var) is SavedVariable and var.is_output_ and var.fw_grad_ is None:
                    position = var.output_nr_
                    if position < len(outputs) and isinstance(outputs[position], Tensor):
                        var.fw_grad_ = fw_grad(outputs[position])
        return  # one grad_fn holds every output's saved variables


def _set_one(out: Any, tangent: Any) -> None:
    if isinstance(tangent, Tensor) and tangent.defined() and is_differentiable_output(out):
        set_fw_grad(out, tangent, 0, False)


# ---- VariableTypeManual.cpp / ADInplaceOrViewTypeManual.cpp -----------------------------------
@traced("autograd", "torch::autograd::VariableType::_fw_primal", VARIABLE_TYPE_MANUAL)
def _fw_primal(ks: DispatchKeySet, self: Tensor, level: int) -> Any:
    """The primal as an alias that is backward differentiable (AliasBackward0) but carries no
    tangent: the forward grad at `level` is explicitly ignored."""
    from tensortrace.autograd.generated.functions import AliasBackward0

    with AutoDispatchBelowAutograd():
        result = _primal_op().redispatch(ks & after_autograd_keyset, self, level)
    if grad_mode.is_grad_enabled() and requires_grad(self):
        _set_view_history(AliasBackward0(), self, result)
    if is_fw_grad_defined(self):
        TORCH_CHECK(level == 0, "Invalid level given to _fw_primal")
    return result


@traced("autograd", "torch::autograd::VariableType::_make_dual", VARIABLE_TYPE_MANUAL)
def _make_dual(ks: DispatchKeySet, primal: Tensor, tangent: Tensor, level: int) -> Any:
    """A view of `primal` (ViewBackward0 when it requires grad) that holds `tangent`."""
    from tensortrace.autograd.generated.functions import ViewBackward0

    TORCH_CHECK(
        fw_grad(primal, level) is None,
        "Making a dual Tensor based on a Tensor that already has a forward gradient at the same "
        "level ",
        level,
        " is not supported.",
    )
    with AutoDispatchBelowAutograd():
        result = _dual_op().redispatch(ks & after_autograd_keyset, primal, tangent, level)
    if grad_mode.is_grad_enabled() and requires_grad(primal):
        node = ViewBackward0()
        node.saved_["self_sym_sizes"] = primal.sizes()  # type: ignore[attr-defined]
        _set_view_history(node, primal, result)
    TORCH_CHECK(level == 0, "Invalid level given to _make_dual")
    set_fw_grad(result, tangent, level, False)
    return result


def _set_view_history(node: Any, base: Tensor, result: Tensor) -> None:
    """The grad_fn VariableTypeManual.cpp gives the alias: `node`, with the base as its input."""
    node.input_ranges_["self"] = (0, 1, False)
    node.set_next_edges(collect_next_edges([base]))
    set_history(result, node)
    if recorder.current is not None:
        record_grad_fn(node, [result])


def fw_non_differentiable_view(ks: DispatchKeySet, op: OperatorHandle, *args: Any) -> Any:
    """The ADInplaceOrView kernel of _fw_primal / _make_dual: an alias recorded as a view that
    is backward but not forward differentiable (as_view(..., is_fw_differentiable=false))."""
    with AutoDispatchBelowADInplaceOrView():
        result = op.redispatch(ks & after_ADInplaceOrView_keyset, *args)
    return as_view(args[0], result, is_fw_differentiable=False)


def _primal_op() -> OperatorHandle:
    from tensortrace.aten.generated import operators

    return operators._fw_primal


def _dual_op() -> OperatorHandle:
    from tensortrace.aten.generated import operators

    return operators._make_dual
