"""Random operators inside vmap: the randomness mode decides ("error", "same", "different").

Mirrors `aten/src/ATen/functorch/BatchRulesRandomness.cpp` (random_batching_rule,
unary_pointwise_random_batch_rule, random_inplace_batching_rule, check_randomness), registered at
FuncTorchVmapMode, a key in the thread-local included set while a vmap runs
(dynamic_layer.py). Every operator native_functions.yaml tags `nondeterministic_seeded` gets
the rule; the others fall through. A composite random op (dropout) decomposes into ones that
have it.

"different" draws one sample per batch element: a factory gets the batch size prepended, a
`*_like` or in-place op runs on the batch-front value (an unbatched input expanded to the batch
size first). "same" draws once and shares it: the op runs as it is.
"""

from __future__ import annotations

from typing import Any

from tensortrace.aten.dispatcher import FALLTHROUGH, KernelFunction, OperatorHandle
from tensortrace.aten.functorch.batch_rules_helper import (
    ensure_has_bdim,
    moveBatchDimToFront,
    unwrap,
)
from tensortrace.aten.functorch.batched_tensor_impl import makeBatched
from tensortrace.aten.functorch.dynamic_layer import VmapInterpreter, maybeCurrentDynamicLayer
from tensortrace.aten.generated import operators as ops
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.dispatch_key import DispatchKey
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.local_dispatch_key_set import ExcludeDispatchKeyGuard
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/functorch/BatchRulesRandomness.cpp"


def check_randomness(randomness: str, any_tensor_batched: bool = False) -> None:
    TORCH_CHECK(
        randomness != "error",
        "vmap: called random operation while in randomness error mode. Please either use the "
        "'same' or 'different' randomness flags on vmap or perform the randomness operation out "
        "of vmap",
    )
    TORCH_CHECK(
        not (randomness == "same" and any_tensor_batched),
        "Vmap does not currently support same randomness with a batched tensor input. ",
        "Please file an issue with functorch",
    )


def _tensor_args(op: OperatorHandle, args: tuple[Any, ...]) -> list[int]:
    return [i for i in op.tensor_indices if isinstance(args[i], Tensor)]


@traced("dispatch", "at::functorch::random_batching_rule", SOURCE)
def random_batching_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    layer = maybeCurrentDynamicLayer()
    assert layer is not None, "FuncTorchVmapMode is included only while a vmap runs"
    with ExcludeDispatchKeyGuard(DispatchKey.FuncTorchVmapMode):
        if op.schema.is_inplace:
            return _inplace(op, args, layer)
        tensors = _tensor_args(op, args)
        if not tensors:
            return _factory(op, args, layer)
        return _like(op, args, layer, tensors)


def _factory(op: OperatorHandle, args: tuple[Any, ...], layer: VmapInterpreter) -> Any:
    check_randomness(layer.randomness)
    if layer.randomness == "same":
        return op.call(*args)
    new_args = list(args)
    names = [a.name for a in op.schema.arguments]
    if "size" in names:
        i = names.index("size")
        new_args[i] = [layer.batch_size, *args[i]]
        return makeBatched(op.call(*new_args), 0, layer.level)
    # randperm(n): one permutation per sample
    samples = [op.call(*args) for _ in range(layer.batch_size)]
    return makeBatched(ops.stack.call(samples, 0), 0, layer.level)


def _like(
    op: OperatorHandle, args: tuple[Any, ...], layer: VmapInterpreter, tensors: list[int]
) -> Any:
    level = layer.level
    unwrapped = {i: unwrap(args[i], level) for i in tensors}
    any_batched = any(bdim is not None for _, bdim in unwrapped.values())
    if op.schema.name.endswith("_like") and any_batched and layer.randomness == "same":
        # "same" draws one sample of the logical shape, shared (unbatched) by the whole batch
        sample_args = list(args)
        for i, (value, bdim) in unwrapped.items():
            if bdim is not None:
                sample_args[i] = ops.select_int.call(value, bdim, 0)
        return op.call(*sample_args)
    check_randomness(layer.randomness, any_batched)
    if layer.randomness == "same":
        return op.call(*args)
    new_args = list(args)
    for i, (value, bdim) in unwrapped.items():
        new_args[i] = ensure_has_bdim(
            moveBatchDimToFront(value, bdim), bdim is not None, layer.batch_size
        )
    result = op.call(*new_args)
    if isinstance(result, tuple):
        return tuple(makeBatched(r, 0, level) for r in result)
    return makeBatched(result, 0, level)


def _inplace(op: OperatorHandle, args: tuple[Any, ...], layer: VmapInterpreter) -> Any:
    self = args[0]
    value, bdim = unwrap(self, layer.level)
    check_randomness(layer.randomness)
    TORCH_CHECK(
        not (layer.randomness == "different" and bdim is None),
        "vmap: Cannot ask for different inplace randomness on an unbatched tensor. This will "
        "appear like same randomness. ",
        "If this is necessary for your usage, please file an issue with functorch.",
    )
    if layer.randomness == "same" and bdim is not None:
        intermediate = ops.empty_like.call(
            ops.select_int.call(value, bdim, 0), None, None, None, None, None
        )
        op.call(intermediate, *args[1:])
        ops.copy_.call(self, intermediate, False)
        return self
    new_args = [value, *args[1:]]
    for i in op.tensor_indices[1:]:  # bernoulli_(p: Tensor): p's own batch dim
        if isinstance(args[i], Tensor):
            p_value, p_bdim = unwrap(args[i], layer.level)
            new_args[i] = p_value if p_bdim is None else ops.movedim_int.call(p_value, p_bdim, bdim)
    op.call(*new_args)
    return self


def _is_seeded(op: OperatorHandle) -> bool:
    tags = op.entry.get("tags", ())
    return "nondeterministic_seeded" in (tags if isinstance(tags, (list, tuple)) else (tags,))


def vmap_mode_kernel_for(op: OperatorHandle) -> KernelFunction:
    """The FuncTorchVmapMode kernel: the randomness rule for a random op, else fallthrough."""
    if (
        not _is_seeded(op)
        or op.schema.is_out
        or DispatchKey.CompositeImplicitAutograd in op.registered
    ):
        return FALLTHROUGH
    return KernelFunction(
        lambda ks, *args: random_batching_rule(op, args), "random_batching_rule", with_keyset=True
    )
