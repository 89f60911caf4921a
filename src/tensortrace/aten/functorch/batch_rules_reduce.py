"""Batching rules of the operators that take a dim: reductions, softmax, scans, gather.

Mirrors `aten/src/ATen/functorch/BatchRulesReduceOps.cpp` (boxed_reduction_batch_rule: the
batch dim goes to the front and every logical dim moves up by one) and the softmax and gather
rules of `BatchRulesDecompositions.cpp` / `BatchRulesScatterOps.cpp`. A logical dim is checked
against the logical rank first, so a bad one raises the IndexError torch raises. A full
reduction (`x.sum()`) reduces every logical dim of the value; a 0-dim logical tensor is viewed
as one element, as the op would wrap it.
"""

from __future__ import annotations

from typing import Any

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
    wrap_dim_for_value,
)
from tensortrace.aten.generated import operators as ops
from tensortrace.aten.tensor_body import Tensor
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/functorch/BatchRulesReduceOps.cpp"


def _scalar_guard(value: Tensor, logical_rank: int) -> Tensor:
    """A 0-dim logical tensor as a 1-element one, so that dim 0 (or -1) names something."""
    return ops.unsqueeze.call(value, 1) if logical_rank == 0 else value  # type: ignore[no-any-return]


def _unguard(result: Any, logical_rank: int) -> Any:
    if logical_rank != 0:
        return result
    if isinstance(result, (tuple, list)):
        return type(result)(_unguard(r, 0) for r in result)
    if isinstance(result, Tensor) and result.dim() == 2:
        return ops.squeeze_dim.call(result, 1)
    return result


@traced("dispatch", "at::functorch::boxed_reduction_batch_rule", SOURCE)
def dim_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    """Every tensor argument batch-front (expanded if unbatched), every dim argument + 1."""
    level = current_level(args)
    schema = op.schema
    new_args = list(args)
    self_value, self_bdim = unwrap(args[0], level)
    logical_rank = rank(self_value, self_bdim)
    batch_size = batch_size_at(args, level)
    for i in op.tensor_indices:
        value, bdim = unwrap(args[i], level)
        if isinstance(value, Tensor):
            front = ensure_has_bdim(moveBatchDimToFront(value, bdim), bdim is not None, batch_size)
            new_args[i] = _scalar_guard(front, rank(value, bdim))
    for i, argument in enumerate(schema.arguments):
        if argument.name not in ("dim", "dim1", "dim2", "dims") or args[i] is None:
            continue
        if isinstance(args[i], (list, tuple)):
            dims = list(args[i])
            if not dims and schema.name in ("sum", "mean", "amax", "amin", "logsumexp"):
                dims = list(range(logical_rank))  # an empty list reduces every dim
            new_args[i] = [wrap_dim_for_value(d, logical_rank) for d in dims]
        else:
            new_args[i] = wrap_dim_for_value(args[i], logical_rank)
    dim_index = next((i for i, a in enumerate(schema.arguments) if a.name == "dim"), None)
    if dim_index is not None and args[dim_index] is None:
        # dim=None: over every logical dim (argmax flattens; sum/mean/var list them all)
        if schema.arguments[dim_index].type.is_list:
            new_args[dim_index] = list(range(1, max(logical_rank, 1) + 1))
        else:
            flat = ops.reshape.call(new_args[0], [batch_size, -1])
            new_args[0] = flat
            new_args[dim_index] = 1
            keepdim_index = next(
                (i for i, a in enumerate(schema.arguments) if a.name == "keepdim"), None
            )
            if keepdim_index is not None and args[keepdim_index]:
                new_args[keepdim_index] = False
                result = op.call(*new_args)
                return wrap(ops.view.call(result, [batch_size] + [1] * logical_rank), 0, level)
    result = op.call(*new_args)
    if schema.is_inplace:
        return args[0]
    return wrap(_unguard(result, logical_rank), 0, level)


batch_rule(
    "sum.dim_IntList",
    "mean.dim",
    "amax",
    "amin",
    "max.dim",
    "min.dim",
    "argmax",
    "argmin",
    "logsumexp",
    "prod.dim_int",
    "std.correction",
    "var.correction",
    "std_mean.correction",
    "var_mean.correction",
    "all.dim",
    "any.dim",
    "_softmax",
    "_log_softmax",
    "_softmax_backward_data",
    "_log_softmax_backward_data",
    "cumsum",
    "cumprod",
    "logcumsumexp",
    "cummax",
    "cummin",
    "sort",
    "sort.stable",
    "topk",
    "kthvalue",
    "median.dim",
    "mode",
    "gather",
    "scatter.src",
    "scatter.value",
    "scatter_add",
    "count_nonzero.dim_IntList",
    "flip",
)(dim_batch_rule)


# the full reductions: the dim form of the op over the flattened logical dims
_FULL = {
    "sum": lambda v, a: ops.sum_dim_IntList.call(v, [1], False, a[1]),
    "mean": lambda v, a: ops.mean_dim.call(v, [1], False, a[1]),
    "prod": lambda v, a: ops.prod_dim_int.call(v, 1, False, a[1]),
    "max": lambda v, a: ops.amax.call(v, [1], False),
    "min": lambda v, a: ops.amin.call(v, [1], False),
    "all": lambda v, a: ops.all_dim.call(v, 1, False),
    "any": lambda v, a: ops.any_dim.call(v, 1, False),
}


@batch_rule("sum", "mean", "prod", "max", "min", "all", "any")
@traced("dispatch", "at::functorch::full_reduction_batch_rule", SOURCE)
def full_reduction_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    level = current_level(args)
    value, bdim = unwrap(args[0], level)
    if bdim is None:
        return op.call(*args)
    front = moveBatchDimToFront(value, bdim)
    flat = ops.reshape.call(front, [front.size(0), -1])
    if op.schema.name in ("max", "min") and flat.size(1) == 0:
        op.call(ops.select_int.call(front, 0, 0))  # the op's own error on an empty tensor
    return wrap(_FULL[op.schema.name](flat, args), 0, level)
