"""result_type: the dtype an operation computes in, from its tensors and wrapped numbers.

Mirrors `aten/src/ATen/native/TypeProperties.cpp` (ResultTypeState, update_result_type_state,
result_type). Three tiers, highest first: tensors with dimensions, zero-dim tensors, and wrapped
Python numbers. A lower tier only decides the dtype when it is of a higher *category*
(bool < integral < floating < complex), so `int_tensor + 2.5` is float but
`float16_tensor + 2.5` stays float16, `uint8_tensor + 1000` stays uint8, and `float16_tensor + 1j`
is complex32 (a complex number keeps a floating tensor's value type).
"""

from __future__ import annotations

from tensortrace.aten.native.registry import native_function
from tensortrace.aten.scalar_ops import wrapped_scalar_tensor
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.default_dtype import get_default_complex_dtype, get_default_dtype
from tensortrace.c10.frozen import Record
from tensortrace.c10.scalar_type import (
    ScalarType,
    canCast,
    isComplexType,
    isFloatingType,
    promoteTypes,
    toComplexType,
)

U = ScalarType.Undefined


class ResultTypeState(Record):
    # Note [Records written out, not made by dataclass] in c10/frozen.py: a Record, as
    # @dataclass(slots=True) made it (eq, and so no hash)
    __slots__ = ("dimResult", "wrappedResult", "zeroResult")  # PyTorch's field names
    __match_args__ = ("dimResult", "wrappedResult", "zeroResult")

    def __init__(
        self,
        dimResult: ScalarType = U,  # noqa: N803 - the field's name
        wrappedResult: ScalarType = U,  # noqa: N803
        zeroResult: ScalarType = U,  # noqa: N803
    ) -> None:
        self.dimResult = dimResult
        self.wrappedResult = wrappedResult
        self.zeroResult = zeroResult


def promote_skip_undefined(a: ScalarType, b: ScalarType) -> ScalarType:
    if a == U:
        return b
    if b == U:
        return a
    return promoteTypes(a, b)


def combine_categories(higher: ScalarType, lower: ScalarType) -> ScalarType:
    if isComplexType(higher):
        return higher
    if isComplexType(lower):
        # a floating higher tier keeps its value type: half_tensor + 1j is complex32
        return toComplexType(higher) if isFloatingType(higher) else lower
    if isFloatingType(higher):
        return higher
    if higher == ScalarType.Bool or isFloatingType(lower):
        return promote_skip_undefined(higher, lower)
    if higher != U:
        return higher
    return lower


def update_result_type_state(tensor: Tensor, state: ResultTypeState) -> ResultTypeState:
    if not tensor.defined():
        return state
    impl = tensor.unsafeGetTensorImpl()
    current = impl.scalar_type()
    if impl.is_wrapped_number_:
        if isComplexType(current):
            current = get_default_complex_dtype()
        elif isFloatingType(current):
            current = get_default_dtype()
    new = ResultTypeState(state.dimResult, state.wrappedResult, state.zeroResult)
    if impl.dim() > 0:
        new.dimResult = promote_skip_undefined(state.dimResult, current)
    elif impl.is_wrapped_number_:
        new.wrappedResult = promote_skip_undefined(state.wrappedResult, current)
    else:
        new.zeroResult = promote_skip_undefined(state.zeroResult, current)
    return new


def result_type(state: ResultTypeState) -> ScalarType:
    return combine_categories(
        state.dimResult, combine_categories(state.zeroResult, state.wrappedResult)
    )


# ---- at::result_type, can_cast, promote_types (the torch.* functions) ---------------------------
def result_type_tensors(*tensors: Tensor) -> ScalarType:
    """at::native::result_type(ITensorListRef): fold every tensor into one state."""
    state = ResultTypeState()
    for t in tensors:
        state = update_result_type_state(t, state)
    return result_type(state)


Scalar = bool | int | float | complex


def _wrapped(s: Scalar) -> Tensor:
    return wrapped_scalar_tensor(s)


def result_type_tensor_scalar(tensor: Tensor, other: Scalar) -> ScalarType:
    """result_type(Tensor, Scalar): the number takes part as a wrapped number."""
    return result_type_tensors(tensor, _wrapped(other))


def result_type_scalars(a: Scalar, b: Scalar) -> ScalarType:
    return result_type_tensors(_wrapped(a), _wrapped(b))


def _register_natives() -> None:
    source = "aten/src/ATen/native/TypeProperties.cpp"

    @native_function(source, name="result_type")
    def result_type_native(
        tensor: Tensor | Scalar | None = None,
        other: Tensor | Scalar | None = None,
        scalar: Scalar | None = None,
        scalar1: Scalar | None = None,
        scalar2: Scalar | None = None,
    ) -> ScalarType:
        """result_type.Tensor / .Scalar / .Scalar_Tensor / .Scalar_Scalar."""
        operands = [o for o in (tensor, other, scalar, scalar1, scalar2) if o is not None]
        return result_type_tensors(*(o if isinstance(o, Tensor) else _wrapped(o) for o in operands))

    @native_function(source, name="can_cast")
    def can_cast(from_: ScalarType, to: ScalarType) -> bool:
        return canCast(from_, to)

    @native_function(source, name="promote_types")
    def promote_types(type1: ScalarType, type2: ScalarType) -> ScalarType:
        return promoteTypes(type1, type2)


_register_natives()
