"""The CPU kernels of uniform_, normal_ and random_: draw from the CPU generator in loop order.

Mirrors `aten/src/ATen/native/cpu/DistributionKernels.cpp` and the CPU kernels of
`aten/src/ATen/native/cpu/DistributionTemplates.h`: lock the generator, then either a serial
kernel that draws once per element in the iterator's order, or (normal_ on a contiguous tensor
of 16 or more elements) `normal_fill`, which writes the tensor's memory in order, 16 at a time.
The draws themselves are in distribution_templates.py, bit for bit PyTorch's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensortrace.aten.cpu_generator_impl import CPUGeneratorImpl, getDefaultCPUGenerator
from tensortrace.aten.native.cpu import distribution_templates
from tensortrace.aten.native.cpu.loops import cpu_serial_kernel
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.native.distribution_templates import random_from_to_impl
from tensortrace.aten.native.distributions import (
    normal_stub,
    random_from_to_stub,
    random_stub,
    uniform_stub,
)
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIterator, TensorIteratorBase
from tensortrace.c10.exception import TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar_type import isFloatingType, numpy_dtype
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/cpu/DistributionKernels.cpp"


def get_generator_or_default(gen: Any) -> CPUGeneratorImpl:
    return gen if gen is not None else getDefaultCPUGenerator()


@traced("kernel", "at::native::uniform_kernel", SOURCE, legacy="THTensor_(uniform)")
def uniform_kernel(it: TensorIteratorBase, from_: float, to: float, gen: Any) -> None:
    generator = get_generator_or_default(gen)
    dtype = numpy_dtype(it.dtype())

    def fill(n: int) -> np.ndarray:
        out = np.empty(n, dtype)
        distribution_templates.uniform_fill(generator, out, from_, to)
        return out

    cpu_serial_kernel(it, fill)


@traced("kernel", "at::native::normal_kernel", SOURCE, legacy="THTensor_(normal)")
def normal_kernel(self: Tensor, mean: float, std: float, gen: Any) -> None:
    """numel >= 16 and contiguous: normal_fill over the memory; else a serial kernel."""
    st = self.scalar_type()
    TORCH_CHECK_NOT_IMPLEMENTED(
        isFloatingType(st), f"\"normal_kernel_cpu\" not implemented for '{st}'"
    )
    generator = get_generator_or_default(gen)
    if self.numel() >= 16 and self.is_contiguous():
        flat = self.numpy_view().reshape(-1)  # a view: contiguous memory, in order
        distribution_templates.normal_fill(generator, flat, mean, std)
        return
    it = TensorIterator.borrowing_nullary_op(self)
    dtype = numpy_dtype(st)

    def fill(n: int) -> np.ndarray:
        out = np.empty(n, dtype)
        distribution_templates.normal_fill(generator, out, mean, std, is_contiguous=False)
        return out

    cpu_serial_kernel(it, fill)


@traced("kernel", "at::native::random_kernel", SOURCE, legacy="THTensor_(random)")
def random_kernel(it: TensorIteratorBase, gen: Any) -> None:
    generator = get_generator_or_default(gen)
    dtype = numpy_dtype(it.dtype())

    def fill(n: int) -> np.ndarray:
        return distribution_templates.random_fill(generator, np.empty(n, dtype))

    cpu_serial_kernel(it, fill)


@traced("kernel", "at::native::random_from_to_kernel", SOURCE, legacy="THTensor_(clampedRandom)")
def random_from_to_kernel(
    self: Tensor, it: TensorIteratorBase | None, from_: int, to: int | None, gen: Any
) -> None:
    """random_from_to_impl's checks run even for an empty tensor; the draws in loop order."""
    generator = get_generator_or_default(gen)
    dtype = numpy_dtype(self.scalar_type())
    if it is None:  # no elements: only the bounds checks
        random_from_to_impl(generator, np.empty(0, dtype), from_, to)
        return

    def fill(n: int) -> np.ndarray:
        return random_from_to_impl(generator, np.empty(n, dtype), from_, to)

    cpu_serial_kernel(it, fill)


REGISTER_DISPATCH(uniform_stub, uniform_kernel)
REGISTER_DISPATCH(normal_stub, normal_kernel)
REGISTER_DISPATCH(random_stub, random_kernel)
REGISTER_DISPATCH(random_from_to_stub, random_from_to_kernel)
