"""max_all_kernel_impl / min_all_kernel_impl: one value for the whole tensor.

Mirrors `aten/src/ATen/native/cpu/ReduceAllOpsKernel.cpp` (reduce_all_impl_vec): the input is
contiguous; at::parallel_reduce gives each thread a chunk of it, starting from the identity
(lower_bound / upper_bound), folds the threads' results, and output.fill_(result) stores it.
NaN propagates, as max_impl / min_impl do. A bool input takes the serial loop (|| or &&).
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten.fp_errors import IGNORE_ALL, NUMPY_ERROR_STATE
from tensortrace.aten.native.cpu.binary_ops_kernel import AT_DISPATCH_CHECK
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.native.reduce_all_ops import max_all_stub, min_all_stub
from tensortrace.aten.parallel import GRAIN_SIZE, parallel_reduce
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.scalar import numeric_limits
from tensortrace.c10.scalar_type import ScalarType, isComplexType, isFloatingType, numpy_dtype
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/cpu/ReduceAllOpsKernel.cpp"


def _bound(scalar_type: ScalarType, upper: bool) -> np.generic:
    """upper_bound<scalar_t>() / lower_bound<scalar_t>(): inf for floats, the limits otherwise."""
    dtype = numpy_dtype(scalar_type)
    if isFloatingType(scalar_type):
        return dtype.type(np.inf if upper else -np.inf)
    lowest, highest = numeric_limits(scalar_type)
    return dtype.type(highest if upper else lowest)


def _reduce_all_kernel(result: Tensor, input: Tensor, is_max: bool) -> None:
    AT_DISPATCH_CHECK(
        "max_all" if is_max else "min_all",
        input.scalar_type(),
        not isComplexType(input.scalar_type()),
    )
    values = input.numpy_view().reshape(-1)  # the input is contiguous: a flat view, no copy
    if input.scalar_type() == ScalarType.Bool:  # cpu_serial_kernel: result || a, result && a
        result.fill_(bool(values.any() if is_max else values.all()))
        return
    combine = np.maximum if is_max else np.minimum  # both propagate NaN, as max_impl does
    reduce_chunk = combine.reduce  # what np.max / np.min call, past their Python wrappers

    def chunk(start: int, end: int, ident: np.generic) -> np.generic:
        return combine(ident, reduce_chunk(values[start:end]))

    # with np.errstate(invalid="ignore"): NaN compares quietly (max and min raise no other error)
    token = NUMPY_ERROR_STATE.set(IGNORE_ALL)  # Note [The error state set directly]
    try:
        value = parallel_reduce(
            0,
            values.size,
            GRAIN_SIZE,
            _bound(input.scalar_type(), upper=not is_max),
            chunk,
            combine,
        )
    finally:
        NUMPY_ERROR_STATE.reset(token)
    result.fill_(value.item())


@traced(
    "kernel", "at::native::(anonymous)::max_all_kernel_impl", SOURCE, legacy="max_all_kernel_impl"
)
def max_all_kernel_impl(result: Tensor, input: Tensor) -> None:
    _reduce_all_kernel(result, input, True)


@traced(
    "kernel", "at::native::(anonymous)::min_all_kernel_impl", SOURCE, legacy="min_all_kernel_impl"
)
def min_all_kernel_impl(result: Tensor, input: Tensor) -> None:
    _reduce_all_kernel(result, input, False)


REGISTER_DISPATCH(max_all_stub, max_all_kernel_impl)
REGISTER_DISPATCH(min_all_stub, min_all_kernel_impl)
