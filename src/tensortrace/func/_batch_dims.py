"""_add_batch_dim / _remove_batch_dim: a tensor into and out of a vmap level, differentiably.

Mirrors `torch._C._functorch._add_batch_dim` / `_remove_batch_dim`
(aten/src/ATen/functorch/LegacyVmapTransforms.cpp, VmapInterpreter). In torch they are no autograd
ops: the DynamicLayer stack lets autograd see through the wrapper. Here autograd records on the
batched tensors themselves (Note [vmap below autograd] in aten/functorch/batched_tensor_impl.py),
so wrapping and unwrapping are autograd.Functions, each the other's backward: a gradient that
reaches a BatchedTensor made from `x` leaves vmap as the gradient of `x`, with its batch dim
where `x` had it. This is what makes `vmap(f)(x).sum().backward()`, grad(vmap(f)) and
vjp/jacrev's vmap over a recorded graph (`is_grads_batched`) work.
"""

from __future__ import annotations

from typing import Any

import tensortrace as torch
from tensortrace.aten.functorch.batched_tensor_impl import (
    makeBatched,
    maybeGetBatchedImpl,
)
from tensortrace.aten.generated import operators as ops
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.autograd import forward_ad as fwAD  # noqa: N812 - torch's name
from tensortrace.autograd.custom_function import Function
from tensortrace.autograd.forward_grad import is_fw_grad_defined
from tensortrace.csrc.python_variable import THPVariable_Wrap


def is_batchedtensor(t: Any) -> bool:
    return maybeGetBatchedImpl(t.cdata) is not None


def _add_batch_dim_impl(t: Any, bdim: int, level: int) -> Any:
    return THPVariable_Wrap(makeBatched(t.cdata, bdim, level))


def _remove_batch_dim_impl(t: Any, level: int, batch_size: int, out_dim: int) -> Any:
    impl = maybeGetBatchedImpl(t.cdata)
    out_dim = maybe_wrap_dim(out_dim, t.dim() + 1)
    if impl is None or impl.level_ != level:
        # not batched at this level: the same value for every sample, as an expanded view
        value = t.cdata
        expanded = ops.expand.call(
            ops.unsqueeze.call(value, out_dim),
            [*value.sizes()[:out_dim], batch_size, *value.sizes()[out_dim:]],
            False,
        )
        return THPVariable_Wrap(expanded)
    return THPVariable_Wrap(ops.movedim_int.call(impl.value_, impl.bdim_, out_dim))


class _AddBatchDim(Function):
    @staticmethod
    def forward(ctx: Any, t: Any, bdim: int, level: int, batch_size: int) -> Any:
        ctx.saved = (bdim, level, batch_size)
        return _add_batch_dim_impl(t, bdim, level)

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        bdim, level, batch_size = ctx.saved
        return _remove_batch_dim_impl(grad, level, batch_size, bdim), None, None, None

    @staticmethod
    def jvp(ctx: Any, tangent: Any, *_: Any) -> Any:
        bdim, level, _batch_size = ctx.saved
        return _add_batch_dim_impl(tangent, bdim, level)


class _RemoveBatchDim(Function):
    @staticmethod
    def forward(ctx: Any, t: Any, level: int, batch_size: int, out_dim: int) -> Any:
        ctx.saved = (level, maybe_wrap_dim(out_dim, t.dim() + 1), is_batchedtensor(t))
        ctx.batch_size = batch_size
        return _remove_batch_dim_impl(t, level, batch_size, out_dim)

    @staticmethod
    def jvp(ctx: Any, tangent: Any, *_: Any) -> Any:
        level, out_dim, _was_batched = ctx.saved
        return _remove_batch_dim_impl(tangent, level, ctx.batch_size, out_dim)

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        level, out_dim, was_batched = ctx.saved
        if not was_batched:  # the output was an expand of an unbatched tensor: sum it back
            return grad.sum(out_dim), None, None, None
        return _add_batch_dim_impl(grad, out_dim, level), None, None, None


def _add_batch_dim(t: Any, bdim: int, level: int) -> Any:
    if t.requires_grad and torch.is_grad_enabled():
        return _AddBatchDim.apply(t, bdim, level, t.size(bdim))
    return _keep_tangent(t, lambda x: _add_batch_dim_impl(x, bdim, level))


def _remove_batch_dim(t: Any, level: int, batch_size: int, out_dim: int) -> Any:
    if t.requires_grad and torch.is_grad_enabled():
        return _RemoveBatchDim.apply(t, level, batch_size, out_dim)
    return _keep_tangent(t, lambda x: _remove_batch_dim_impl(x, level, batch_size, out_dim))


def _keep_tangent(t: Any, move: Any) -> Any:
    """`move(t)`, and a dual tensor's tangent moved alike (the Functions' jvp, when autograd
    records nothing): jacfwd's vmap over jvp, hessian's forward over reverse."""
    if not is_fw_grad_defined(t.cdata):
        return move(t)
    primal, tangent = fwAD.unpack_dual(t)
    return fwAD.make_dual(move(primal), move(tangent))
