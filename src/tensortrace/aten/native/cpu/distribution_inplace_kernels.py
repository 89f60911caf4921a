"""The CPU kernels of cauchy_, log_normal_ and geometric_: one draw per element, in loop order.

Mirrors `cauchy_kernel`, `log_normal_kernel` and `geometric_kernel` in
`aten/src/ATen/native/cpu/DistributionTemplates.h` (registered in DistributionKernels.cpp) and
their distributions in `aten/src/ATen/core/DistributionsHelper.h` /
`aten/src/ATen/core/TransformationHelper.h`, all in double:
cauchy: median + sigma * tan(pi * (u - 0.5)) (one fma), u = uniform_real<double>;
log_normal: exp(normal<double> * std + mean), the normal with the generator's cached sample;
geometric: ceil(log(u) / log1p(-p)). tan / exp / log / log1p are libm's (Python's math).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tensortrace.aten.native.cpu import distribution_templates
from tensortrace.aten.native.cpu.binary_ops_kernel import AT_DISPATCH_CHECK
from tensortrace.aten.native.cpu.distribution_casts import _cast_from_double
from tensortrace.aten.native.cpu.distribution_kernels import get_generator_or_default
from tensortrace.aten.native.cpu.distribution_templates import _libm
from tensortrace.aten.native.cpu.fma import fma_float64
from tensortrace.aten.native.cpu.loops import cpu_serial_kernel
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.native.distributions_inplace import (
    cauchy_stub,
    geometric_stub,
    log_normal_stub,
)
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.scalar_type import ScalarType, isFloatingType, numpy_dtype
from tensortrace.trace import traced

TEMPLATES = "aten/src/ATen/native/cpu/DistributionTemplates.h"


def _uniform_double(gen: Any, n: int) -> np.ndarray:
    return distribution_templates._uniform_real_double(gen.random_uint64(n), 0.0, 1.0)


@traced("kernel", "at::native::templates::cpu::cauchy_kernel", TEMPLATES, legacy="cauchy_kernel")
def cauchy_kernel(it: TensorIteratorBase, median: float, sigma: float, gen: Any) -> None:
    dtype = it.dtype()
    AT_DISPATCH_CHECK("cauchy_cpu", dtype, isFloatingType(dtype))
    generator = get_generator_or_default(gen)
    np_dtype = numpy_dtype(dtype)

    def fill(n: int) -> np.ndarray:
        with generator.mutex_:
            u = _uniform_double(generator, n)
        tangent = _libm(math.tan, math.pi * (u - 0.5))
        return _cast_from_double(fma_float64(tangent, sigma, median), np_dtype)

    cpu_serial_kernel(it, fill)


@traced(
    "kernel", "at::native::templates::cpu::log_normal_kernel", TEMPLATES, legacy="log_normal_kernel"
)
def log_normal_kernel(it: TensorIteratorBase, mean: float, std: float, gen: Any) -> None:
    dtype = it.dtype()
    AT_DISPATCH_CHECK("log_normal_cpu", dtype, isFloatingType(dtype))
    generator = get_generator_or_default(gen)
    np_dtype = numpy_dtype(dtype)

    def fill(n: int) -> np.ndarray:
        normals = np.empty(n, np.float64)
        # the serial normal_distribution<double> path: val * std + mean as one fma
        distribution_templates.normal_fill(generator, normals, mean, std, is_contiguous=False)
        return _cast_from_double(_libm(math.exp, normals), np_dtype)

    cpu_serial_kernel(it, fill)


@traced(
    "kernel", "at::native::templates::cpu::geometric_kernel", TEMPLATES, legacy="geometric_kernel"
)
def geometric_kernel(it: TensorIteratorBase, p: float, gen: Any) -> None:
    dtype = it.dtype()
    AT_DISPATCH_CHECK("geometric_cpu", dtype, dtype != ScalarType.Bool)
    generator = get_generator_or_default(gen)
    np_dtype = numpy_dtype(dtype)
    log1m_p = math.log1p(-p)

    def fill(n: int) -> np.ndarray:
        with generator.mutex_:
            u = _uniform_double(generator, n)
        with np.errstate(divide="ignore"):
            logs = np.array([math.log(v) if v > 0 else -math.inf for v in u.tolist()])
        values = np.ceil(logs / log1m_p)
        if np_dtype.kind == "f":
            return _cast_from_double(values, np_dtype)
        return values.astype(np.int64).astype(np_dtype)

    cpu_serial_kernel(it, fill)


REGISTER_DISPATCH(cauchy_stub, cauchy_kernel)
REGISTER_DISPATCH(log_normal_stub, log_normal_kernel)
REGISTER_DISPATCH(geometric_stub, geometric_kernel)
