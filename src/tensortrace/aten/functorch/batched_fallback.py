"""The for-loop fallback: an operator with no batching rule runs once per sample.

Mirrors `aten/src/ATen/functorch/BatchedFallback.cpp` (batchedTensorForLoopFallback and
batchedTensorInplaceForLoopFallback) and the registration of the FuncTorchBatched kernels: each
operator gets its batching rule (BATCH_RULES, by overload then by name), the pointwise rule if
native_functions.yaml tags it `pointwise`, else this fallback. The fallback slices every tensor
batched at the current level along its batch dim, calls the operator on each slice (a
Dispatcher::call per sample, so the trace shows the loop), and stacks the results.
"""

from __future__ import annotations

import warnings
from typing import Any

from tensortrace.aten.dispatcher import KernelFunction, OperatorHandle, singleton
from tensortrace.aten.functorch.batch_rules_helper import (
    BATCH_RULES,
    batch_size_at,
    current_level,
    unwrap,
    wrap,
)
from tensortrace.aten.generated import operators as ops
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.dispatch_key import DispatchKey
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/functorch/BatchedFallback.cpp"

# torch._C._functorch._set_vmap_fallback_warning_enabled (kVmapFallbackWarningEnabled): on
_fallback_warning_enabled = [True]


def _set_vmap_fallback_warning_enabled(enabled: bool) -> None:
    _fallback_warning_enabled[0] = bool(enabled)


def _is_vmap_fallback_warning_enabled() -> bool:
    return _fallback_warning_enabled[0]


def warnFallback(op: OperatorHandle) -> None:
    if not _fallback_warning_enabled[0]:
        return
    warnings.warn(
        f"There is a performance drop because we have not yet implemented the batching rule for "
        f"aten::{op.schema.full_name}. Please file us an issue on GitHub so that we can "
        "prioritize its implementation.",
        UserWarning,
        stacklevel=2,
    )


def _slice_at(arg: Any, level: int, index: int) -> Any:
    """One sample of an argument: its value selected at `index` along the batch dim."""
    if isinstance(arg, Tensor):
        value, bdim = unwrap(arg, level)
        return arg if bdim is None else ops.select_int.call(value, bdim, index)
    if isinstance(arg, (list, tuple)) and any(isinstance(a, Tensor) for a in arg):
        return type(arg)(_slice_at(a, level, index) for a in arg)
    return arg


def _is_batched_at(arg: Any, level: int) -> bool:
    if isinstance(arg, (list, tuple)):
        return any(_is_batched_at(a, level) for a in arg)
    return unwrap(arg, level)[1] is not None


@traced("dispatch", "at::functorch::batchedTensorInplaceForLoopFallback", SOURCE)
def batchedTensorInplaceForLoopFallback(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    level = current_level(args)
    name = op.schema.name
    if not _is_batched_at(args[0], level):
        raise RuntimeError(
            f"vmap: {name}(self, *extra_args) is not possible because there exists a Tensor "
            "`other` in extra_args that has more elements than `self`. This happened due to "
            "`other` being vmapped over but `self` not being vmapped over in a vmap. Please try "
            f"to use out-of-place operators instead of {name}. If said operator is being called "
            "inside the PyTorch framework, please file a bug report instead."
        )
    warnFallback(op)
    for i in range(batch_size_at(args, level)):
        op.call(*[_slice_at(a, level, i) for a in args])  # writes into a view of self's value
    return args[0]


@traced("dispatch", "at::functorch::batchedTensorForLoopFallback", SOURCE)
def batchedTensorForLoopFallback(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    schema = op.schema
    if schema.is_inplace:
        return batchedTensorInplaceForLoopFallback(op, args)
    if schema.is_out or schema.is_view:
        raise RuntimeError(
            f"Batching rule not implemented for aten::{schema.full_name}; the fallback path "
            "doesn't work on out= or view ops."
        )
    level = current_level(args)
    warnFallback(op)
    shards = [
        op.call(*[_slice_at(a, level, i) for a in args]) for i in range(batch_size_at(args, level))
    ]
    if not shards:
        raise RuntimeError(
            f"Batching rule not implemented for aten::{schema.full_name}. We could not generate "
            "a fallback."
        )
    first = shards[0]
    if isinstance(first, Tensor):
        return wrap(ops.stack.call(shards, 0), 0, level)
    if isinstance(first, tuple) and all(isinstance(r, Tensor) for r in first):
        # an output the op left undefined (convolution_backward's output_mask) stays undefined
        return tuple(
            wrap(ops.stack.call([s[j] for s in shards], 0), 0, level)
            if first[j].defined()
            else first[j]
            for j in range(len(first))
        )
    raise RuntimeError(
        f"Batching rule not implemented for aten::{schema.full_name}. We could not generate a "
        "fallback."
    )


def _has_pointwise_tag(op: OperatorHandle) -> bool:
    tags = op.entry.get("tags", ())
    return "pointwise" in (tags if isinstance(tags, (list, tuple)) else (tags,))


def _is_pointwise(op: OperatorHandle) -> bool:
    """Tagged pointwise, or the in-place form (add_.Tensor) of a tagged op (add.Tensor)."""
    if _has_pointwise_tag(op):
        return True
    schema = op.schema
    if not schema.is_inplace:
        return False
    functional = schema.full_name.replace(schema.name, schema.name[:-1], 1)
    other = singleton().operators.get(functional)
    return other is not None and _has_pointwise_tag(other)


def batched_kernel_for(op: OperatorHandle) -> KernelFunction:
    """The FuncTorchBatched kernel of one operator: its rule, the pointwise rule or the loop."""
    from tensortrace.aten.functorch.batch_rules_binary import pointwise_batch_rule

    rule = BATCH_RULES.get(op.schema.full_name) or BATCH_RULES.get(op.schema.name)
    if rule is None and _is_pointwise(op) and not op.schema.is_out:
        rule = pointwise_batch_rule
    if rule is None:
        # FuncTorchBatchedDecomposition: a composite op decomposes into ops that have rules
        composite = op.registered.get(DispatchKey.CompositeImplicitAutograd)
        if isinstance(composite, KernelFunction):
            return composite
    if rule is None:
        return KernelFunction(
            lambda ks, *args: batchedTensorForLoopFallback(op, args),
            "batchedTensorForLoopFallback",
            with_keyset=True,
        )
    chosen = rule
    return KernelFunction(
        lambda ks, *args: chosen(op, args),
        f"{getattr(chosen, '__name__', 'batch_rule')}",
        with_keyset=True,
    )


def register_functorch_kernels() -> None:
    """TORCH_LIBRARY_IMPL(_, FuncTorchBatched, m) and (_, FuncTorchVmapMode, m)."""
    from tensortrace.aten.functorch import (  # noqa: F401 - the rules register themselves
        batch_rules_binary,
        batch_rules_decompositions,
        batch_rules_forward_ad,
        batch_rules_linear_algebra,
        batch_rules_reduce,
        batch_rules_views,
    )
    from tensortrace.aten.functorch.vmap_mode import vmap_mode_kernel_for

    dispatcher = singleton()
    dispatcher.registerFallback(DispatchKey.FuncTorchBatched, batched_kernel_for)
    dispatcher.registerFallback(DispatchKey.FuncTorchVmapMode, vmap_mode_kernel_for)
