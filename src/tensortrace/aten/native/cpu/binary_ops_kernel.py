"""add_kernel: out = self + alpha * other, for every dtype.

Mirrors `aten/src/ATen/native/cpu/BinaryOpsKernel.cpp` and the ufunc codegen for add
(`build/aten/src/ATen/UfuncCPUKernel_add.cpp`): REGISTER_DISPATCH(add_stub, &add_kernel), an
AT_DISPATCH over the common dtype, and cpu_kernel_vec with a scalar and a Vectorized lambda.
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten.native.binary_ops import add_stub
from tensortrace.aten.native.cpu.loops import cpu_kernel, cpu_kernel_vec
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.scalar_ops import Scalar
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.scalar_type import ScalarType, numpy_dtype
from tensortrace.trace import traced


@traced("kernel", "at::native::add_kernel", "aten/src/ATen/native/cpu/BinaryOpsKernel.cpp",
        legacy="add_kernel")
def add_kernel(it: TensorIteratorBase, alpha_scalar: Scalar) -> None:
    dtype = it.common_dtype()
    if dtype == ScalarType.Bool:
        alpha_bool = bool(alpha_scalar)

        def bool_loop(out: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
            # bool + alpha * bool, converted back to bool: a or (alpha and b)
            np.logical_or(a, np.logical_and(b, alpha_bool), out=out)

        cpu_kernel(it, bool_loop)
        return

    alpha = numpy_dtype(dtype).type(alpha_scalar)  # alpha_scalar.to<scalar_t>()

    def loop(out: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
        if alpha == 1:
            np.add(a, b, out=out)
        else:
            np.add(a, np.multiply(b, alpha, dtype=out.dtype), out=out)

    cpu_kernel_vec(it, loop)


REGISTER_DISPATCH(add_stub, add_kernel)
