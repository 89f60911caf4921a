"""Batching rules of forward AD's view operators: _make_dual and _fw_primal under vmap.

Mirrors the `_make_dual` / `_fw_primal` entries of functorch's BatchRulesViews.cpp. Below the
autograd keys both are aliases of the primal (their Autograd kernels attach or drop the tangent,
autograd/forward_ad_type.py), so a batched call is the alias of the primal's value at its batch
dim; a tangent batched where the primal is not (jacfwd pushes a batch of basis vectors through
one primal) leaves the alias unbatched, and the Autograd kernel above attaches the batched
tangent to it.
"""

from __future__ import annotations

from typing import Any

from tensortrace.aten.dispatcher import OperatorHandle
from tensortrace.aten.functorch.batch_rules_helper import (
    batch_rule,
    current_level,
    moveBatchDimToFront,
    wrap,
)
from tensortrace.aten.functorch.batched_tensor_impl import unwrapTensorAtLevel
from tensortrace.aten.generated import operators as ops


@batch_rule("_make_dual", "_fw_primal")
def dual_view_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    level = current_level(args)
    value, bdim = unwrapTensorAtLevel(args[0], level)
    result = ops.alias.call(value)
    return result if bdim is None else wrap(result, bdim, level)


@batch_rule("is_same_size")
def is_same_size_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    """BatchRulesViews.cpp: the logical sizes, the batch dim left out."""
    return list(args[0].sizes()) == list(args[1].sizes())


@batch_rule("_has_same_storage_numel")
def has_same_storage_numel_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    """A batched tangent never shares the unbatched primal's storage layout: the Autograd
    kernel then copies it into _new_zeros_with_same_feature_meta (as functorch's rule makes
    set_fw_grad do)."""
    level = current_level(args)
    (a, a_bdim), (b, b_bdim) = (unwrapTensorAtLevel(t, level) for t in args[:2])
    if (a_bdim is None) != (b_bdim is None):
        return False
    return op.call(a, b)


@batch_rule("_new_zeros_with_same_feature_meta")
def new_zeros_with_same_feature_meta_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    """BatchRulesViews.cpp's rule: zeros with `other`'s feature layout behind the batch dims
    of `self` (the tangent), which come first."""
    self, other, num_batch_dims = args
    level = current_level(args)
    value, bdim = unwrapTensorAtLevel(self, level)
    other_value, other_bdim = unwrapTensorAtLevel(other, level)
    if other_bdim is not None:  # the primal is batched too: its layout is per sample
        other_value = ops.select_int.call(moveBatchDimToFront(other_value, other_bdim), 0, 0)
    value = moveBatchDimToFront(value, bdim)
    result = op.call(value, other_value, num_batch_dims + (1 if bdim is not None else 0))
    return result if bdim is None else wrap(result, 0, level)
