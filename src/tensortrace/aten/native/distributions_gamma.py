"""_standard_gamma, _sample_dirichlet, poisson, binomial and the reparameterized gradients
_standard_gamma_grad / _dirichlet_grad: the samplers behind Gamma, Beta, Dirichlet, Poisson
and Binomial.

Mirrors `_s_gamma_cpu`, `_s_dirichlet_cpu`, `_s_poisson_cpu`, `_s_binomial_cpu`,
`_standard_gamma_grad_cpu` and `_dirichlet_grad_cpu` in `aten/src/ATen/native/Distributions.cpp`:
a result of zeros like the input, a TensorIterator over (result, inputs), the generator's mutex
taken, and a serial loop that draws element by element in the iterator's order
(cpu_serial_kernel), so the draws come out in torch's order. The per-element algorithms are in
native/cpu/distribution_samplers.py. On the emulated CUDA device the same bodies run under the
CUDA names (Distributions.cu) and draw from the CPU generator: the emulated device has no
Philox engine of its own for these samplers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.cpu import dirichlet_grad as dirichlet_grad_impl
from tensortrace.aten.native.cpu import distribution_samplers as samplers
from tensortrace.aten.native.cpu.binary_ops_kernel import AT_DISPATCH_CHECK
from tensortrace.aten.native.cpu.distribution_kernels import get_generator_or_default
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorConfig
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_VALUE
from tensortrace.c10.scalar_type import ScalarType, isFloatingType

SOURCE = "aten/src/ATen/native/Distributions.cpp"
_FLOAT_DOUBLE = (ScalarType.Float, ScalarType.Double)


def _serial(
    ret: Tensor, inputs: tuple[Tensor, ...], fn: Callable[..., float], same_dtype: bool = True
) -> None:
    """cpu_serial_kernel over (ret, *inputs): fn per element, in the iterator's order."""
    config = TensorIteratorConfig().add_output(ret)
    for tensor in inputs:
        config.add_const_input(tensor)
    if not same_dtype:
        config.check_all_same_dtype(False)
    it = config.build()
    if it.numel() == 0:
        return
    out = it.operand_array(0)
    columns = [
        np.ascontiguousarray(it.operand_array(i + 1)).reshape(-1).tolist()
        for i in range(len(inputs))
    ]
    values = [fn(*args) for args in zip(*columns)]
    out[...] = np.asarray(values, dtype=np.float64).reshape(out.shape)
    it.cast_outputs()


def _flt_min(dtype: ScalarType) -> float:
    """std::numeric_limits<scalar_t>::min(): the smallest positive normal."""
    return float(np.finfo(np.float32 if dtype == ScalarType.Float else np.float64).tiny)


@native_function(SOURCE, name="_s_gamma_cpu", legacy="at::native::_s_gamma_cpu")
def _s_gamma_cpu(self: Tensor, generator: Any = None) -> Tensor:
    ret = at.zeros(list(self.sizes()), dtype=self.scalar_type(), device=self.device())
    dtype = ret.scalar_type()
    AT_DISPATCH_CHECK("gamma_cpu", dtype, dtype in _FLOAT_DOUBLE)
    gen = get_generator_or_default(generator)
    is_float = dtype == ScalarType.Float
    tiny = _flt_min(dtype)

    def one(alpha: float) -> float:
        sample = samplers.sample_gamma(alpha, gen, is_float)
        sample = float(np.float32(sample)) if is_float else sample  # (scalar_t) sample
        return max(tiny, sample)

    with gen.mutex_:
        _serial(ret, (self,), one)
    return ret


@native_function(SOURCE, name="_s_dirichlet_cpu", legacy="at::native::_s_dirichlet_cpu")
def _s_dirichlet_cpu(self: Tensor, generator: Any = None) -> Tensor:
    """Gamma draws in double (against underflow), normalized by their sum over the last dim,
    then clamped into [min, nexttoward(1, 0)] of scalar_t."""
    ret = at.zeros(list(self.sizes()), dtype=self.scalar_type(), device=self.device())
    dtype = ret.scalar_type()
    AT_DISPATCH_CHECK("dirichlet", dtype, dtype in _FLOAT_DOUBLE)
    gamma = at.zeros(list(self.sizes()), dtype=ScalarType.Double, device=self.device())
    gen = get_generator_or_default(generator)
    tiny = _flt_min(ScalarType.Double)
    with gen.mutex_:
        _serial(
            gamma,
            (self,),
            lambda alpha: max(tiny, samplers.sample_gamma(alpha, gen, False)),
            same_dtype=False,
        )
    gamma_sum = at.sum(gamma, [-1], True).expand(list(self.sizes()))
    np_dtype = np.float32 if dtype == ScalarType.Float else np.float64
    min_val = float(np.finfo(np_dtype).tiny)
    max_val = float(np.nextafter(np_dtype(1.0), np_dtype(0.0)))

    def normalize(gamma_val: float, gamma_sum_val: float) -> float:
        value = float(np_dtype(gamma_val / gamma_sum_val))
        return min(max_val, max(min_val, value))

    _serial(ret, (gamma, gamma_sum), normalize, same_dtype=False)
    return ret


@native_function(SOURCE, name="_s_poisson_cpu", legacy="at::native::_s_poisson_cpu")
def _s_poisson_cpu(self: Tensor, generator: Any = None) -> Tensor:
    ret = at.zeros(list(self.sizes()), dtype=self.scalar_type(), device=self.device())
    dtype = ret.scalar_type()
    AT_DISPATCH_CHECK("poisson_cpu", dtype, isFloatingType(dtype))
    gen = get_generator_or_default(generator)

    def one(lam: float) -> float:
        TORCH_CHECK(lam >= 0, "invalid Poisson rate, expected rate to be non-negative")
        return float(samplers.sample_poisson(lam, gen))

    with gen.mutex_:
        _serial(ret, (self,), one)
    return ret


@native_function(SOURCE, name="_s_binomial_cpu", legacy="at::native::_s_binomial_cpu")
def _s_binomial_cpu(count: Tensor, prob: Tensor, generator: Any = None) -> Tensor:
    for name, tensor in (("count", count), ("prob", prob)):
        TORCH_CHECK_VALUE(
            isFloatingType(tensor.scalar_type()),
            "binomial only supports floating-point dtypes for ",
            name,
            ", got: ",
            tensor.scalar_type(),
        )
    ret = at.zeros(list(count.sizes()), dtype=count.scalar_type(), device=count.device())
    dtype = ret.scalar_type()
    AT_DISPATCH_CHECK("binomial_cpu", dtype, dtype in _FLOAT_DOUBLE)
    gen = get_generator_or_default(generator)
    is_float = dtype == ScalarType.Float

    def one(count_val: float, prob_val: float) -> float:
        return samplers.sample_binomial(count_val, prob_val, gen, is_float)

    with gen.mutex_:
        _serial(ret, (count, prob), one)
    return ret


@native_function(
    SOURCE, name="_standard_gamma_grad_cpu", legacy="at::native::_standard_gamma_grad_cpu"
)
def _standard_gamma_grad_cpu(self: Tensor, output: Tensor) -> Tensor:
    ret = at.empty(list(self.sizes()), dtype=self.scalar_type(), device=self.device())
    dtype = self.scalar_type()
    AT_DISPATCH_CHECK("_standard_gamma_grad_cpu", dtype, dtype in _FLOAT_DOUBLE)
    _serial(ret, (self, output), samplers.standard_gamma_grad_one)
    return ret


@native_function(SOURCE, name="_dirichlet_grad_cpu", legacy="at::native::_dirichlet_grad_cpu")
def _dirichlet_grad_cpu(x: Tensor, alpha: Tensor, total: Tensor) -> Tensor:
    ret = at.empty(list(x.sizes()), dtype=x.scalar_type(), device=x.device())
    dtype = x.scalar_type()
    AT_DISPATCH_CHECK("_dirichlet_grad_cpu", dtype, dtype in _FLOAT_DOUBLE)
    _serial(ret, (x, alpha, total), dirichlet_grad_impl.dirichlet_grad_one)
    return ret
