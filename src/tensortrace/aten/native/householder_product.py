"""torch.geqrf and torch.linalg.householder_product: the QR factorization in LAPACK's compact
form (the Householder reflectors below the diagonal of `a`, R on and above it, the scalars
`tau`), and the product of those reflectors, Q.

Mirrors `geqrf` / `linalg_householder_product` of `aten/src/ATen/native/BatchLinearAlgebra.cpp`
(their checks, and outputs that are batches of F-contiguous matrices: Note [Linear algebra
outputs are batches of F-contiguous matrices] in batch_linear_algebra.py) with the kernels of
`BatchLinearAlgebraKernel.cpp` (apply_geqrf, apply_orgqr). geqrf is LAPACK's own: NumPy's
qr(mode='raw') returns ?geqrf's output as it is (transposed, as NumPy's arrays are C-ordered),
in the input's precision. orgqr forms Q = H_1 H_2 ... H_k I[:, :n] with
H_i = I - tau_i v_i v_i^H, applying the reflectors from the last, as LAPACK's ?org2r does.
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.batch_linear_algebra import batched_matrix_contiguous_strides
from tensortrace.aten.native.cpu.batch_linear_algebra_kernel import _check_lapack_type
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/BatchLinearAlgebra.cpp"
KERNEL = "aten/src/ATen/native/BatchLinearAlgebraKernel.cpp"


def _batches(t: Tensor) -> np.ndarray:
    """The matrices of a batch, as one (b, m, n) array of their own: a view of a temporary
    contiguous tensor would outlive its memory, which the CUDA caching allocator hands out
    again to the next allocation (the output)."""
    arr = np.array(t.contiguous().numpy_view())
    return arr.reshape(-1, *arr.shape[-2:])


def _f_contiguous(shape: list[int], like: Tensor) -> Tensor:
    return at.empty_strided(
        shape,
        batched_matrix_contiguous_strides(shape, True),
        dtype=like.scalar_type(),
        device=like.device(),
    )


# ---- geqrf ---------------------------------------------------------------------------------------
@traced("kernel", "at::native::(anonymous)::apply_geqrf", KERNEL, legacy="lapackGeqrf")
def geqrf_kernel(input: Tensor, a: Tensor, tau: Tensor) -> None:
    _check_lapack_type("geqrf_cpu", input)
    mats = _batches(input)
    m, n = mats.shape[-2:]
    if mats.shape[0] == 0 or m == 0 or n == 0:
        return
    qr = np.empty_like(mats)
    taus = np.empty((mats.shape[0], min(m, n)), dtype=mats.dtype)
    for b, mat in enumerate(mats):
        h, t = np.linalg.qr(mat, mode="raw")  # ?geqrf on the column-major copy: h is a^T
        qr[b], taus[b] = h.T, t
    a.numpy_view()[...] = qr.reshape(a.numpy_view().shape)
    tau.numpy_view()[...] = taus.reshape(tau.numpy_view().shape)


@native_function(SOURCE, name="geqrf", legacy="at::native::geqrf")
def geqrf(self: Tensor) -> tuple[Tensor, Tensor]:
    TORCH_CHECK(self.dim() >= 2, "torch.geqrf: input must have at least 2 dimensions.")
    sizes = list(self.sizes())
    a = _f_contiguous(sizes, self)
    tau = at.empty(
        [*sizes[:-2], min(sizes[-2], sizes[-1])],
        dtype=self.scalar_type(),
        device=self.device(),
    )
    geqrf_kernel(self, a, tau)
    return a, tau


# ---- householder_product (orgqr) -----------------------------------------------------------------
def _orgqr(reflectors: np.ndarray, tau: np.ndarray) -> np.ndarray:
    """?org2r: Q = H_1 ... H_k applied to the first n columns of the identity."""
    m, n = reflectors.shape
    q = np.eye(m, n, dtype=reflectors.dtype)
    for i in range(tau.shape[0] - 1, -1, -1):
        v = np.zeros(m, dtype=reflectors.dtype)
        v[i] = 1
        v[i + 1 :] = reflectors[i + 1 :, i]
        q -= tau[i] * np.outer(v, v.conj() @ q)
    return q


@traced("kernel", "at::native::(anonymous)::apply_orgqr", KERNEL, legacy="lapackOrgqr")
def orgqr_kernel(input: Tensor, tau: Tensor, result: Tensor) -> None:
    _check_lapack_type("orgqr_cpu", input)
    if result.numel() == 0:
        return
    mats = _batches(input)
    taus = np.array(tau.contiguous().numpy_view()).reshape(mats.shape[0], -1)
    q = np.stack([_orgqr(mat, t) for mat, t in zip(mats, taus)])
    result.numpy_view()[...] = q.reshape(result.numpy_view().shape)


@native_function(
    SOURCE, name="linalg_householder_product", legacy="at::native::householder_product"
)
def linalg_householder_product(input: Tensor, tau: Tensor) -> Tensor:
    name = "torch.linalg.householder_product"
    TORCH_CHECK(input.dim() >= 2, name, ": input must have at least 2 dimensions.")
    TORCH_CHECK(
        input.size(-2) >= input.size(-1),
        name,
        ": input.shape[-2] must be greater than or equal to input.shape[-1]",
    )
    TORCH_CHECK(
        input.size(-1) >= tau.size(-1),
        name,
        ": input.shape[-1] must be greater than or equal to tau.shape[-1]",
    )
    TORCH_CHECK(
        input.dim() - tau.dim() == 1,
        name,
        ": Expected tau to have one dimension less than input, but got tau.ndim equal to ",
        tau.dim(),
        " and input.ndim is equal to ",
        input.dim(),
    )
    if input.dim() > 2:
        expected = list(input.sizes())[:-2]
        actual = list(tau.sizes())[:-1]
        TORCH_CHECK(
            actual == expected,
            name,
            ": Expected batch dimensions of tau to be equal to input.shape[:-2], but got ",
            actual,
        )
    TORCH_CHECK(
        tau.scalar_type() == input.scalar_type(),
        name,
        ": tau dtype ",
        tau.scalar_type(),
        " does not match input dtype ",
        input.scalar_type(),
    )
    TORCH_CHECK(
        input.device() == tau.device(),
        name,
        ": Expected tau and input to be on the same device, but found tau on ",
        tau.device(),
        " and input on ",
        input.device(),
        " instead.",
    )
    result = _f_contiguous(list(input.sizes()), input)
    orgqr_kernel(input, tau, result)
    return result
