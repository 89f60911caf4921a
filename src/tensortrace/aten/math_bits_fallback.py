"""The conjugate and negative bits: lazy views that resolve when a kernel needs their values.

Mirrors `aten/src/ATen/native/MathBitsFallback.h`, `ConjugateFallback.cpp` and
`NegateFallback.cpp`. `z.conj()` on a complex tensor is a view of the same memory with the
Conjugate key in its key set (Note [The conj bit]); `z.conj().imag` is a view with the Negative
key. An operator that does not know about the bit reaches the boxed fallback registered for that
key: it clones each tensor argument that carries the bit (clone's copy_ materialises the bit's
meaning), redispatches below the key, and for a mutated argument copies the result back.
Views, copy_, clone, resolve_conj / resolve_neg and the tensor utilities are fallthroughs:
they see the bit and keep it (a view of a conjugate is a conjugate view).

Note [The conj bit]
The memory of `z.conj()` holds z's values; only the Conjugate key says "read me conjugated".
copy_ compares the bits of its source and destination and conjugates (or negates) while it
copies, so clone(), resolve_conj() and printing see the conjugated values, and storage is shared
with z until then.
"""

from __future__ import annotations

from typing import Any

from tensortrace.aten import functions as at
from tensortrace.aten.dispatcher import FALLTHROUGH, KernelFunction, OperatorHandle, singleton
from tensortrace.aten.native.resize import resize_output
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.dispatch_key import DispatchKey, DispatchKeySet
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/MathBitsFallback.h"

# TORCH_VIEW_FNS and TENSOR_UTILITIES_AND_CONSTRUCTORS of ConjugateFallback.cpp, plus the ops it
# registers as fallthrough by name (views are recognised from their schema: Tensor(a) returns)
_FALLTHROUGH_NAMES = frozenset(
    {
        "copy_",
        "clone",
        "conj",
        "_conj",
        "resolve_conj",
        "resolve_neg",
        "_neg_view",
        "empty_like",
        "empty",
        "empty_strided",
        "zeros_like",
        "ones_like",
        "full_like",
        "rand_like",
        "randn_like",
        "new_empty",
        "new_empty_strided",
        "new_zeros",
        "new_ones",
        "new_full",
        "is_complex",
        "is_floating_point",
        "is_same_size",
        "is_signed",
        "size",
        "stride",
        "zero_",
        "resize_",
        "set_",
        "detach",
        "detach_",
        "lift_fresh",
        "numpy_T",
        "matrix_H",
        "mT",
        "mH",
        "adjoint",
        "alias",
        "view_as_real",
    }
)


def _is_fallthrough(op: OperatorHandle) -> bool:
    schema = op.schema
    return schema.name in _FALLTHROUGH_NAMES or (schema.is_view and not schema.is_inplace)


class MathOpFallback:
    """One bit's fallback (MathOpFallback in MathBitsFallback.h)."""

    def __init__(self, key: DispatchKey, op_name: str) -> None:
        self.key = key
        self.op_name = op_name
        self.below = (1 << key) - 1  # DispatchKeySet(FULL_AFTER, key)

    def is_bit_set(self, t: Any) -> bool:
        return isinstance(t, Tensor) and t.defined() and t.key_set().has(self.key)

    def kernel_for(self, op: OperatorHandle) -> KernelFunction:
        if _is_fallthrough(op):
            return FALLTHROUGH
        return KernelFunction(
            lambda ks, *args: self.fallback_impl(op, ks, args),
            f"{self.op_name}Fallback",
            with_keyset=True,
        )

    @traced(
        "dispatch",
        "at::native::MathOpFallback::fallback_impl",
        SOURCE,
        legacy="MathOpFallback::fallback_impl",
    )
    def fallback_impl(self, op: OperatorHandle, ks: DispatchKeySet, args: tuple[Any, ...]) -> Any:
        args_list = list(args)
        mutable: list[tuple[Tensor, Tensor]] = []
        schema = op.schema
        for i in op.tensor_indices:
            value = args_list[i]
            is_write = schema.arguments[i].type.is_write
            if isinstance(value, (list, tuple)):
                if any(self.is_bit_set(t) for t in value):
                    TORCH_CHECK(
                        not is_write,
                        self.op_name,
                        " fallback doesn't work for mutable TensorLists.",
                    )
                    args_list[i] = type(value)(
                        at.clone(t) if self.is_bit_set(t) else t for t in value
                    )
                continue
            if not self.is_bit_set(value):
                continue
            resolved = at.clone(value)
            if is_write:
                TORCH_CHECK(
                    not mutable,
                    self.op_name,
                    " fallback does not support operators with more than one mutable tensors with ",
                    self.op_name,
                    "bit set.",
                )
                mutable.append((value, resolved))
            args_list[i] = resolved
        result = op.redispatch(DispatchKeySet(ks.repr_ & self.below), *args_list)
        for mutable_input, cloned in mutable:
            # the op wrote into the clone: resize and copy back through the bit
            resize_output(mutable_input, cloned.sizes())
            mutable_input.copy_(cloned)
            if isinstance(result, Tensor) and result.is_same(cloned):
                result = mutable_input
        return result


CONJUGATE_FALLBACK = MathOpFallback(DispatchKey.Conjugate, "Conjugate")
NEGATIVE_FALLBACK = MathOpFallback(DispatchKey.Negative, "Negation")


def register_math_bit_fallbacks() -> None:
    """TORCH_LIBRARY_IMPL(_, Conjugate, m) { m.fallback(...) } and the Negative one."""
    dispatcher = singleton()
    for fallback in (CONJUGATE_FALLBACK, NEGATIVE_FALLBACK):
        dispatcher.registerFallback(fallback.key, fallback.kernel_for)
