"""Batching rules of the view operators: the view of the value, batch dim at the front.

Mirrors `aten/src/ATen/functorch/BatchRulesViews.cpp`. A view of a batched tensor is a batched
view of its value: the rule moves the batch dim to the front (itself a view), then applies the
op with every logical dim moved up by one and the batch size prepended to every size, so the
result shares the value's storage as the per-sample view would share the sample's.
"""

from __future__ import annotations

from typing import Any

from tensortrace.aten.dispatcher import OperatorHandle, singleton
from tensortrace.aten.functorch.batch_rules_helper import (
    batch_rule,
    current_level,
    moveBatchDimToFront,
    rank,
    unwrap,
    wrap,
    wrap_dim_for_value,
)
from tensortrace.aten.functorch.batched_tensor_impl import maybeGetBatchedImpl
from tensortrace.aten.generated import operators as ops
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/functorch/BatchRulesViews.cpp"


def _front(args: tuple[Any, ...]) -> tuple[Any, int, int]:
    """(batch-front value of self, its logical rank, the level)."""
    level = current_level(args)
    value, bdim = unwrap(args[0], level)
    return moveBatchDimToFront(value, bdim), rank(value, bdim), level


@batch_rule("view", "_unsafe_view", "_reshape_alias", "reshape")
@traced("dispatch", "at::functorch::view_batching_rule", SOURCE)
def view_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    value, _, level = _front(args)
    new_args = [value, [value.size(0), *args[1]], *args[2:]]
    if op.schema.name == "_reshape_alias":
        new_args[2] = [value.stride(0), *args[2]]
    return wrap(op.call(*new_args), 0, level)


@batch_rule("expand")
@traced("dispatch", "at::functorch::expand_batch_rule", SOURCE)
def expand_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    value, logical_rank, level = _front(args)
    size = list(args[1])
    TORCH_CHECK(
        len(size) >= logical_rank,
        "expand: the number of sizes provided (",
        len(size),
        ") must be greater or equal to the number of dimensions in the tensor (",
        logical_rank,
        ")",
    )
    extra = len(size) - logical_rank
    if extra:
        value = ops.view.call(value, [value.size(0)] + [1] * extra + list(value.sizes()[1:]))
    return wrap(op.call(value, [value.size(0), *size], *args[2:]), 0, level)


@batch_rule("transpose.int")
def transpose_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    value, logical_rank, level = _front(args)
    if logical_rank == 0:  # a 0-dim tensor transposes as itself (dims 0 and -1 only)
        maybe_wrap_dim(args[1], 0)
        maybe_wrap_dim(args[2], 0)
        return wrap(ops.alias.call(value), 0, level)
    d0, d1 = wrap_dim_for_value(args[1], logical_rank), wrap_dim_for_value(args[2], logical_rank)
    return wrap(op.call(value, d0, d1), 0, level)


@batch_rule("t")
def t_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    value, logical_rank, level = _front(args)
    TORCH_CHECK(
        logical_rank <= 2,
        "t() expects a tensor with <= 2 dimensions, but self is ",
        logical_rank,
        "D",
    )
    if logical_rank < 2:
        return wrap(ops.alias.call(value), 0, level)
    return wrap(ops.transpose_int.call(value, 1, 2), 0, level)


@batch_rule("permute")
def permute_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    value, logical_rank, level = _front(args)
    TORCH_CHECK(
        len(args[1]) == logical_rank,
        "permute(sparse_coo): number of dimensions in the tensor input does not match the "
        "length of the desired ordering of dimensions i.e. input.dim() = ",
        logical_rank,
        " is not equal to len(dims) = ",
        len(args[1]),
    )
    dims = [0] + [wrap_dim_for_value(d, logical_rank) for d in args[1]]
    return wrap(op.call(value, dims), 0, level)


@batch_rule(
    "select.int",
    "slice.Tensor",
    "diagonal",
    "unbind.int",
    "split.Tensor",
    "split_with_sizes",
    "unfold",
    "narrow",
    "squeeze.dim",
    "squeeze.dims",
)
@traced("dispatch", "at::functorch::dim_view_batch_rule", SOURCE)
def dim_view_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    """Views that name logical dims (dim, dim1, dim2, dimension): each moves up by one."""
    value, logical_rank, level = _front(args)
    new_args = [value, *args[1:]]
    for i, argument in enumerate(op.schema.arguments):
        if argument.name in ("dim", "dim1", "dim2", "dimension"):
            if isinstance(args[i], (list, tuple)):
                new_args[i] = [wrap_dim_for_value(d, logical_rank) for d in args[i]]
            else:
                new_args[i] = wrap_dim_for_value(args[i], logical_rank)
    return wrap(op.call(*new_args), 0, level)


@batch_rule("squeeze")
def squeeze_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    value, _, level = _front(args)
    dims = [d for d in range(1, value.dim()) if value.size(d) == 1]
    return wrap(ops.squeeze_dims.call(value, dims), 0, level)


@batch_rule("unsqueeze")
def unsqueeze_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    value, logical_rank, level = _front(args)
    dim = maybe_wrap_dim(args[1], logical_rank + 1) + 1
    return wrap(op.call(value, dim), 0, level)


@batch_rule("movedim.intlist")
def movedim_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    value, logical_rank, level = _front(args)
    src = [wrap_dim_for_value(d, logical_rank) for d in args[1]]
    dst = [wrap_dim_for_value(d, logical_rank) for d in args[2]]
    return wrap(op.call(value, src, dst), 0, level)


@batch_rule("squeeze_", "squeeze_.dim", "squeeze_.dims", "unsqueeze_", "transpose_", "t_")
@traced("dispatch", "at::functorch::inplace_view_batch_rule", SOURCE)
def inplace_view_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    """squeeze_ and friends change self's metadata: self's BatchedTensorImpl takes the value
    (and batch dim) of the out-of-place view (functorch's squeeze__batching_rule sets them)."""
    schema = op.schema
    dispatcher = singleton()
    functional = (
        dispatcher.operators.get(schema.full_name.replace(schema.name, schema.name[:-1], 1))
        or dispatcher.overloads(schema.name[:-1])[0]
    )  # transpose_ is transpose.int's
    viewed = functional.call(*args)  # a batched view: this dispatch's rules, no graph
    impl = maybeGetBatchedImpl(args[0])
    new = maybeGetBatchedImpl(viewed)
    assert impl is not None and new is not None
    old_value = impl.value_
    impl.value_ = new.value_.copy()
    impl.bdim_ = new.bdim_
    old_value.reset()
    impl.refreshTensorMetadata()
    impl._record_meta()
    return args[0]


@batch_rule("as_strided")
def as_strided_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    raise RuntimeError(
        "Batching rule not implemented for aten::as_strided; the fallback path doesn't work "
        "on out= or view ops."
    )
