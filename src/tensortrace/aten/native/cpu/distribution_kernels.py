"""uniform_kernel: draw from the CPU generator in loop order.

Mirrors `aten/src/ATen/native/cpu/DistributionKernels.cpp` and the CPU `uniform_kernel` of
`aten/src/ATen/native/cpu/DistributionTemplates.h`: lock the generator, then a serial kernel
that calls `uniform_real_distribution<scalar_t>(from, to)(generator)` once per element, in the
iterator's order. The draws themselves are in distribution_templates.py, bit for bit PyTorch's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensortrace.aten.cpu_generator_impl import CPUGeneratorImpl, getDefaultCPUGenerator
from tensortrace.aten.native.cpu import distribution_templates
from tensortrace.aten.native.cpu.loops import cpu_serial_kernel
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.native.distributions import uniform_stub
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.scalar_type import numpy_dtype
from tensortrace.trace import traced


def get_generator_or_default(gen: Any) -> CPUGeneratorImpl:
    return gen if gen is not None else getDefaultCPUGenerator()


@traced("kernel", "at::native::uniform_kernel",
        "aten/src/ATen/native/cpu/DistributionKernels.cpp", legacy="THTensor_(uniform)")
def uniform_kernel(it: TensorIteratorBase, from_: float, to: float, gen: Any) -> None:
    generator = get_generator_or_default(gen)
    dtype = numpy_dtype(it.dtype())

    def fill(n: int) -> np.ndarray:
        out = np.empty(n, dtype)
        distribution_templates.uniform_fill(generator, out, from_, to)
        return out

    cpu_serial_kernel(it, fill)


REGISTER_DISPATCH(uniform_stub, uniform_kernel)
