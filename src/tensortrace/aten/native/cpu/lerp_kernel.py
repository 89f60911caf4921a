"""The CPU kernels of lerp, with a Scalar or a Tensor weight.

Mirrors `aten/src/ATen/native/cpu/LerpKernel.cpp` and `Lerp.h`: for |weight| < 0.5 the result is
self + weight * (end - self), else end - (end - self) * (1 - weight), so that weight 1 gives
`end` exactly. The Vectorized path computes each with one fused multiply-add (vec::fmadd,
vec::fnmadd), rounded once: here the product and sum are taken in double and rounded to the
tensor's type once, which is the same for float32.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensortrace.aten.native.cpu.binary_ops_kernel import AT_DISPATCH_CHECK
from tensortrace.aten.native.cpu.loops import cpu_kernel_vec
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.native.lerp import lerp_kernel_scalar_weight, lerp_kernel_tensor_weight
from tensortrace.aten.opmath_type import to_opmath
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.scalar_type import ScalarType, isFloatingType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/cpu/LerpKernel.cpp"


@traced("kernel", "at::native::(anonymous)::lerp_scalar_kernel", SOURCE)
def lerp_scalar_kernel(it: TensorIteratorBase, weight: Any) -> None:
    dtype = it.common_dtype()
    AT_DISPATCH_CHECK(
        "lerp_kernel_scalar",
        dtype,
        isFloatingType(dtype) or dtype in (ScalarType.ComplexFloat, ScalarType.ComplexDouble),
    )
    complex_ = dtype in (ScalarType.ComplexFloat, ScalarType.ComplexDouble)
    w = complex(weight) if complex_ else float(weight)

    def loop(out: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
        self_, end = to_opmath(a, b)
        op = self_.dtype.type
        if complex_:  # c10::complex arithmetic: no fused multiply-add to emulate
            wc = op(w)
            diff_c = end - self_
            out[...] = self_ + wc * diff_c if abs(w) < 0.5 else end - diff_c * (op(1) - wc)
            return
        wt = op(w)
        diff = end - self_  # rounded in opmath, as the Vectorized subtraction is
        wide = np.float64 if op is not np.float64 else np.longdouble
        if abs(w) < 0.5:
            value = wt.astype(wide) * diff.astype(wide) + self_.astype(wide)
        else:
            value = end.astype(wide) - diff.astype(wide) * (op(1) - wt).astype(wide)
        out[...] = value.astype(out.dtype)

    cpu_kernel_vec(it, loop)


@traced("kernel", "at::native::(anonymous)::lerp_tensor_kernel", SOURCE)
def lerp_tensor_kernel(it: TensorIteratorBase) -> None:
    """The same two formulas as lerp_scalar_kernel, chosen per element by |weight| < 0.5."""
    dtype = it.common_dtype()
    AT_DISPATCH_CHECK(
        "lerp_kernel_tensor",
        dtype,
        isFloatingType(dtype) or dtype in (ScalarType.ComplexFloat, ScalarType.ComplexDouble),
    )
    complex_ = dtype in (ScalarType.ComplexFloat, ScalarType.ComplexDouble)

    def loop(out: np.ndarray, a: np.ndarray, b: np.ndarray, w: np.ndarray) -> None:
        self_, end, wt = to_opmath(a, b, w)
        op = self_.dtype.type
        diff = end - self_
        small = np.abs(wt) < 0.5
        if complex_:
            out[...] = np.where(small, self_ + wt * diff, end - diff * (op(1) - wt))
            return
        wide = np.float64 if op is not np.float64 else np.longdouble
        low = wt.astype(wide) * diff.astype(wide) + self_.astype(wide)
        high = end.astype(wide) - diff.astype(wide) * (op(1) - wt).astype(wide)
        out[...] = np.where(small, low, high).astype(out.dtype)

    cpu_kernel_vec(it, loop)


REGISTER_DISPATCH(lerp_kernel_scalar_weight, lerp_scalar_kernel)
REGISTER_DISPATCH(lerp_kernel_tensor_weight, lerp_tensor_kernel)
