"""The CPU BLAS calls: gemm, gemv, dot and the batched gemm, on NumPy arrays.

Mirrors `aten/src/ATen/native/CPUBlas.cpp` (at::native::cpublas::gemm / gemv / dot), which
calls MKL or OpenBLAS (sgemm, dgemm ...) for float types and a naive loop for integers. Here
NumPy's matmul is the BLAS call: it hands float matrices to the BLAS NumPy links (results may
differ from MKL's in the last bits) and multiplies integers exactly, wrapping on overflow as
the C++ loops do. The arrays are views of the operands' storage, so `c` is written in place.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/CPUBlas.cpp"


def _scaled(alpha: Any, product: np.ndarray, beta: Any, c: np.ndarray) -> np.ndarray:
    """alpha * product + beta * c, where beta == 0 ignores c (its NaNs do not propagate)."""
    out = product if alpha == 1 else product * np.asarray(alpha).astype(product.dtype)
    if beta != 0:  # c in the product's (accumulation) dtype: no copy when it already is
        out = out + c.astype(product.dtype, copy=False) * np.asarray(beta).astype(product.dtype)
    return out


def _product(a: np.ndarray, b: np.ndarray, out_dtype: np.dtype) -> np.ndarray:
    """a @ b; float16 and bfloat16 accumulate in float32 (their opmath type, as the reduced
    precision gemm does) and are rounded once, when the result is stored."""
    if out_dtype.itemsize == 2 and out_dtype.kind != "i" and out_dtype.kind != "u":
        return np.matmul(a.astype(np.float32), b.astype(np.float32))
    return np.matmul(a, b, dtype=out_dtype)


@traced("kernel", "at::native::cpublas::gemm", SOURCE, legacy="THBlas_gemm")
def gemm(alpha: Any, a: np.ndarray, b: np.ndarray, beta: Any, c: np.ndarray) -> None:
    """c = alpha * (a @ b) + beta * c for (m, k) @ (k, n) matrices (or batches of them)."""
    with np.errstate(all="ignore"):
        c[...] = _scaled(alpha, _product(a, b, c.dtype), beta, c)


@traced("kernel", "at::native::cpublas::gemv", SOURCE, legacy="THBlas_gemv")
def gemv(alpha: Any, a: np.ndarray, x: np.ndarray, beta: Any, y: np.ndarray) -> None:
    """y = alpha * (a @ x) + beta * y for an (m, n) matrix and an (n,) vector."""
    with np.errstate(all="ignore"):
        y[...] = _scaled(alpha, _product(a, x, y.dtype), beta, y)


@traced(
    "kernel", "at::native::dot_impl", "aten/src/ATen/native/BlasKernel.cpp", legacy="THBlas_dot"
)
def vdot_impl(x: np.ndarray, y: np.ndarray) -> Any:
    """cblas_?dotc: the first vector conjugated."""
    with np.errstate(all="ignore"):
        return np.vdot(x, y).item()


def dot_impl(x: np.ndarray, y: np.ndarray) -> Any:
    with np.errstate(all="ignore"):
        return np.dot(x, y).item()
