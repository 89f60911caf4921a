"""The Autograd kernel of an operator that has none: warn at backward, as torch 2.13 does.

Mirrors `torch/csrc/autograd/autograd_not_implemented_fallback.cpp`
(basicAutogradNotImplementedFallback in its default "warn" mode). Every native operator has an
Autograd kernel (generated from derivatives.yaml) or a CompositeImplicitAutograd one; an
operator torch.library defines may have neither. Then, when an input requires grad, the
backend kernel runs below autograd (the autograd keys taken out of the call's key set, not out
of the thread-local set: a Python kernel's own ops still record their graph), and each output
gets a WarnNotImplemented node (gradients None, with a warning) unless the kernel already gave
it a history, which gets a hook that warns when backward reaches it.
"""

from __future__ import annotations

import warnings
from typing import Any

from tensortrace.aten.dispatcher import KernelFunction, OperatorHandle
from tensortrace.aten.tensor_body import Tensor
from tensortrace.autograd import grad_mode
from tensortrace.autograd.function import Node, collect_next_edges
from tensortrace.autograd.traceable_function import is_differentiable_output
from tensortrace.autograd.variable_type_utils import set_history
from tensortrace.c10.dispatch_key import DispatchKeySet, after_autograd_keyset

FALLBACK_CPP = "torch/csrc/autograd/autograd_not_implemented_fallback.cpp"


def warn_autograd_not_implemented(op_name: str) -> None:
    warnings.warn(
        f"{op_name}: an autograd kernel was not registered to the Autograd key(s) but we are "
        "trying to backprop through it. This may lead to silently incorrect behavior. This "
        "behavior is deprecated and will be removed in a future version of PyTorch. If your "
        "operator is differentiable, please ensure you have registered an autograd kernel to "
        "the correct Autograd key (e.g. DispatchKey::Autograd, "
        "DispatchKey::CompositeImplicitAutograd). If your operator is not differentiable, or to "
        "squash this warning and use the previous behavior, please register "
        "torch::CppFunction::makeFallthrough() to DispatchKey::Autograd.",
        UserWarning,
        stacklevel=2,
    )


class WarnNotImplemented(Node):
    """The node of an output the fallback made: backward warns, and gives no gradient."""

    __slots__ = ("op_name", "num_outputs_")

    def __init__(self, op_name: str, num_outputs: int) -> None:
        super().__init__()
        self.op_name = op_name
        self.num_outputs_ = num_outputs

    def name(self) -> str:
        return "torch::autograd::WarnNotImplemented"

    def apply(self, grads: list[Any]) -> list[Any]:
        warn_autograd_not_implemented(self.op_name)
        return [None] * self.num_outputs_


def _tensors(values: Any) -> list[Tensor]:
    found: list[Tensor] = []
    for v in values:
        if isinstance(v, Tensor):
            if v.defined():
                found.append(v)
        elif isinstance(v, (list, tuple)):
            found.extend(_tensors(v))
    return found


def basic_autograd_not_implemented_fallback(op: OperatorHandle) -> KernelFunction:
    op_name = op.schema.operator_name
    returns = op.schema.returns

    def fallback(ks: DispatchKeySet, *args: Any) -> Any:
        inputs = _tensors(args)
        any_requires_grad = grad_mode.is_grad_enabled() and any(t.requires_grad() for t in inputs)
        grad_fn = None
        if any_requires_grad:
            grad_fn = WarnNotImplemented(op_name, len(inputs))
            grad_fn.set_next_edges(collect_next_edges(inputs))
        result = op.redispatch(ks & after_autograd_keyset, *args)
        if grad_fn is not None:
            outputs = result if isinstance(result, tuple) else (result,)
            for index, t in enumerate(outputs):
                if not is_differentiable_output(t):
                    continue
                mutable = index < len(returns) and returns[index].is_write
                if t.requires_grad():
                    meta = t.unsafeGetTensorImpl().autograd_meta_
                    if meta is not None and meta.grad_fn_ is not None:
                        meta.grad_fn_._register_tensor_pre_hook(
                            meta.output_nr_, lambda grad: warn_autograd_not_implemented(op_name)
                        )
                    continue
                if not mutable:
                    set_history(t, grad_fn)
        return result

    return KernelFunction(fallback, "torch::autograd::basicAutogradNotImplementedFallback", True)
