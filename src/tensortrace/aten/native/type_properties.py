"""result_type: the dtype an operation computes in, from its tensors and wrapped numbers.

Mirrors `aten/src/ATen/native/TypeProperties.cpp` (ResultTypeState, update_result_type_state,
result_type). Three tiers, highest first: tensors with dimensions, zero-dim tensors, and wrapped
Python numbers. A lower tier only decides the dtype when it is of a higher *category*
(bool < integral < floating), so `int_tensor + 2.5` is float but `float16_tensor + 2.5` stays
float16, and `uint8_tensor + 1000` stays uint8.
"""

from __future__ import annotations

from dataclasses import dataclass

from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.default_dtype import get_default_dtype
from tensortrace.c10.scalar_type import ScalarType, isFloatingType, promoteTypes

U = ScalarType.Undefined


@dataclass(slots=True)
class ResultTypeState:
    dimResult: ScalarType = U  # noqa: N815 - PyTorch's field names
    wrappedResult: ScalarType = U  # noqa: N815
    zeroResult: ScalarType = U  # noqa: N815


def promote_skip_undefined(a: ScalarType, b: ScalarType) -> ScalarType:
    if a == U:
        return b
    if b == U:
        return a
    return promoteTypes(a, b)


def combine_categories(higher: ScalarType, lower: ScalarType) -> ScalarType:
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
    if impl.is_wrapped_number_ and isFloatingType(current):
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
    return combine_categories(state.dimResult,
                              combine_categories(state.zeroResult, state.wrappedResult))
