"""uniform_: fill a tensor in place with draws from [from, to).

Mirrors `aten/src/ATen/native/Distributions.cpp` and the bounds checks of `uniform_impl_` in
`aten/src/ATen/native/DistributionTemplates.h`. In 2019 this was the legacy TH kernel
`_th_uniform_` (THTensor_(uniform)); today it is a TensorIterator over the output and
`uniform_stub`, which jumps to the CPU kernel in native/cpu/distribution_kernels.py.
"""

from __future__ import annotations

import math

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor, null_deref
from tensortrace.aten.tensor_iterator import TensorIterator
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_NOT_IMPLEMENTED, torchCheckFail
from tensortrace.c10.scalar_type import ScalarType, TypeMeta, isComplexType, isFloatingType

SOURCE = "aten/src/ATen/native/Distributions.cpp"

# seed 000: CPUType::uniform_ -> legacy::cpu::_th_uniform_ (LegacyTHFunctionsCPU.cpp), which
# calls THTensor_(uniform): there was no uniform_stub in 2019
uniform_stub = DECLARE_DISPATCH(
    "uniform_stub",
    "aten/src/ATen/native/UnaryOps.h",
    legacy="_th_uniform_ (LegacyTHFunctionsCPU.cpp)",
)


_FINFO: dict[ScalarType, tuple[float, float]] = {}


def _finfo(meta: TypeMeta) -> tuple[float, float]:
    """std::numeric_limits' lowest and max, made once per dtype (np.finfo costs ~1 us a call)."""
    limits = _FINFO.get(meta.scalar_type)  # hot callers try _FINFO.get(scalar_type) first
    if limits is None:
        info = np.finfo(meta.numpy)
        limits = _FINFO[meta.scalar_type] = (float(info.min), float(info.max))
    return limits


@native_function(SOURCE, name="uniform_", legacy="legacy::cpu::_th_uniform_")
def uniform_(self: Tensor, from_: float = 0, to: float = 1, generator: object = None) -> Tensor:
    """uniform_impl_: check the range for the dtype, then run uniform_stub over the tensor.
    A complex tensor draws its real and imaginary parts as the float pairs of view_as_real."""
    impl = self.impl_.target_ or null_deref()  # Note [Direct reads on hot paths]
    dtype = impl.data_type_.scalar_type  # self.scalar_type()
    if isComplexType(dtype):  # self.is_complex()
        uniform_(at.view_as_real(self), from_, to, generator)
        return self
    if not isFloatingType(dtype):  # Note [TORCH_CHECK tests first]: the f-string only then
        TORCH_CHECK_NOT_IMPLEMENTED(
            False, f"\"check_uniform_bounds\" not implemented for '{dtype}'"
        )
    lo, hi = _FINFO.get(dtype) or _finfo(impl.data_type_)
    for value, name in ((from_, "from"), (to, "to")):
        if not lo <= value <= hi:
            torchCheckFail(name, " is out of bounds for ", dtype)
    if not from_ <= to:
        torchCheckFail(
            "uniform_ expects to return a [from, to) range, but found from=", from_, " > to=", to
        )
    if not to - from_ <= hi:
        torchCheckFail(
            "uniform_ expects to-from <= std::numeric_limits<",
            dtype,
            ">::max(), but found to=",
            to,
            " and from=",
            from_,
            " which result in to-from to exceed the limit",
        )
    if impl.numel_ == 0:  # self.numel()
        return self
    it = TensorIterator.borrowing_nullary_op(self)
    uniform_stub(it.device_type(), it, float(from_), float(to), generator)
    return self


normal_stub = DECLARE_DISPATCH("normal_stub", "aten/src/ATen/native/DistributionTemplates.h")
random_stub = DECLARE_DISPATCH("random_stub", "aten/src/ATen/native/DistributionTemplates.h")
random_from_to_stub = DECLARE_DISPATCH(
    "random_from_to_stub", "aten/src/ATen/native/DistributionTemplates.h"
)


def _fmt_double(value: float) -> str:
    """A double streamed into a C++ message (std::ostream's default: 6 significant digits)."""
    return f"{value:g}"


@native_function(SOURCE, name="normal_", legacy="legacy::cpu::_th_normal_")
def normal_(self: Tensor, mean: float = 0, std: float = 1, generator: object = None) -> Tensor:
    """normal_impl_: CHECK_NORMAL_STD, then normal_stub (see the kernel for its two paths)."""
    TORCH_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", _fmt_double(std))
    if self.is_complex():
        # each part of a complex normal has half the variance: std / sqrt(2) per float
        normal_stub(
            self.device().type_,
            at.view_as_real(self),
            float(mean),
            float(std) / math.sqrt(2),
            generator,
        )
        return self
    normal_stub(self.device().type_, self, float(mean), float(std), generator)
    return self


@native_function(SOURCE, name="random_", legacy="legacy::cpu::_th_random_")
def random_(
    self: Tensor, from_: int | None = None, to: int | None = None, generator: object = None
) -> Tensor:
    """random_(), random_(to) and random_(from, to) (random_.to is random_(0, to)).

    random_from_to_impl checks the bounds against the dtype and turns them into the kernel's
    (range, base); random_() draws each dtype's default range.
    """
    it = TensorIterator.borrowing_nullary_op(self) if self.numel() else None
    if from_ is None and to is None:
        if it is not None:
            random_stub(it.device_type(), it, generator)
        return self
    random_from_to_stub(self.device().type_, self, it, 0 if from_ is None else from_, to, generator)
    return self
