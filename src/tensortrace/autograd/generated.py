"""The autograd and ADInplaceOrView kernels of every operator, generated from its schema.

Mirrors what `tools/autograd/gen_variable_type.py` and `gen_inplace_or_view_type.py` write
(`torch/csrc/autograd/generated/VariableType_*.cpp`, `ADInplaceOrViewType_*.cpp`).

- The Autograd kernel (key AutogradCPU) would record the backward graph; then it excludes the
  autograd keys and redispatches below itself. Derivative formulas are not modelled yet, so an
  op whose input requires grad raises the error PyTorch raises for an op with no derivative.
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
from tensortrace.autograd.variable import as_view, increment_version
from tensortrace.c10.dispatch_key import (
    DispatchKey,
    DispatchKeySet,
    after_ADInplaceOrView_keyset,
    after_autograd_keyset,
)
from tensortrace.c10.exception import TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.local_dispatch_key_set import (
    AutoDispatchBelowADInplaceOrView,
    AutoDispatchBelowAutograd,
)
from tensortrace.trace import traced

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

    @traced("autograd", symbol, VARIABLE_TYPE, legacy="VariableType (autograd wrapper)")
    def autograd_kernel(ks: DispatchKeySet, *args: Any) -> Any:
        for i in op.tensor_indices:
            if _requires_grad(args[i]):
                TORCH_CHECK_NOT_IMPLEMENTED(False, "the derivative for '", schema.name,
                                            "' is not implemented.")
        with below():
            return op.redispatch(ks & after_autograd_keyset, *args)

    return KernelFunction(autograd_kernel, symbol, with_keyset=True)


# VariableTypeManual.cpp writes these by hand instead of generating them: detach() is a view
# made with as_view(is_bw_differentiable=false, is_fw_differentiable=false), which records no
# base (x.detach()._is_view() is False), and detach_() bumps no version.
MANUAL_NON_DIFFERENTIABLE = frozenset({"detach", "detach_"})


def make_inplace_or_view_kernel(op: OperatorHandle) -> KernelFunction:
    schema = op.schema
    symbol = f"torch::ADInplaceOrView::{schema.full_name.replace('.', '_')}"
    manual = schema.name in MANUAL_NON_DIFFERENTIABLE

    @traced("autograd", symbol, INPLACE_OR_VIEW)
    def inplace_or_view_kernel(ks: DispatchKeySet, *args: Any) -> Any:
        with AutoDispatchBelowADInplaceOrView():
            result = op.redispatch(ks & after_ADInplaceOrView_keyset, *args)
        if manual:
            return result
        if schema.is_inplace or schema.is_out:
            for written in result if isinstance(result, tuple) else (result,):
                increment_version(written)
        elif schema.is_view:
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
