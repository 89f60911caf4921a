"""cauchy_, log_normal_ and geometric_: the in-place samplers of Distributions.cpp.

Mirrors `cauchy_`, `log_normal_` and `geometric_` in `aten/src/ATen/native/Distributions.cpp`
with the checks of `cauchy_impl_`, `log_normal_impl_` and `geometric_impl_` in
`aten/src/ATen/native/DistributionTemplates.h`: check the parameter, then run the stub over a
nullary TensorIterator of self (the CPU kernels are in native/cpu/distribution_inplace_kernels.py).
"""

from __future__ import annotations

from typing import Any

from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.distributions_sampling import _fmt_double
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIterator
from tensortrace.c10.exception import TORCH_CHECK

SOURCE = "aten/src/ATen/native/Distributions.cpp"
HEADER = "aten/src/ATen/native/UnaryOps.h"

cauchy_stub = DECLARE_DISPATCH("cauchy_stub", HEADER)
log_normal_stub = DECLARE_DISPATCH("log_normal_stub", HEADER)
geometric_stub = DECLARE_DISPATCH("geometric_stub", HEADER)


def _run(stub: Any, self: Tensor, *args: Any) -> Tensor:
    if self.numel() == 0:
        return self
    it = TensorIterator.borrowing_nullary_op(self)
    stub(it.device_type(), it, *args)
    return self


@native_function(SOURCE, name="cauchy_", legacy="at::native::cauchy_")
def cauchy_(self: Tensor, median: float = 0, sigma: float = 1, generator: Any = None) -> Tensor:
    TORCH_CHECK(sigma > 0.0, "cauchy_ expects sigma > 0.0, but found sigma=", _fmt_double(sigma))
    TORCH_CHECK(
        self.is_floating_point(),
        "Cauchy distribution is a continuous probability distribution. dtype must be a "
        "floating point but you specified ",
        self.scalar_type(),
    )
    return _run(cauchy_stub, self, float(median), float(sigma), generator)


@native_function(SOURCE, name="log_normal_", legacy="at::native::log_normal_")
def log_normal_(self: Tensor, mean: float = 1, std: float = 2, generator: Any = None) -> Tensor:
    TORCH_CHECK(std > 0.0, "log_normal_ expects std > 0.0, but found std=", _fmt_double(std))
    TORCH_CHECK(
        self.is_floating_point(),
        "log_normal_ is not implemented for type ",
        self.scalar_type(),
    )
    return _run(log_normal_stub, self, float(mean), float(std), generator)


@native_function(SOURCE, name="geometric_", legacy="at::native::geometric_")
def geometric_(self: Tensor, p: float, generator: Any = None) -> Tensor:
    TORCH_CHECK(0 < p < 1, "geometric_ expects p to be in (0, 1), but got p=", _fmt_double(p))
    return _run(geometric_stub, self, float(p), generator)
