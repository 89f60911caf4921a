"""The autograd and ADInplaceOrView kernels of every operator, generated from its schema.

Mirrors what `tools/autograd/gen_variable_type.py` and `gen_inplace_or_view_type.py` write
(`torch/csrc/autograd/generated/VariableType_*.cpp`, `ADInplaceOrViewType_*.cpp`).

- The Autograd kernel (key AutogradCPU): when no input requires grad (or grad mode is off) it
  only excludes the autograd keys and redispatches below itself. Otherwise it records the
  backward graph as VariableType does: the Backward Node generated from derivatives.yaml
  (gen_variable_type.py), its next edges, the saved inputs, the call, set_history on the
  outputs (rebase_history for an in-place op), the saved outputs. An op with no formula gets
  torch's NotImplemented Node, which raises when backward reaches it.
- The ADInplaceOrView kernel (in-place and view ops only) redispatches to the backend, then
  bumps the version counter (in-place) or records the view's base (views, see
  Note [A view holds its base]). Other ops fall through this key.
- CompositeImplicitAutograd ops get neither: their composite kernel runs at the autograd key
  and decomposes into ops that have their own.
"""

from __future__ import annotations

from typing import Any

from tensortrace.aten.dispatcher import KernelFunction, OperatorHandle, singleton
from tensortrace.aten.tensor_body import Tensor
from tensortrace.autograd.function import Node, collect_next_edges
from tensortrace.autograd.gen_variable_type import (
    DONT_REQUIRE_DERIVATIVE,
    DifferentiabilityInfo,
    NotImplemented_,
    _property,
    is_differentiable_output,
    load_derivatives,
    saved_names_for,
)
from tensortrace.autograd.grad_mode import _state as _grad_mode_state
from tensortrace.autograd.graph_record import record_grad_fn
from tensortrace.autograd.saved_variable import SavedVariable
from tensortrace.autograd.variable import as_view, increment_version
from tensortrace.autograd.variable_type_utils import (
    check_inplace,
    check_no_out_grad,
    rebase_history,
    set_history,
)
from tensortrace.c10.dispatch_key import (
    DispatchKey,
    DispatchKeySet,
    after_ADInplaceOrView_keyset,
    after_autograd_keyset,
)
from tensortrace.c10.local_dispatch_key_set import (
    AutoDispatchBelowADInplaceOrView,
    AutoDispatchBelowAutograd,
)
from tensortrace.trace import FrameSite, recorder, summarize, traced

VARIABLE_TYPE = "torch/csrc/autograd/generated/VariableType.cpp"
INPLACE_OR_VIEW = "torch/csrc/autograd/generated/ADInplaceOrViewType.cpp"


def _requires_grad(value: Any) -> bool:
    if isinstance(value, Tensor):
        # requires_grad() inlined: asked of every tensor argument of every op
        target = value.impl_.target_
        meta = target.autograd_meta_ if target is not None else None
        return bool(meta is not None and meta.requires_grad_)
    if isinstance(value, (list, tuple)):
        return any(_requires_grad(v) for v in value)
    return False


def make_autograd_kernel(op: OperatorHandle) -> KernelFunction:
    schema = op.schema
    # In-place and view ops must still reach ADInplaceOrView below; others skip it.
    below = (AutoDispatchBelowAutograd if schema.is_inplace or schema.is_view or schema.is_out
             else AutoDispatchBelowADInplaceOrView)
    symbol = f"torch::autograd::VariableType::{schema.name}"
    record = make_recording(op, below)
    tensor_indices = op.tensor_indices

    @traced("autograd", symbol, VARIABLE_TYPE, legacy="VariableType (autograd wrapper)")
    def autograd_kernel(ks: DispatchKeySet, *args: Any) -> Any:
        for i in tensor_indices:
            if _requires_grad(args[i]):
                if record is not None and _grad_mode_state.grad_mode:
                    return record(ks, args)
                break
        with below():
            return op.redispatch(ks & after_autograd_keyset, *args)

    if schema.name == "detach":
        return KernelFunction(make_detach_kernel(op, below), symbol, with_keyset=True)
    return KernelFunction(autograd_kernel, symbol, with_keyset=True)


_DETACH_SITE = FrameSite("autograd", "detach", "torch/csrc/autograd/VariableTypeManual.cpp",
                         "RECORD_FUNCTION(\"detach\")")


def make_detach_kernel(op: OperatorHandle, below: Any) -> Any:
    """VariableTypeManual.cpp's detach: a RECORD_FUNCTION("detach") scope, which
    torch.profiler shows inside aten::detach, around the redispatch."""

    def below_autograd(ks: DispatchKeySet, self: Tensor) -> Any:
        with below():
            return op.redispatch(ks & after_autograd_keyset, self)

    @traced("autograd", "torch::autograd::VariableType::detach", VARIABLE_TYPE)
    def detach_kernel(ks: DispatchKeySet, self: Tensor) -> Any:
        rec = recorder.current
        if rec is None:
            return below_autograd(ks, self)
        return recorder.record_call(rec, _DETACH_SITE, {"record_function": True,
                                                        "args": {"self": summarize(self)}},
                                    below_autograd, (ks, self))

    return detach_kernel


_infos: dict[str, DifferentiabilityInfo] | None = None


def derivative_infos() -> dict[str, DifferentiabilityInfo]:
    global _infos
    if _infos is None:
        _infos = load_derivatives()
    return _infos


def _signature(schema: Any) -> tuple[Any, ...]:
    return tuple((a.name, a.type.base, a.type.is_list, a.type.optional, a.kwarg_only)
                 for a in schema.arguments)


def _functional_info(schema: Any, infos: dict[str, DifferentiabilityInfo]
                     ) -> DifferentiabilityInfo | None:
    """An in-place op takes the formulas of the functional op with its signature
    (load_derivatives' functions_by_signature): pow_.Scalar is pow.Tensor_Scalar's."""
    name = schema.name[:-1] if schema.name.endswith("_") else schema.name
    wanted = _signature(schema)
    for info in infos.values():
        if info.schema.name == name and _signature(info.schema) == wanted:
            return info
    return None


# Ops that are CompositeImplicitAutograd in torch (so their graph is that of the op they call)
# but have a kernel of their own here: they record that op's Node.
TORCH_COMPOSITE = {"max.other": "maximum", "min.other": "minimum"}


def make_recording(op: OperatorHandle, below: Any) -> Any:
    """The graph-recording body of op's VariableType kernel, or None if it records nothing."""
    schema = op.schema
    if schema.name in DONT_REQUIRE_DERIVATIVE or schema.name.rstrip("_") in DONT_REQUIRE_DERIVATIVE:
        return None
    infos = derivative_infos()
    info = (infos.get(schema.full_name) or infos.get(TORCH_COMPOSITE.get(schema.full_name, ""))
            or (_functional_info(schema, infos) if schema.is_inplace else None))
    arguments = schema.arguments
    index_of = {a.name: i for i, a in enumerate(arguments)}
    is_inplace = schema.is_inplace
    op_name = f"aten::{schema.name}"
    return_names = schema.return_names

    def record(ks: DispatchKeySet, args: tuple[Any, ...]) -> Any:
        if schema.is_out:
            check_no_out_grad(schema.name)
        if info is None:
            grad_fn: Node = NotImplemented_(op_name)
            # a Python number wrapped as a tensor is not an input of the graph (torch binds it
            # to the op's Scalar overload)
            grad_fn.set_next_edges(collect_next_edges(
                [t for i in op.tensor_indices for t in
                 (args[i] if isinstance(args[i], (list, tuple)) else [args[i]])
                 if t is None or not t.unsafeGetTensorImpl().is_wrapped_number_]))
            needed: set[str] = set()
        else:
            needed = {n for n in info.diff_inputs if _requires_grad(args[index_of[n]])}
            if not needed:
                with below():
                    return op.redispatch(ks & after_autograd_keyset, *args)
            node_class = info.node_class
            assert node_class is not None
            grad_fn = node_class()
            edges = []
            for name in info.diff_inputs:
                value = args[index_of[name]]
                items = list(value) if isinstance(value, (list, tuple)) else [value]
                grad_fn.input_ranges_[name] = (len(edges), len(items),  # type: ignore[attr-defined]
                                               isinstance(value, (list, tuple)))
                edges.extend(collect_next_edges(items))
            grad_fn.set_next_edges(edges)
        if is_inplace:
            check_inplace(args[0])
        saved_outputs: list[str] = []
        if info is not None:
            reads = saved_names_for(info, needed)
            saved = grad_fn.saved_  # type: ignore[attr-defined]
            for name in reads:
                if name in info.properties:
                    arg, prop = info.properties[name]
                    saved[name] = _property(args[index_of[arg]], prop)
                elif name in info.list_properties:
                    arg, prop = info.list_properties[name]
                    saved[name] = [(t.sizes() if prop == "sizes" else t.scalar_type())
                                   for t in args[index_of[arg]]]
                elif name in index_of:
                    value = args[index_of[name]]
                    if isinstance(value, Tensor):
                        if is_inplace and name == "self":
                            value = value.clone()  # the original self, before the write
                        saved[name] = SavedVariable(value, False)
                    elif isinstance(value, (list, tuple)) and any(
                            isinstance(v, Tensor) for v in value):
                        saved[name] = [SavedVariable(v, False) for v in value]
                    else:
                        saved[name] = value
                elif name == "result" or name.startswith("result") or name in return_names:
                    saved_outputs.append(name)
        with below():
            result = op.redispatch(ks & after_autograd_keyset, *args)
        outputs = (list(result) if isinstance(result, (list, tuple)) else [result])
        if is_inplace:
            rebase_history(args[0], grad_fn)
        else:
            for out in outputs:
                if is_differentiable_output(out):
                    set_history(out, grad_fn)
                else:
                    grad_fn.add_input_metadata(None)
        for name in saved_outputs:
            if name in return_names:
                position = return_names.index(name)
            else:
                position = int(name[len("result"):] or 0)
            out = outputs[position]
            grad_fn.saved_[name] = SavedVariable(  # type: ignore[attr-defined]
                out, is_differentiable_output(out))
        if recorder.current is not None:  # the graph's new node, as facts of the trace
            record_grad_fn(grad_fn, outputs)
        return result

    return record


# VariableTypeManual.cpp writes these by hand instead of generating them: detach() is a view
# made with as_view(is_bw_differentiable=false, is_fw_differentiable=false), which records no
# base (x.detach()._is_view() is False), and detach_() bumps no version.
MANUAL_NON_DIFFERENTIABLE = frozenset({"detach", "detach_"})


def make_inplace_or_view_kernel(op: OperatorHandle) -> KernelFunction:
    schema = op.schema
    symbol = f"torch::ADInplaceOrView::{schema.full_name.replace('.', '_')}"
    manual = schema.name in MANUAL_NON_DIFFERENTIABLE
    # the schema's flags, read once here: as properties they scan the arguments on each call
    writes, is_view = schema.is_inplace or schema.is_out, schema.is_view

    @traced("autograd", symbol, INPLACE_OR_VIEW)
    def inplace_or_view_kernel(ks: DispatchKeySet, *args: Any) -> Any:
        with AutoDispatchBelowADInplaceOrView():
            result = op.redispatch(ks & after_ADInplaceOrView_keyset, *args)
        if manual:
            if schema.name == "detach":
                # detach is a (non-differentiable) view: it shares the version counter
                result.unsafeGetTensorImpl().set_version_counter(
                    args[0].unsafeGetTensorImpl().version_counter())
            return result
        if writes:
            for written in result if isinstance(result, tuple) else (result,):
                increment_version(written)
        elif is_view:
            # a multi-output view (split, unbind: `Tensor(a)[]`) makes each piece a view;
            # an op that hands back its input itself (lift_fresh, resolve_conj) makes none:
            # a tensor is never a view of itself (torch: `_base is None`), and would own itself
            base_impl = args[0].unsafeGetTensorImpl()
            for view in result if isinstance(result, list) else (result,):
                if view.unsafeGetTensorImpl() is not base_impl:
                    as_view(args[0], view)
        return result

    return KernelFunction(inplace_or_view_kernel, symbol, with_keyset=True)


def register_all() -> None:
    for op in singleton().operators.values():
        if DispatchKey.CompositeImplicitAutograd in op.registered:
            continue
        op.register(DispatchKey.Autograd, make_autograd_kernel(op))
        if op.schema.is_inplace or op.schema.is_view or op.schema.is_out:
            op.register(DispatchKey.ADInplaceOrView, make_inplace_or_view_kernel(op))
