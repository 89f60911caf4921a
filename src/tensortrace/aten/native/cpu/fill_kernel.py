"""fill_kernel: write one value into every element of the iterator's output.

Mirrors `aten/src/ATen/native/cpu/FillKernel.cpp`: the Scalar is converted once to scalar_t
(`value_scalar.to<scalar_t>()`, with c10's overflow check) and a vectorized loop stores it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensortrace.aten.native.cpu.loops import cpu_kernel_vec
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.native.fill import fill_stub
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.scalar import checked_convert
from tensortrace.trace import traced


@traced(
    "kernel",
    "at::native::fill_kernel",
    "aten/src/ATen/native/cpu/FillKernel.cpp",
    legacy="THTensor_(fill)",
)
def fill_kernel(it: TensorIteratorBase, value_scalar: Any) -> None:
    value = checked_convert(value_scalar, it.dtype())

    def loop(out: np.ndarray) -> None:
        out[...] = value

    cpu_kernel_vec(it, loop)


REGISTER_DISPATCH(fill_stub, fill_kernel)
