"""What every batching rule does: find the vmap level, unwrap, move the batch dim, wrap again.

Mirrors `aten/src/ATen/functorch/BatchRulesHelper.h` / `.cpp` and `LegacyVmapTransforms.h`
(the registry of rules stands in for `TORCH_LIBRARY_IMPL(aten, FuncTorchBatched, m)`). A rule is
`rule(op, args) -> result`: it runs the operator on the unwrapped values (a Dispatcher::call of
its own, so the trace shows the aten:: frame inside the batched one) and wraps the result at the
level it unwrapped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tensortrace.aten.dispatcher import OperatorHandle
from tensortrace.aten.functorch.batched_tensor_impl import (
    makeBatched,
    maybeGetBatchedImpl,
    unwrapTensorAtLevel,
)
from tensortrace.aten.generated import operators as ops
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim

BatchRule = Callable[[OperatorHandle, tuple[Any, ...]], Any]
# op full names ("sum.dim_IntList") or base names ("sum") -> rule
BATCH_RULES: dict[str, BatchRule] = {}


def batch_rule(*names: str) -> Callable[[BatchRule], BatchRule]:
    """VMAP_SUPPORT / m.impl(name, rule): register one rule under several operator names."""

    def register(rule: BatchRule) -> BatchRule:
        for name in names:
            BATCH_RULES[name] = rule
        return rule

    return register


def _tensors_of(args: tuple[Any, ...] | list[Any]) -> list[Tensor]:
    found: list[Tensor] = []
    for a in args:
        if isinstance(a, Tensor):
            found.append(a)
        elif isinstance(a, (list, tuple)):
            found.extend(t for t in a if isinstance(t, Tensor))
    return found


def current_level(args: tuple[Any, ...] | list[Any]) -> int:
    """The highest vmap level among the arguments: the level this dispatch handles (torch asks
    the DynamicLayer stack; the innermost vmap's tensors carry the highest level)."""
    level = 0
    for t in _tensors_of(args):
        impl = maybeGetBatchedImpl(t)
        if impl is not None and impl.level_ > level:
            level = impl.level_
    return level


def batch_size_at(args: tuple[Any, ...] | list[Any], level: int) -> int:
    for t in _tensors_of(args):
        impl = maybeGetBatchedImpl(t)
        if impl is not None and impl.level_ == level:
            return impl.value_.size(impl.bdim_)
    raise AssertionError("no tensor is batched at this level")


def rank(value: Tensor, bdim: int | None) -> int:
    """rankWithoutBatchDim."""
    return value.dim() - (1 if bdim is not None else 0)


def moveBatchDimToFront(value: Tensor, bdim: int | None) -> Tensor:
    if bdim is None or bdim == 0:
        return value
    return ops.movedim_int.call(value, bdim, 0)  # type: ignore[no-any-return]


def wrap_dim_for_value(dim: int, logical_rank: int) -> int:
    """A logical dim (checked against the logical rank, with torch's IndexError) as a dim of
    the batch-front value: one more (getPhysicalDim)."""
    return maybe_wrap_dim(dim, logical_rank) + 1


def padRight(value: Tensor, bdim: int | None, logical_rank: int) -> Tensor:
    """maybePadToLogicalRank: insert 1s after the batch dim up to `logical_rank` dims."""
    current = rank(value, bdim)
    if bdim is None or current >= logical_rank:
        return value
    sizes = list(value.sizes())
    sizes[1:1] = [1] * (logical_rank - current)
    return ops.view.call(value, sizes)  # type: ignore[no-any-return]


def ensure_has_bdim(value: Tensor, has_bdim: bool, batch_size: int) -> Tensor:
    """A value without a batch dim, expanded to one at the front."""
    if has_bdim:
        return value
    return ops.expand.call(  # type: ignore[no-any-return]
        ops.unsqueeze.call(value, 0), [batch_size, *value.sizes()], False
    )


def wrap(result: Any, bdim: int | None, level: int) -> Any:
    """makeBatched on a result, each tensor of a tuple or list result."""
    if isinstance(result, Tensor):
        return makeBatched(result, bdim, level)
    if isinstance(result, (tuple, list)):
        return type(result)(wrap(r, bdim, level) for r in result)
    return result


def unwrap(t: Any, level: int) -> tuple[Any, int | None]:
    if isinstance(t, Tensor):
        return unwrapTensorAtLevel(t, level)
    return t, None
