"""What the generated Autograd and ADInplaceOrView kernels call.

`python -m tensortrace.torchgen` writes one Autograd kernel per operator to
autograd/generated/variable_type_kernels.py and one ADInplaceOrView kernel per in-place, out= or
view operator to autograd/generated/ad_inplace_or_view_type_kernels.py (registered by
variable_type.py and ad_inplace_or_view_type.py beside them, Note [Generated kernels imported on
first lookup] in aten/codegen.py), as `tools/autograd/gen_variable_type.py`
and `gen_inplace_or_view_type.py` write `torch/csrc/autograd/generated/VariableType_*.cpp` and
`ADInplaceOrViewType_*.cpp`:

- The Autograd kernel (key AutogradCPU): when no input requires grad (or grad mode is off) it
  only excludes the autograd keys and redispatches below itself. Otherwise it records the
  backward graph as VariableType does (GraphRecording below): the Backward Node generated from
  derivatives.yaml, its next edges, the saved inputs, the call, set_history on the outputs
  (rebase_history for an in-place op), the saved outputs. An op with no formula gets torch's
  NotImplemented Node, which raises when backward reaches it.
- The ADInplaceOrView kernel redispatches to the backend, then bumps the version counter
  (in-place, out=) or records the view's base (views, see Note [A view holds its base]).
- CompositeImplicitAutograd ops get neither: their composite kernel runs at the autograd key
  and decomposes into ops that have their own.
"""

from __future__ import annotations

from typing import Any

from tensortrace.aten.dispatcher import OperatorHandle
from tensortrace.aten.generated import operators
from tensortrace.aten.tensor_body import Tensor
from tensortrace.autograd import grad_mode
from tensortrace.autograd.function import Edge, Node, collect_next_edges
from tensortrace.autograd.graph_record import record_grad_fn
from tensortrace.autograd.saved_variable import SavedVariable
from tensortrace.autograd.traceable_function import (
    NotImplemented_,
    TraceableFunction,
    _property,
    is_differentiable_output,
    saved_names_for,
)
from tensortrace.autograd.variable import as_view, increment_version
from tensortrace.autograd.variable_type_utils import (
    check_inplace,
    check_no_out_grad,
    rebase_history,
    set_history,
)
from tensortrace.c10.dispatch_key import DispatchKeySet, after_autograd_keyset
from tensortrace.c10.local_dispatch_key_set import AutoDispatchBelowAutograd
from tensortrace.trace import FrameSite, recorder, summarize, traced

VARIABLE_TYPE = "torch/csrc/autograd/generated/VariableType.cpp"
INPLACE_OR_VIEW = "torch/csrc/autograd/generated/ADInplaceOrViewType.cpp"


def requires_grad(value: Any) -> bool:
    """Whether a tensor argument (or any tensor of a list argument) requires grad."""
    if isinstance(value, Tensor):
        # requires_grad() inlined: asked of every tensor argument of every op
        target = value.impl_.target_
        meta = target.autograd_meta_ if target is not None else None
        return bool(meta is not None and meta.requires_grad_)
    if isinstance(value, (list, tuple)):
        return any(requires_grad(v) for v in value)
    return False


class GraphRecording:
    """The graph-recording body of one op's VariableType kernel (its `grad_fn` part).

    The generated kernel calls it when an input requires grad and grad mode is on; `node`
    is the generated Backward Node class, or None for an op with no formula (NotImplemented).
    """

    __slots__ = ("op", "below", "node", "index_of", "op_name")

    def __init__(
        self, op: OperatorHandle, below: Any, node: type[TraceableFunction] | None
    ) -> None:
        self.op = op
        self.below = below  # AutoDispatchBelowAutograd or AutoDispatchBelowADInplaceOrView
        self.node = node
        # Note [Autograd recordings prepared on first call]
        # Import makes one GraphRecording and one ForwardRecording per operator (~1,800), and a
        # program records the graph of a few dozen: what they compute from the schema (the
        # argument positions, the names and messages) is computed on the first call.
        self.index_of: dict[str, int] | None = None

    def _prepare(self) -> dict[str, int]:
        """What the recording reads from the schema (Note [Autograd recordings prepared on
        first call]); returns index_of."""
        schema = self.op.schema
        self.op_name = f"aten::{schema.name}"
        self.index_of = index_of = {a.name: i for i, a in enumerate(schema.arguments)}
        return index_of

    def __call__(self, ks: DispatchKeySet, args: tuple[Any, ...]) -> Any:
        op, schema, index_of = self.op, self.op.schema, self.index_of
        if index_of is None:
            index_of = self._prepare()
        is_inplace = schema.is_inplace
        if schema.is_out:
            check_no_out_grad(schema.name)
        info = self.node.info if self.node is not None else None
        if self.node is None or info is None:
            grad_fn: Node = NotImplemented_(self.op_name)
            # a Python number wrapped as a tensor is not an input of the graph (torch binds it
            # to the op's Scalar overload)
            grad_fn.set_next_edges(
                collect_next_edges(
                    [
                        t
                        for i in op.tensor_indices
                        for t in (args[i] if isinstance(args[i], (list, tuple)) else [args[i]])
                        if t is None or not t.unsafeGetTensorImpl().is_wrapped_number_
                    ]
                )
            )
            needed: set[str] = set()
        else:
            needed = {n for n in info.diff_inputs if requires_grad(args[index_of[n]])}
            if not needed:
                with self.below():
                    return op.redispatch(ks & after_autograd_keyset, *args)
            node = self.node()
            edges: list[Edge] = []
            for name in info.diff_inputs:
                value = args[index_of[name]]
                items = list(value) if isinstance(value, (list, tuple)) else [value]
                node.input_ranges_[name] = (
                    len(edges),
                    len(items),
                    isinstance(value, (list, tuple)),
                )
                edges.extend(collect_next_edges(items))
            node.set_next_edges(edges)
            grad_fn = node
        if is_inplace:
            check_inplace(args[0])
        saved_outputs = [] if info is None else self._save_inputs(grad_fn, info, needed, args)
        with self.below():
            result = op.redispatch(ks & after_autograd_keyset, *args)
        outputs = list(result) if isinstance(result, (list, tuple)) else [result]
        if is_inplace:
            rebase_history(args[0], grad_fn)
        else:
            mask = info.output_differentiability if info is not None else None
            for i, out in enumerate(outputs):
                if mask is not None and not mask[i]:
                    continue  # not an output of the graph: no grad_fn, no input of the Node
                if is_differentiable_output(out):
                    set_history(out, grad_fn)
                else:
                    grad_fn.add_input_metadata(None)
        return_names = schema.return_names
        for name in saved_outputs:
            if name in return_names:
                position = return_names.index(name)
            else:
                position = int(name[len("result") :] or 0)
            out = outputs[position]
            grad_fn.saved_[name] = SavedVariable(  # type: ignore[attr-defined]
                out, is_differentiable_output(out)
            )
        if recorder.current is not None:  # the graph's new node, as facts of the trace
            record_grad_fn(grad_fn, outputs)
        return result

    def _save_inputs(
        self, grad_fn: Any, info: Any, needed: set[str], args: tuple[Any, ...]
    ) -> list[str]:
        """Save what the formulas of the needed inputs read; return the outputs they read."""
        index_of, return_names = self.index_of, self.op.schema.return_names
        assert index_of is not None  # prepared by __call__
        saved_outputs: list[str] = []
        saved = grad_fn.saved_
        for name in saved_names_for(info, needed):
            if name in info.properties:
                arg, prop = info.properties[name]
                saved[name] = _property(args[index_of[arg]], prop)
            elif name in info.list_properties:
                arg, prop = info.list_properties[name]
                saved[name] = [
                    (t.sizes() if prop == "sizes" else t.scalar_type()) for t in args[index_of[arg]]
                ]
            elif name in index_of:
                value = args[index_of[name]]
                if isinstance(value, Tensor):
                    if self.op.schema.is_inplace and name == "self":
                        value = value.clone()  # the original self, before the write
                    saved[name] = SavedVariable(value, False)
                elif isinstance(value, (list, tuple)) and any(isinstance(v, Tensor) for v in value):
                    saved[name] = [SavedVariable(v, False) for v in value]
                else:
                    saved[name] = value
            elif name == "result" or name.startswith("result") or name in return_names:
                saved_outputs.append(name)
        return saved_outputs


# ---- VariableTypeManual.cpp ----------------------------------------------------------------------
_DETACH_SITE = FrameSite(
    "autograd", "detach", "torch/csrc/autograd/VariableTypeManual.cpp", 'RECORD_FUNCTION("detach")'
)


def _detach_below_autograd(ks: DispatchKeySet, self: Tensor) -> Any:
    with AutoDispatchBelowAutograd():
        return operators.detach.redispatch(ks & after_autograd_keyset, self)


@traced("autograd", "torch::autograd::VariableType::detach", VARIABLE_TYPE)
def detach(ks: DispatchKeySet, self: Tensor) -> Any:
    """VariableTypeManual.cpp's detach: a RECORD_FUNCTION("detach") scope, which
    torch.profiler shows inside aten::detach, around the redispatch."""
    rec = recorder.current
    if rec is None:
        return _detach_below_autograd(ks, self)
    return recorder.record_call(
        rec,
        _DETACH_SITE,
        {"record_function": True, "args": {"self": summarize(self)}},
        _detach_below_autograd,
        (ks, self),
    )


# ---- what the ADInplaceOrView kernels do after the redispatch ------------------------------------
def bump_versions(result: Any) -> Any:
    """An in-place or out= op wrote its outputs: bump their version counters."""
    for written in result if isinstance(result, tuple) else (result,):
        increment_version(written)
    return result


def record_views(base: Tensor, result: Any) -> Any:
    """A view op: each output (each piece of split, unbind: `Tensor(a)[]`) records its base.
    An op that hands back its input itself (lift_fresh, resolve_conj) makes none: a tensor is
    never a view of itself (torch: `_base is None`), and would own itself."""
    base_impl = base.impl_.target_  # Note [Direct reads on hot paths]
    if not isinstance(result, list):
        if result.impl_.target_ is not base_impl:
            as_view(base, result)
        return result
    # the pieces of a multi-output view op may not be modified in place with grad mode on
    # (CreationMeta::MULTI_OUTPUT_NODE, see handle_view_on_rebase)
    creation_meta = "MULTI_OUTPUT_NODE" if grad_mode.is_grad_enabled() else None
    for view in result:
        if view.impl_.target_ is not base_impl:
            as_view(base, view)
            if creation_meta is not None:
                view.impl_.target_.autograd_meta_.creation_meta_ = creation_meta  # type: ignore[union-attr]
    return result


def detach_shares_version(self: Tensor, result: Tensor) -> Tensor:
    """VariableTypeManual.cpp: detach() is a view made with as_view(is_bw_differentiable=false,
    is_fw_differentiable=false), which records no base (x.detach()._is_view() is False) but
    shares the version counter; detach_() bumps no version."""
    result.unsafeGetTensorImpl().set_version_counter(self.unsafeGetTensorImpl().version_counter())
    return result
