"""The LAPACK / BLAS calls behind linalg.cholesky (potrf), the triangular solves (trsm) of
linalg.solve_triangular / triangular_solve / cholesky_solve (potrs), and lu_unpack's pivots.

Mirrors `aten/src/ATen/native/BatchLinearAlgebraKernel.cpp` (apply_cholesky,
apply_triangular_solve) and `aten/src/ATen/native/cpu/LinearAlgebraKernel.cpp`'s
unpack_pivots_cpu_kernel. NumPy exposes neither potrf's `info` (the order of the first leading
minor that is not positive-definite, which torch's error reports) nor trsm, so both are written
here as LAPACK's unblocked algorithms (potf2, and the row-by-row substitutions of
batch_linear_algebra_kernel.py), vectorized over the batch.
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten.native.batch_linear_algebra_lu import (
    cholesky_inverse_stub,
    cholesky_stub,
    triangular_solve_stub,
    unpack_pivots_stub,
)
from tensortrace.aten.native.cpu.batch_linear_algebra_kernel import (
    _check_lapack_type,
    _lower_solve,
    _upper_solve,
)
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.tensor_body import Tensor
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/BatchLinearAlgebraKernel.cpp"


def _potf2_lower(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The lower Cholesky factor of each matrix (only its lower triangle read), and info."""
    n = a.shape[-1]
    batch = a.shape[:-2]
    low = np.tril(a).reshape(-1, n, n).copy()
    info = np.zeros(low.shape[0], dtype=np.int32)
    with np.errstate(all="ignore"):
        for j in range(n):
            ok = info == 0  # potf2 stops at a failed minor: that matrix is left as it was
            row = low[:, j, :j]
            ajj = low[:, j, j].real - np.einsum("bk,bk->b", row, row.conj()).real
            bad = ok & ~(ajj > 0)  # a NaN is not positive-definite either
            info[bad] = j + 1
            low[bad, j, j] = ajj[bad]  # the failed diagonal element, not its square root
            go = ok & ~bad
            ajj = np.sqrt(ajj[go])
            low[go, j, j] = ajj
            if j + 1 < n:
                sub = low[go]
                below = sub[:, j + 1 :, j] - np.einsum(
                    "bik,bk->bi", sub[:, j + 1 :, :j], sub[:, j, :j].conj()
                )
                sub[:, j + 1 :, j] = below / ajj[:, None]
                low[go] = sub
    return low.reshape(*batch, n, n), info.reshape(batch)


@traced(
    "kernel",
    "at::native::(anonymous)::apply_cholesky (potrf)",
    SOURCE,
    legacy="lapackCholesky",
)
def cholesky_kernel(input: Tensor, info: Tensor, upper: bool) -> None:
    """In place on `input` (holding tril(A), or triu(A) for upper): L with A = L L^H, or U with
    A = U^H U. A failed matrix keeps what potrf left; info names the failing minor."""
    _check_lapack_type("cholesky_cpu", input)
    a = input.numpy_view()
    if upper:  # U = L^H, L the lower factor of the matrix whose lower triangle is triu(A)^H
        low, inf = _potf2_lower(a.conj().swapaxes(-1, -2))
        a[...] = low.conj().swapaxes(-1, -2)
    else:
        low, inf = _potf2_lower(a)
        a[...] = low
    info.numpy_view()[...] = inf


def trsm(
    a: np.ndarray, b: np.ndarray, left: bool, upper: bool, trans: str, unit: bool
) -> np.ndarray:
    """op(A) X = B (left) or X op(A) = B, A triangular; op = N, T or C (trsm's transa)."""
    if trans != "N":
        a = a.swapaxes(-1, -2)
        if trans == "C":
            a = a.conj()
        upper = not upper
    if not left:  # X A = B is A^T X^T = B^T
        return trsm(a, b.swapaxes(-1, -2), True, upper, "T", unit).swapaxes(-1, -2)
    with np.errstate(all="ignore"):
        return _upper_solve(a, b, unit) if upper else _lower_solve(a, b, unit)


@traced(
    "kernel",
    "at::native::(anonymous)::apply_triangular_solve (trsm)",
    SOURCE,
    legacy="blasTriangularSolve",
)
def triangular_solve_kernel(
    A: Tensor, B: Tensor, left: bool, upper: bool, transpose: str, unitriangular: bool
) -> None:
    """B <- op(A)^-1 B (left) or B op(A)^-1, in place; A and B of the same batch shape."""
    _check_lapack_type("triangular_solve_cpu", A)
    a, b = A.numpy_view(), B.numpy_view()
    b[...] = trsm(a, b.astype(a.dtype), left, upper, transpose, unitriangular)


@traced(
    "kernel",
    "at::native::(anonymous)::unpack_pivots_cpu_kernel",
    "aten/src/ATen/native/cpu/LinearAlgebraKernel.cpp",
)
def unpack_pivots_kernel(perm: Tensor, pivots: Tensor, dim_size: int) -> None:
    """perm (the identity, batched) <- the permutation the 1-based row swaps of `pivots` make."""
    p = perm.numpy_view()
    piv = pivots.numpy_view().reshape(-1, pivots.size(-1)) if pivots.dim() else pivots.numpy_view()
    flat = p.reshape(-1, p.shape[-1])
    rows = np.arange(flat.shape[0])
    for i in range(dim_size):
        j = piv[:, i].astype(np.int64) - 1
        at_i = flat[:, i].copy()
        flat[:, i] = flat[rows, j]
        flat[rows, j] = at_i
    p[...] = flat.reshape(p.shape)


@traced(
    "kernel",
    "at::native::(anonymous)::apply_cholesky_inverse (potri)",
    SOURCE,
    legacy="lapackCholeskyInverse",
)
def cholesky_inverse_kernel(input: Tensor, infos: Tensor, upper: bool) -> Tensor:
    """In place: the factor's triangle -> the inverse of the matrix it factors; info is the
    first zero on the factor's diagonal (potri's singular case)."""
    _check_lapack_type("cholesky_inverse_out_cpu", input)
    a = input.numpy_view()
    n = a.shape[-1]
    factor = np.triu(a) if upper else np.tril(a)
    diag = np.diagonal(factor, axis1=-2, axis2=-1).reshape(-1, n)
    zero = diag == 0
    info = np.where(zero.any(axis=1), zero.argmax(axis=1) + 1, 0).astype(np.int32)
    eye = np.broadcast_to(np.eye(n, dtype=a.dtype), a.shape)
    with np.errstate(all="ignore"):
        inv = trsm(factor, eye, True, upper, "N", False)  # L^-1 (U^-1)
        # (L L^H)^-1 = L^-H L^-1, (U^H U)^-1 = U^-1 U^-H
        a[...] = inv @ inv.conj().swapaxes(-1, -2) if upper else inv.conj().swapaxes(-1, -2) @ inv
    infos.numpy_view()[: info.size] = info
    return input


REGISTER_DISPATCH(cholesky_stub, cholesky_kernel)
REGISTER_DISPATCH(cholesky_inverse_stub, cholesky_inverse_kernel)
REGISTER_DISPATCH(triangular_solve_stub, triangular_solve_kernel)
REGISTER_DISPATCH(unpack_pivots_stub, unpack_pivots_kernel)
