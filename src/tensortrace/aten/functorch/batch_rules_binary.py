"""Batching rules of the pointwise operators: unary, binary, comparison, where.

Mirrors `aten/src/ATen/functorch/BatchRulesBinaryOps.cpp` (binary_pointwise_batch_rule,
_binary_pointwise_helper) and `BatchRulesUnaryOps.cpp`. Every batched argument's batch dim goes
to the front and is padded with 1s up to the highest logical rank, so ordinary broadcasting of
the values is the per-sample broadcasting the user wrote; an unbatched argument broadcasts as
it is. An operator with one tensor argument keeps its batch dim where it was (the unary rule).
"""

from __future__ import annotations

from typing import Any

from tensortrace.aten.dispatcher import OperatorHandle
from tensortrace.aten.functorch.batch_rules_helper import (
    batch_rule,
    current_level,
    moveBatchDimToFront,
    padRight,
    rank,
    unwrap,
    wrap,
)
from tensortrace.aten.functorch.batched_fallback import batchedTensorForLoopFallback
from tensortrace.aten.tensor_body import Tensor
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/functorch/BatchRulesBinaryOps.cpp"


@traced("dispatch", "at::functorch::binary_pointwise_batch_rule", SOURCE)
def pointwise_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    indices = op.tensor_indices
    if any(isinstance(args[i], (list, tuple)) for i in indices):
        return batchedTensorForLoopFallback(op, args)
    level = current_level(args)
    unwrapped = [(i, *unwrap(args[i], level)) for i in indices if args[i] is not None]
    new_args = list(args)
    tensors = [u for u in unwrapped if isinstance(u[1], Tensor)]
    if len(tensors) == 1:  # the unary rule: the batch dim stays where it is
        i, value, bdim = tensors[0]
        new_args[i] = value
        result = op.call(*new_args)
        return args[0] if op.schema.is_inplace else wrap(result, bdim, level)
    max_rank = max(rank(value, bdim) for _, value, bdim in tensors)
    for i, value, bdim in tensors:
        if bdim is not None:
            new_args[i] = padRight(moveBatchDimToFront(value, bdim), 0, max_rank)
    result = op.call(*new_args)
    if op.schema.is_inplace:
        return args[0]  # the write went through the view of self's value
    return wrap(result, 0, level)


# ops whose only tensor input keeps its shape (BatchRulesUnaryOps.cpp, the like-factories of
# BatchRulesFactory.cpp): the rule runs them on the value and keeps the batch dim
@batch_rule(
    "clone",
    "_to_copy",
    "zeros_like",
    "ones_like",
    "empty_like",
    "full_like",
    "zero_",
    "fill_.Scalar",
    "detach",
    "alias",
    "_conj",
    "resolve_conj",
    "resolve_neg",
    "_neg_view",
    "lift_fresh",
)
@traced(
    "dispatch", "at::functorch::unary_batch_rule", "aten/src/ATen/functorch/BatchRulesUnaryOps.cpp"
)
def unary_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    return pointwise_batch_rule(op, args)


@batch_rule("copy_", "fill_.Tensor")
def copy_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    """copy_ (and fill_ with a tensor value): an in-place binary op on the values."""
    return pointwise_batch_rule(op, args)
