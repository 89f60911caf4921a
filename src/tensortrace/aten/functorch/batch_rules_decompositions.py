"""Batching rules that decompose, and those of the TensorList and data-dependent operators.

Mirrors `aten/src/ATen/functorch/BatchRulesLoss.cpp` (nll_loss_forward_decomposition,
nll_loss_backward_decomposition, the mse_loss decomposition of BatchRulesDecompositions.cpp),
the cat/stack rules of `BatchRulesViews.cpp`, index_select of `BatchRulesScatterOps.cpp`, and
`BatchRulesDynamic.cpp` (ops whose output shape depends on the data, and `.item()`). A
decomposition runs ops on the batched tensors themselves: each of them reaches its own rule.
"""

from __future__ import annotations

from typing import Any

from tensortrace.aten import functions as at
from tensortrace.aten.dispatcher import OperatorHandle
from tensortrace.aten.functorch.batch_rules_helper import (
    batch_rule,
    batch_size_at,
    current_level,
    ensure_has_bdim,
    moveBatchDimToFront,
    rank,
    unwrap,
    wrap,
)
from tensortrace.aten.functorch.batched_fallback import batchedTensorForLoopFallback
from tensortrace.aten.generated import operators as ops
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.trace import traced

LOSS = "aten/src/ATen/functorch/BatchRulesLoss.cpp"
_NONE, _MEAN, _SUM = 0, 1, 2  # at::Reduction


def _batch_front_all(tensors: list[Any], level: int, batch_size: int) -> list[Tensor]:
    values = []
    for t in tensors:
        value, bdim = unwrap(t, level)
        values.append(
            ensure_has_bdim(moveBatchDimToFront(value, bdim), bdim is not None, batch_size)
        )
    return values


def _first_logical_rank(tensors: list[Any], level: int) -> int:
    for t in tensors:
        value, bdim = unwrap(t, level)
        if rank(value, bdim) != 1 or value.size(-1) != 0:  # a legacy empty [0] is skipped
            return rank(value, bdim)
    return 1


@batch_rule("cat")
@traced(
    "dispatch", "at::functorch::cat_batching_rule", "aten/src/ATen/functorch/BatchRulesViews.cpp"
)
def cat_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    tensors, dim = list(args[0]), args[1]
    level = current_level(tensors)
    logical_rank = _first_logical_rank(tensors, level)
    dim = maybe_wrap_dim(dim, logical_rank) + 1
    values = _batch_front_all(tensors, level, batch_size_at(tensors, level))
    return wrap(op.call(values, dim), 0, level)


@batch_rule("stack")
@traced(
    "dispatch", "at::functorch::stack_batching_rule", "aten/src/ATen/functorch/BatchRulesViews.cpp"
)
def stack_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    tensors, dim = list(args[0]), args[1]
    level = current_level(tensors)
    value, bdim = unwrap(tensors[0], level)
    dim = maybe_wrap_dim(dim, rank(value, bdim) + 1) + 1
    values = _batch_front_all(tensors, level, batch_size_at(tensors, level))
    return wrap(op.call(values, dim), 0, level)


@batch_rule("index_select")
@traced(
    "dispatch",
    "at::functorch::index_select_batch_rule",
    "aten/src/ATen/functorch/BatchRulesScatterOps.cpp",
)
def index_select_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    level = current_level(args)
    index_value, index_bdim = unwrap(args[2], level)
    if index_bdim is not None:
        return batchedTensorForLoopFallback(op, args)
    value, bdim = unwrap(args[0], level)
    logical_rank = rank(value, bdim)
    dim = maybe_wrap_dim(args[1], logical_rank)
    front = moveBatchDimToFront(value, bdim)
    if logical_rank == 0:
        result = op.call(ops.unsqueeze.call(front, 1), 1, index_value)
        return wrap(
            ops.squeeze_dim.call(result, 1)
            if index_value.dim() == 0
            else ops.reshape.call(result, [front.size(0)] + list(index_value.sizes())),
            0,
            level,
        )
    return wrap(op.call(front, dim + 1, index_value), 0, level)


@batch_rule("new_zeros", "new_ones", "new_empty", "new_full")
@traced(
    "dispatch",
    "at::functorch::new_blah_batch_rule",
    "aten/src/ATen/functorch/BatchRulesFactory.cpp",
)
def new_factory_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    """self.new_zeros(size): a batch of them, made like the value (dtype and device)."""
    level = current_level(args)
    value, bdim = unwrap(args[0], level)
    new_args = [value, [batch_size_at(args, level), *args[1]], *args[2:]]
    return wrap(op.call(*new_args), 0, level)


@batch_rule("item", "_local_scalar_dense")
def item_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    raise RuntimeError(
        "vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over "
        "calling .item() on a Tensor, please try to rewrite what you're doing with other "
        "operations. If error is occurring somewhere inside PyTorch internals, please file a "
        "bug report."
    )


@batch_rule("is_nonzero")
def is_nonzero_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    raise RuntimeError(
        "vmap: It looks like you're attempting to use a Tensor in some data-dependent control "
        "flow. We don't support that yet, please file an issue at "
        "https://github.com/pytorch/pytorch/issues ."
    )


@batch_rule(
    "nonzero",
    "masked_select",
    "unique_dim",
    "_unique2",
    "unique_consecutive",
    "argwhere",
    "nonzero_static",
)
def dynamic_shape_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    raise RuntimeError(
        "vmap: We do not support batching operators that can output dynamic shape. Attempted "
        f"to vmap over aten::{op.schema.name}. Please file an issue at "
        "https://github.com/pytorch/pytorch/issues if you need this feature."
    )


@batch_rule("mse_loss")
@traced("dispatch", "at::functorch::mse_loss_decomposition", LOSS)
def mse_loss_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    self, target, reduction = args
    diff = at.sub(self, target)
    loss = at.mul(diff, diff)
    if reduction == _MEAN:
        return at.mean(loss)
    if reduction == _SUM:
        return at.sum(loss)
    return loss


@batch_rule("mse_loss_backward")
@traced("dispatch", "at::functorch::mse_loss_backward_decomposition", LOSS)
def mse_loss_backward_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    grad_output, self, target, reduction = args
    norm = 2.0 / self.numel() if reduction == _MEAN else 2.0
    return at.mul(at.mul(at.sub(self, target), norm), grad_output)


def _weight_view(weight: Tensor, ndim: int, channel_dim: int) -> Tensor:
    shape = [1] * ndim
    shape[channel_dim] = weight.size(0)
    return at.reshape(weight, shape)  # type: ignore[no-any-return]


@batch_rule("nll_loss_forward")
@traced("dispatch", "at::functorch::nll_loss_forward_decomposition", LOSS)
def nll_loss_forward_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    self, target, weight, reduction, ignore_index = args
    channel_dim = 0 if self.dim() < 2 else 1
    self_ = self
    weight_ = None
    has_weight = weight is not None and weight.defined()
    # mean over an unbatched sample: w * x[t] / w is x[t] (pytorch/pytorch#61309)
    if has_weight and not (reduction == _MEAN and self_.dim() < 2):
        weight_ = _weight_view(weight, self_.dim(), channel_dim)
        self_ = at.mul(self_, weight_)
    target_ = at.unsqueeze(target, channel_dim)
    result = at.neg(at.squeeze(at.gather(self_, channel_dim, target_), channel_dim))
    total_weight = at.full([], result.numel(), dtype=self_.scalar_type(), device=self_.device())
    has_ignore_index = ignore_index >= 0
    mask = None
    if has_ignore_index:
        mask = at.ne(target, ignore_index)
        result = at.mul(result, mask)
        total_weight = at.sum(mask, dtype=self_.scalar_type())
    if result.dim() > 0:
        if reduction == _SUM:
            result = at.sum(result)
        elif reduction == _MEAN:
            if weight_ is None:
                result = (
                    at.div(at.sum(result), total_weight) if mask is not None else at.mean(result)
                )
            else:
                expanded = at.expand(weight_, list(self_.sizes()))
                wsum = at.squeeze(at.gather(expanded, channel_dim, target_), channel_dim)
                if mask is not None:
                    wsum = at.mul(wsum, mask)
                wsum = at.sum(wsum)
                result = at.div(at.sum(result), wsum)
                total_weight = wsum
    elif reduction == _MEAN and has_weight:
        wsum = at.squeeze(at.gather(weight, channel_dim, target_), channel_dim)
        if mask is not None:
            wsum = at.mul(wsum, mask)
        total_weight = at.sum(wsum)
    return result, total_weight


@batch_rule("nll_loss_backward")
@traced("dispatch", "at::functorch::nll_loss_backward_decomposition", LOSS)
def nll_loss_backward_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    grad_output, self, target, weight, reduction, ignore_index, total_weight = args
    channel_dim = 0 if self.dim() < 2 else 1
    target_ = at.unsqueeze(target, channel_dim)
    grad_output_ = grad_output
    if reduction == _MEAN:
        grad_output_ = at.div(grad_output_, total_weight)
    grad_input = at.scatter(at.zeros_like(self), channel_dim, target_, -1.0)
    if 0 < grad_output_.dim() < grad_input.dim():
        grad_output_ = at.unsqueeze(grad_output_, channel_dim)
    if weight is not None and weight.defined():
        grad_output_ = at.mul(grad_output_, _weight_view(weight, self.dim(), channel_dim))
    if ignore_index >= 0:
        grad_output_ = at.mul(grad_output_, at.ne(target_, ignore_index))
    return at.mul(grad_input, grad_output_)
