"""The LAPACK calls behind linalg.inv / solve (getrf + getrs), qr (geqrf + orgqr), eigh (syevd)
and svd (gesdd).

Mirrors `aten/src/ATen/native/BatchLinearAlgebraKernel.cpp` (apply_lu_factor, apply_lu_solve,
apply_geqrf / apply_orgqr, apply_lapack_eigh, apply_svd), with NumPy in place of the LAPACK
torch links. np.linalg.qr, eigh / eigvalsh and svd call the same LAPACK routines as torch's CPU
kernels (geqrf + orgqr, syevd, gesdd), but always in double precision (NumPy's "lite" linalg
casts float32 / complex64 up and the results back down), where torch calls sgesdd & co. on
float32: float32 results agree with torch's to float32 rounding, not bit for bit, and the signs
of the factors usually agree (Note [Signs of Q, eigenvectors and singular vectors]).

NumPy exposes no getrf: it raises on a singular matrix without LAPACK's `info`, the index of the
first zero pivot that torch's error message reports. So the LU factorization here is dgetf2's
algorithm (partial pivoting by the largest |a| (|re| + |im| for complex, as i?amax), row swaps,
scaling and a rank-1 update per column), vectorized over the batch; getrs is the permutation and
two triangular substitutions. A singular matrix gives info > 0 and infs / NaNs, as LAPACK does.

Note [Signs of Q, eigenvectors and singular vectors]
The factors are unique only up to the sign (the phase, for complex) of each column of Q, of each
eigenvector and of each pair of singular vectors. Both torch and NumPy take them from LAPACK
unchanged, so for the same routine and precision they agree; a different LAPACK build (MKL,
OpenBLAS, Accelerate) may flip a column where two choices are close. The tests compare the
factors of well-conditioned inputs and, where a sign could flip, the products (U S Vh, Q R).
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten.native.batch_linear_algebra import (
    geqrf_orgqr_stub,
    linalg_eigh_stub,
    lu_factor_ex_stub,
    lu_solve_stub,
    svd_uv_stub,
)
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar_type import ScalarType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/BatchLinearAlgebraKernel.cpp"
LAPACK_TYPES = (
    ScalarType.Float,
    ScalarType.Double,
    ScalarType.ComplexFloat,
    ScalarType.ComplexDouble,
)


def _check_lapack_type(name: str, t: Tensor) -> None:
    """AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES(name, ...)."""
    dtype = t.scalar_type()
    TORCH_CHECK_NOT_IMPLEMENTED(
        dtype in LAPACK_TYPES, '"', name, "\" not implemented for '", dtype, "'"
    )


# ---- getrf / getrs -------------------------------------------------------------------------------
def _getrf(a: np.ndarray, pivot: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """dgetf2 over a batch of m x n matrices: (LU, 1-based pivots of length min(m, n), info).
    Without `pivot` no row is swapped (the pivots are 1..k), as cuSOLVER's getrf without ipiv."""
    m, n = a.shape[-2], a.shape[-1]
    k = min(m, n)
    batch = a.shape[:-2]
    lu = np.array(a, copy=True).reshape(-1, m, n)
    b = lu.shape[0]
    piv = np.zeros((b, k), dtype=np.int32)
    info = np.zeros(b, dtype=np.int32)
    bi = np.arange(b)
    with np.errstate(all="ignore"):
        for j in range(k):
            if pivot:
                col = lu[:, j:, j]
                mag = np.abs(col.real) + np.abs(col.imag) if np.iscomplexobj(col) else np.abs(col)
                p = j + np.argmax(mag, axis=1)
            else:
                p = np.full(b, j)
            piv[:, j] = p + 1
            nz = lu[bi, p, j] != 0
            rows_j, rows_p = lu[bi, j, :].copy(), lu[bi, p, :].copy()
            lu[bi[nz], j, :] = rows_p[nz]
            lu[bi[nz], p[nz], :] = rows_j[nz]
            info[(~nz) & (info == 0)] = j + 1
            if j + 1 < m:
                lu[bi[nz], j + 1 :, j] = lu[bi[nz], j + 1 :, j] / lu[bi[nz], j, j][:, None]
                lu[:, j + 1 :, j + 1 :] -= lu[:, j + 1 :, j, None] * lu[:, j, None, j + 1 :]
    return lu.reshape(*batch, m, n), piv.reshape(*batch, k), info.reshape(batch)


def _lower_solve(t: np.ndarray, b: np.ndarray, unit: bool) -> np.ndarray:
    x = b.copy()
    for i in range(x.shape[-2]):
        if i:
            x[..., i, :] -= (t[..., i : i + 1, :i] @ x[..., :i, :])[..., 0, :]
        if not unit:
            x[..., i, :] /= t[..., i, i, None]
    return x


def _upper_solve(t: np.ndarray, b: np.ndarray, unit: bool) -> np.ndarray:
    x = b.copy()
    n = x.shape[-2]
    for i in range(n - 1, -1, -1):
        if i + 1 < n:
            x[..., i, :] -= (t[..., i : i + 1, i + 1 :] @ x[..., i + 1 :, :])[..., 0, :]
        if not unit:
            x[..., i, :] /= t[..., i, i, None]
    return x


def _permutation(piv: np.ndarray) -> np.ndarray:
    """The row order the swaps of `piv` (1-based, applied first to last) leave: P^T B = B[perm]."""
    n = piv.shape[-1]
    perm = np.broadcast_to(np.arange(n), piv.shape).copy()
    for j in range(n):
        p = piv[..., j : j + 1].astype(np.int64) - 1
        at_j = perm[..., j : j + 1].copy()
        perm[..., j : j + 1] = np.take_along_axis(perm, p, axis=-1)
        np.put_along_axis(perm, p, at_j, axis=-1)
    return perm


def _getrs(lu: np.ndarray, piv: np.ndarray, b: np.ndarray, adjoint: bool) -> np.ndarray:
    """X with M X = B (or M^H X = B), M = P L U factored by _getrf."""
    n = lu.shape[-1]
    lower = np.tril(lu, -1) + np.eye(n, dtype=lu.dtype)
    upper = np.triu(lu)
    perm = _permutation(piv)[..., None]
    with np.errstate(all="ignore"):
        if not adjoint:  # X = U^-1 L^-1 P^T B
            pb = np.take_along_axis(b, np.broadcast_to(perm, b.shape), axis=-2)
            return _upper_solve(upper, _lower_solve(lower, pb, True), False)
        # M^H = U^H L^H P^T: X = P L^-H U^-H B
        z = _upper_solve(
            lower.conj().swapaxes(-1, -2),
            _lower_solve(upper.conj().swapaxes(-1, -2), b, False),
            True,
        )
        inverse = np.argsort(perm, axis=-2)
        return np.take_along_axis(z, np.broadcast_to(inverse, z.shape), axis=-2)


@traced(
    "kernel",
    "at::native::(anonymous)::apply_lu_factor (getrf)",
    SOURCE,
    legacy="lapackLu",
)
def lu_factor_kernel(
    A: Tensor, LU: Tensor, pivots: Tensor, info: Tensor, compute_pivots: bool = True
) -> None:
    _check_lapack_type("lu_cpu", A)
    # lu_factor_kernel's check on the CPU; cuSOLVER (the emulated CUDA device) factors unpivoted
    TORCH_CHECK(
        compute_pivots or not A.device().is_cpu(),
        "linalg.lu_factor: LU without pivoting is not implemented on the CPU",
    )
    lu, piv, inf = _getrf(A.numpy_view(), compute_pivots)
    LU.numpy_view()[...] = lu
    pivots.numpy_view()[...] = piv
    info.numpy_view()[...] = inf


@traced(
    "kernel",
    "at::native::(anonymous)::apply_lu_solve (getrs)",
    SOURCE,
    legacy="lapackLuSolve",
)
def lu_solve_kernel(
    LU: Tensor, pivots: Tensor, B: Tensor, result: Tensor, left: bool, adjoint: bool
) -> None:
    lu, piv, b = LU.numpy_view(), pivots.numpy_view(), B.numpy_view()
    batch = np.broadcast_shapes(lu.shape[:-2], b.shape[:-2])
    n = lu.shape[-1]
    lu = np.broadcast_to(lu, (*batch, n, n))
    piv = np.broadcast_to(piv, (*batch, n))
    b = np.broadcast_to(b, (*batch, *b.shape[-2:])).astype(lu.dtype)
    if left:
        x = _getrs(lu, piv, b, adjoint)
    else:  # X A = B is A^H X^H = B^H
        x = _getrs(lu, piv, b.conj().swapaxes(-1, -2), not adjoint).conj().swapaxes(-1, -2)
    result.numpy_view()[...] = x


# ---- geqrf + orgqr, syevd, gesdd -----------------------------------------------------------------
@traced(
    "kernel",
    "at::native::(anonymous)::apply_geqrf_orgqr (geqrf, orgqr)",
    SOURCE,
    legacy="lapackGeqrf",
)
def qr_kernel(A: Tensor, Q: Tensor, R: Tensor, compute_q: bool, reduced: bool) -> None:
    _check_lapack_type("geqrf_cpu", A)
    a = A.numpy_view()
    if not compute_q:
        R.numpy_view()[...] = np.linalg.qr(a, mode="r")
        return
    q, r = np.linalg.qr(a, mode="reduced" if reduced else "complete")
    Q.numpy_view()[...] = q
    R.numpy_view()[...] = r


@traced(
    "kernel",
    "at::native::(anonymous)::apply_lapack_eigh (syevd)",
    SOURCE,
    legacy="lapackSyevd",
)
def eigh_kernel(
    A: Tensor, eigenvalues: Tensor, eigenvectors: Tensor, uplo: str, compute_v: bool
) -> None:
    _check_lapack_type("linalg_eigh_cpu", A)
    a = A.numpy_view()
    if a.size == 0:
        return
    if compute_v:
        w, v = np.linalg.eigh(a, UPLO=uplo)  # type: ignore[call-overload]
        eigenvectors.numpy_view()[...] = v
    else:
        w = np.linalg.eigvalsh(a, UPLO=uplo)  # type: ignore[call-overload]
    eigenvalues.numpy_view()[...] = w


def _svd_one(a: np.ndarray, full_matrices: bool, compute_uv: bool) -> tuple[np.ndarray, ...]:
    if compute_uv:
        u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
        return u, s, vh
    return (np.linalg.svd(a, compute_uv=False),)


@traced(
    "kernel",
    "at::native::(anonymous)::apply_svd (gesdd)",
    SOURCE,
    legacy="lapackSvd",
)
def svd_kernel(
    A: Tensor,
    full_matrices: bool,
    compute_uv: bool,
    U: Tensor,
    S: Tensor,
    Vh: Tensor,
    info: Tensor,
) -> None:
    _check_lapack_type("linalg_svd_cpu", A)
    a = A.numpy_view()
    # LAPACK 3.10+ gesdd returns info = -4 for a matrix with a NaN (its norm is NaN); one with
    # an inf but no NaN gives NaN factors and info = 0, as NumPy's does
    has_nan = np.isnan(a).any(axis=(-2, -1))
    infos = np.where(has_nan, -4, 0).astype(np.int32)
    if has_nan.any():
        info.numpy_view()[...] = infos
        return
    try:
        parts = _svd_one(a, full_matrices, compute_uv)
    except np.linalg.LinAlgError:  # gesdd did not converge: find the batch element
        flat = a.reshape(-1, *a.shape[-2:])
        for i in range(flat.shape[0]):
            try:
                _svd_one(flat[i], full_matrices, compute_uv)
            except np.linalg.LinAlgError:
                infos.reshape(-1)[i] = 1
        info.numpy_view()[...] = infos
        return
    info.numpy_view()[...] = infos
    if compute_uv:
        U.numpy_view()[...] = parts[0]
        S.numpy_view()[...] = parts[1]
        Vh.numpy_view()[...] = parts[2]
    else:
        S.numpy_view()[...] = parts[0]


REGISTER_DISPATCH(lu_factor_ex_stub, lu_factor_kernel)
REGISTER_DISPATCH(lu_solve_stub, lu_solve_kernel)
REGISTER_DISPATCH(geqrf_orgqr_stub, qr_kernel)
REGISTER_DISPATCH(linalg_eigh_stub, eigh_kernel)
REGISTER_DISPATCH(svd_uv_stub, svd_kernel)
