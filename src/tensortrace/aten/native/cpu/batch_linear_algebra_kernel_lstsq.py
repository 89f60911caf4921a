"""The LAPACK least-squares drivers behind linalg.lstsq: gels, gelsy, gelsd and gelss.

Mirrors `aten/src/ATen/native/BatchLinearAlgebraKernel.cpp` (apply_lstsq and its per-driver
lapackLstsq calls). Each writes, per matrix, the solution into the first n rows of the
(max(m, n), nrhs) buffer that holds B and, when m > n, the components of B outside A's column
space into rows n:, whose squares the caller sums into the residuals. With NumPy in place of
LAPACK:
- gels: QR (m >= n) or LQ (m < n) without pivoting, for full-rank A; a zero U[i, i] is info = i,
  a zero matrix gives a zero solution, as dgels does;
- gelsd / gelss: the SVD, singular values below rcond * s_max dropped, the minimum-norm solution;
  rank and singular values are outputs;
- gelsy: the minimum-norm solution with the same cutoff; LAPACK's gelsy finds the rank from a
  QR with column pivoting and an incremental condition estimate, here from the singular values,
  which agrees except for a matrix whose rank is ambiguous at rcond.
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten.native.cpu.batch_linear_algebra_kernel import _check_lapack_type
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.native.linear_algebra_lstsq import lstsq_stub
from tensortrace.aten.tensor_body import Tensor
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/BatchLinearAlgebraKernel.cpp"


def _complement(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Q2^H B: B's components outside the column space of a full-rank tall A."""
    q, _ = np.linalg.qr(a, mode="complete")
    return q[:, a.shape[1] :].conj().T @ b


def _gels(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> int:
    m, n = a.shape
    if not np.any(a):
        out[...] = 0
        return 0
    if m >= n:
        q, r = np.linalg.qr(a)
        zero = np.nonzero(np.diagonal(r) == 0)[0]
        if zero.size:
            return int(zero[0]) + 1
        out[:n] = np.linalg.solve(r, q.conj().T @ b)
        if m > n:
            out[n:] = _complement(a, b)
        return 0
    q, r = np.linalg.qr(a.conj().T)  # A = L Q^H with L = R^H: X = Q L^-1 B
    zero = np.nonzero(np.diagonal(r) == 0)[0]
    if zero.size:
        return int(zero[0]) + 1
    out[:n] = q @ np.linalg.solve(r.conj().T, b)
    return 0


def _svd_solve(
    a: np.ndarray, b: np.ndarray, rcond: float, out: np.ndarray
) -> tuple[int, np.ndarray]:
    """The minimum-norm solution over the singular values above rcond * s_max: (rank, S)."""
    m, n = a.shape
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    keep = s > rcond * (s[0] if s.size else 0.0)
    rank = int(keep.sum())
    inv = np.where(keep, 1.0 / np.where(keep, s, 1.0), 0.0).astype(s.dtype)
    out[:n] = vh.conj().T @ (inv[:, None] * (u.conj().T @ b))
    if m > n and rank == n:
        out[n:] = _complement(a, b)
    return rank, s


@traced("kernel", "at::native::(anonymous)::apply_lstsq", SOURCE, legacy="lapackLstsq")
def lstsq_kernel(
    A: Tensor,
    solution: Tensor,
    rank: Tensor,
    singular_values: Tensor,
    infos: Tensor,
    rcond: float,
    driver: str,
) -> None:
    _check_lapack_type("linalg_lstsq_cpu", A)
    a = A.numpy_view()
    m, n = a.shape[-2], a.shape[-1]
    buf = solution.numpy_view()
    flat_a = a.reshape(-1, m, n)
    flat_buf = buf.reshape(-1, *buf.shape[-2:]).copy()  # written back below
    ranks = np.zeros(flat_a.shape[0], dtype=np.int64)
    svals = np.zeros((flat_a.shape[0], min(m, n)), dtype=a.real.dtype)
    info = infos.numpy_view().reshape(-1)
    with np.errstate(all="ignore"):
        for i in range(flat_a.shape[0]):
            b = flat_buf[i, :m].copy()
            if min(m, n) == 0:
                flat_buf[i] = 0
                continue
            if driver == "gels":
                info[i] = _gels(flat_a[i], b, flat_buf[i])
            else:
                ranks[i], svals[i] = _svd_solve(flat_a[i], b, rcond, flat_buf[i])
    buf[...] = flat_buf.reshape(buf.shape)
    if rank.numel():
        rank.numpy_view()[...] = ranks.reshape(rank.numpy_view().shape)
    if singular_values.numel():
        singular_values.numpy_view()[...] = svals.reshape(singular_values.numpy_view().shape)


REGISTER_DISPATCH(lstsq_stub, lstsq_kernel)
