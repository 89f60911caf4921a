"""The CPU kernels of bernoulli_ (tensor p and scalar p): one uniform draw per element.

Mirrors `bernoulli_kernel` in `aten/src/ATen/native/cpu/DistributionTemplates.h` and
`bernoulli_tensor_kernel` / `bernoulli_scalar_kernel` in
`aten/src/ATen/native/cpu/DistributionKernels.cpp`. With a tensor p, the serial loop walks
(self, p expanded to self) in the iterator's order and draws, per element,
`at::bernoulli_distribution<float>(p)` (24 bits of one random()) or, for a double p,
`<double>` (53 bits of one random64()); the element is `uniform < p`. With a scalar p, the
kernel is the same serial loop with `at::bernoulli_distribution<double>(p)` (torch 2.13's CPU
wheels draw two 32-bit words per element here, checked against torch: the MKL VSL path of older
releases is gone).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensortrace.aten.cpu_generator_impl import getDefaultCPUGenerator
from tensortrace.aten.native.cpu.distribution_templates import (
    _uniform_real_double,
    _uniform_real_float,
)
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.native.distributions_sampling import (
    bernoulli_scalar_stub,
    bernoulli_tensor_stub,
    exponential_stub,
    multinomial_with_replacement_stub,
)
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIterator, TensorIteratorConfig
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar_type import ScalarType, isFloatingType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/cpu/DistributionKernels.cpp"
TEMPLATES = "aten/src/ATen/native/cpu/DistributionTemplates.h"


def get_generator_or_default(gen: Any) -> Any:
    """get_generator_or_default<CPUGeneratorImpl>(gen, getDefaultCPUGenerator()): by this name
    so that the CUDA kernels made from these draw from the CUDA generator (Note [CUDA kernels
    that run the CPU kernel's code] in cuda/kernels.py)."""
    return gen if gen is not None else getDefaultCPUGenerator()


def _check_p(p: np.ndarray) -> None:
    # bernoulli_distribution's constructor: TORCH_CHECK_IF_NOT_ON_CUDA(p_in >= 0 && p_in <= 1)
    TORCH_CHECK(
        bool(np.all((p >= 0) & (p <= 1))),
        "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
        "message be improved?  If so, please report an enhancement request to "
        "PyTorch.)",
    )


@traced(
    "kernel",
    "at::native::templates::cpu::bernoulli_kernel",
    TEMPLATES,
    legacy="THTensor_(bernoulli_Tensor)",
)
def bernoulli_tensor_kernel(self: Tensor, p_: Tensor, gen: Any) -> None:
    generator = get_generator_or_default(gen)
    p = p_.expand(list(self.sizes()))  # expand_inplace(self, p_cpu)
    it = (
        TensorIteratorConfig()
        .add_output(self)
        .add_const_input(p)
        .check_all_same_dtype(False)
        .build()
    )
    p_type = p.scalar_type()
    TORCH_CHECK_NOT_IMPLEMENTED(
        isFloatingType(p_type), f"\"bernoulli_tensor_cpu_p_\" not implemented for '{p_type}'"
    )
    if it.numel() == 0:
        return
    out = it.operand_array(0)
    p_values = np.ascontiguousarray(it.operand_array(1)).reshape(-1)
    n = p_values.size
    with generator.mutex_:
        if p_type == ScalarType.Double:
            u = _uniform_real_double(generator.random_uint64(n), 0.0, 1.0)
            probs = p_values
        else:
            u = _uniform_real_float(generator.random_uint32(n), np.float32(0), np.float32(1))
            probs = p_values.astype(np.float32)
    _check_p(probs)
    out[...] = (u < probs).reshape(out.shape)
    it.cast_outputs()


@traced(
    "kernel",
    "at::native::(anonymous namespace)::bernoulli_scalar_kernel",
    SOURCE,
    legacy="THTensor_(bernoulli)",
)
def bernoulli_scalar_kernel(self: Tensor, p: float, gen: Any) -> None:
    """bernoulli_scalar_kernel_default: one bernoulli_distribution<double>(p) per element."""
    generator = get_generator_or_default(gen)
    if self.numel() == 0:
        return
    it = TensorIterator.borrowing_nullary_op(self)
    out = it.operand_array(0)
    with generator.mutex_:
        u = _uniform_real_double(generator.random_uint64(out.size), 0.0, 1.0)
    out[...] = (u < p).reshape(out.shape)
    it.cast_outputs()


@traced(
    "kernel",
    "at::native::templates::cpu::exponential_kernel",
    TEMPLATES,
    legacy="THTensor_(exponential)",
)
def exponential_kernel(it: Any, lambd: float, gen: Any) -> None:
    """exponential_distribution<double>(lambda): -1 / lambda * log1p(-u), u from random64()
    (torch 2.13's CPU wheels run this default kernel, checked against torch)."""
    dtype = it.dtype()
    TORCH_CHECK(
        isFloatingType(dtype),
        "Exponential distribution is a continuous probability "
        "distribution. dtype must be a floating point but you specified ",
        dtype,
    )
    generator = get_generator_or_default(gen)
    out = it.operand_array(0)
    with generator.mutex_:
        u = _uniform_real_double(generator.random_uint64(out.size), 0.0, 1.0)
    values = (-1.0 / lambd) * np.log1p(-u)
    out[...] = values.reshape(out.shape)
    it.cast_outputs()


@traced(
    "kernel",
    "at::native::(anonymous)::multinomial_with_replacement_kernel_impl",
    "aten/src/ATen/native/cpu/MultinomialKernel.cpp",
    legacy="THTensor_(multinomial)",
)
def multinomial_with_replacement_kernel(
    result: Tensor, self: Tensor, n_sample: int, gen: Any
) -> None:
    """Per row: the running sum in scalar_t, normalised, last bucket forced to 1; per sample a
    uniform double (random64) and the binary search for the first bucket >= it."""
    generator = get_generator_or_default(gen)
    probs = self.numpy_view()
    rows = probs.reshape(1, -1) if probs.ndim == 1 else probs
    rows = rows.astype(np.float32) if rows.dtype.itemsize == 2 else rows  # opmath for 16-bit
    out = result.numpy_view().reshape(rows.shape[0], n_sample)
    with generator.mutex_:
        for i, row in enumerate(rows):
            TORCH_CHECK(
                bool(np.all(row >= 0)),
                "invalid multinomial distribution (encountering probability entry < 0)",
            )
            TORCH_CHECK(
                bool(np.all(np.isfinite(row))),
                "invalid multinomial distribution "
                "(encountering probability entry = infinity or NaN)",
            )
            cum = np.cumsum(row, dtype=row.dtype)  # sequential, in scalar_t, as the C++ loop
            total = cum[-1]
            TORCH_CHECK(total > 0, "invalid multinomial distribution (sum of probabilities <= 0)")
            cum = cum / total
            cum[-1] = 1
            u = _uniform_real_double(generator.random_uint64(n_sample), 0.0, 1.0)
            out[i] = np.searchsorted(cum.astype(np.float64), u, side="left")


REGISTER_DISPATCH(exponential_stub, exponential_kernel)
REGISTER_DISPATCH(multinomial_with_replacement_stub, multinomial_with_replacement_kernel)
REGISTER_DISPATCH(bernoulli_tensor_stub, bernoulli_tensor_kernel)
REGISTER_DISPATCH(bernoulli_scalar_stub, bernoulli_scalar_kernel)
