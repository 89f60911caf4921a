"""The CPU kernels of special_xlog1py and special_zeta.

Mirrors `xlog1py_kernel` and `zeta_kernel` of `aten/src/ATen/native/cpu/BinaryOpsKernel.cpp`:
xlog1py is NaN where y is NaN, 0 where x is 0, else x * log1p(y); zeta is Math.h's Hurwitz zeta
(aten/native/math_cephes.py), evaluated in double and rounded to the dtype.
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten.native import math_cephes as cephes
from tensortrace.aten.native.cpu.binary_ops_kernel import AT_DISPATCH_CHECK
from tensortrace.aten.native.cpu.loops import cpu_kernel
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.native.special_binary_ops import STUBS
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.scalar_type import isFloatingType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/cpu/BinaryOpsKernel.cpp"


def _xlog1py(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        result = np.where(x == 0, x.dtype.type(0), x * np.log1p(y))
    return np.where(np.isnan(y), y.dtype.type(np.nan), result)


def _zeta(x: np.ndarray, q: np.ndarray) -> np.ndarray:
    xs, qs = np.broadcast_arrays(x.astype(np.float64), q.astype(np.float64))
    flat = [cephes.zeta(float(a), float(b)) for a, b in zip(xs.ravel(), qs.ravel())]
    with np.errstate(over="ignore"):
        return np.asarray(flat, dtype=np.float64).reshape(xs.shape).astype(x.dtype)


def xlog1py_kernel(it: TensorIteratorBase) -> None:
    dtype = it.common_dtype()
    AT_DISPATCH_CHECK("xlog1py_cpu", dtype, isFloatingType(dtype))

    def loop(out: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
        out[...] = _xlog1py(a, b)

    cpu_kernel(it, loop)


def zeta_kernel(it: TensorIteratorBase) -> None:
    dtype = it.common_dtype()
    AT_DISPATCH_CHECK("zeta_cpu", dtype, isFloatingType(dtype))

    def loop(out: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
        out[...] = _zeta(a, b)

    cpu_kernel(it, loop)


REGISTER_DISPATCH(
    STUBS["xlog1py"],
    traced("kernel", "at::native::xlog1py_kernel", SOURCE, legacy="xlog1py_kernel")(xlog1py_kernel),
)
REGISTER_DISPATCH(
    STUBS["zeta"],
    traced("kernel", "at::native::zeta_kernel", SOURCE, legacy="zeta_kernel")(zeta_kernel),
)
