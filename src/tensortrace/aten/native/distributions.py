"""uniform_: fill a tensor in place with draws from [from, to).

Mirrors `aten/src/ATen/native/Distributions.cpp` and the bounds checks of `uniform_impl_` in
`aten/src/ATen/native/DistributionTemplates.h`. In 2019 this was the legacy TH kernel
`_th_uniform_` (THTensor_(uniform)); today it is a TensorIterator over the output and
`uniform_stub`, which jumps to the CPU kernel in native/cpu/distribution_kernels.py.
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIterator
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar_type import TypeMeta, isFloatingType

SOURCE = "aten/src/ATen/native/Distributions.cpp"

uniform_stub = DECLARE_DISPATCH("uniform_stub", "aten/src/ATen/native/UnaryOps.h")


def _finfo(meta: TypeMeta) -> tuple[float, float]:
    info = np.finfo(meta.numpy)
    return float(info.min), float(info.max)


@native_function(SOURCE, name="uniform_", legacy="legacy::cpu::_th_uniform_")
def uniform_(self: Tensor, from_: float = 0, to: float = 1, generator: object = None) -> Tensor:
    """uniform_impl_: check the range for the dtype, then run uniform_stub over the tensor."""
    dtype = self.scalar_type()
    TORCH_CHECK_NOT_IMPLEMENTED(isFloatingType(dtype),
                                f'"check_uniform_bounds" not implemented for \'{dtype}\'')
    lo, hi = _finfo(self.dtype())
    for value, name in ((from_, "from"), (to, "to")):
        TORCH_CHECK(lo <= value <= hi, name, " is out of bounds for ", dtype)
    TORCH_CHECK(from_ <= to, "uniform_ expects to return a [from, to) range, but found from=",
                from_, " > to=", to)
    TORCH_CHECK(to - from_ <= hi, "uniform_ expects to-from <= std::numeric_limits<", dtype,
                ">::max(), but found to=", to, " and from=", from_,
                " which result in to-from to exceed the limit")
    if self.numel() == 0:
        return self
    it = TensorIterator.borrowing_nullary_op(self)
    uniform_stub(it.device_type(), it, float(from_), float(to), generator)
    return self
