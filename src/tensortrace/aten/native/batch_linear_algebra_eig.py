"""The eigendecomposition of general matrices: linalg.eig and linalg.eigvals (complex outputs).

Mirrors `aten/src/ATen/native/BatchLinearAlgebra.cpp`: linalg_eig / linalg_eig_out (the checks,
complex eigenvalues and eigenvectors even for a real input, unlike NumPy), _linalg_eigvals /
linalg_eigvals / linalg_eigvals_out (the eigenvectors are computed only when a gradient may be
asked for), and the geev call of `BatchLinearAlgebraKernel.cpp` (apply_linalg_eig), here
np.linalg.eig, which calls the same LAPACK routine (eigenvectors of norm 1, largest component
real). The eigenvectors come out as a batch of F-contiguous matrices, as LAPACK writes them.
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.batch_linear_algebra import (
    _linalg_check_errors,
    _may_require_fw_or_bw_grad,
    squareCheckInputs,
)
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH, REGISTER_DISPATCH
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar_type import ScalarType, canCast, toComplexType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/BatchLinearAlgebra.cpp"
KERNEL = "aten/src/ATen/native/BatchLinearAlgebraKernel.cpp"

linalg_eig_stub = DECLARE_DISPATCH("linalg_eig_stub", "aten/src/ATen/native/BatchLinearAlgebra.h")


@traced("kernel", "at::native::(anonymous)::apply_linalg_eig (geev)", KERNEL, legacy="lapackEig")
def linalg_eig_kernel(
    input: Tensor, values: Tensor, vectors: Tensor, infos: Tensor, compute_v: bool
) -> None:
    a = input.numpy_view()
    TORCH_CHECK_NOT_IMPLEMENTED(
        a.dtype in (np.float32, np.float64, np.complex64, np.complex128),
        '"linalg_eig_out_cpu" not implemented for \'',
        input.scalar_type(),
        "'",
    )
    if a.size == 0:
        return
    flat = a.reshape(-1, *a.shape[-2:])
    w = np.empty(flat.shape[:-1], dtype=values.numpy_view().dtype)
    v = np.empty(flat.shape, dtype=w.dtype)
    info = np.zeros(flat.shape[0], dtype=np.int32)
    for i in range(flat.shape[0]):  # one geev per matrix; a failure is that matrix's info
        try:
            if compute_v:
                w[i], v[i] = np.linalg.eig(flat[i])
            else:
                w[i] = np.linalg.eigvals(flat[i])
        except np.linalg.LinAlgError:
            info[i] = 1
    values.numpy_view()[...] = w.reshape(values.numpy_view().shape)
    if compute_v:
        vectors.numpy_view()[...] = v.reshape(vectors.numpy_view().shape)
    infos.numpy_view()[...] = info.reshape(infos.numpy_view().shape)


def _check_out_dtype(out: Tensor, expected: ScalarType, name: str) -> None:
    """checkLinalgCompatibleDtype("torch.linalg.eig", out, toComplexType(input), name)."""
    TORCH_CHECK(
        canCast(expected, out.scalar_type()),
        "torch.linalg.eig: Expected ",
        name,
        " to be safely castable from ",
        expected,
        " dtype, but got ",
        name,
        " with dtype ",
        out.scalar_type(),
    )


def _resize_f_contiguous(t: Tensor, sizes: list[int]) -> None:
    if list(t.sizes()) != sizes or not t.mT().is_contiguous():
        t.resize_([*sizes[:-2], sizes[-1], sizes[-2]])
        t.transpose_(-2, -1)


def linalg_eig_out_info(
    input: Tensor, values: Tensor, vectors: Tensor, infos: Tensor, compute_v: bool
) -> None:
    """geev on each matrix, into values (..., n) and, if compute_v, vectors (..., n, n)."""
    shape = list(input.sizes())
    if list(values.sizes()) != shape[:-1]:
        values.resize_(shape[:-1])
    if compute_v:
        _resize_f_contiguous(vectors, shape)
    linalg_eig_stub(input.device().type_, input, values, vectors, infos, compute_v)


@native_function(SOURCE, name="linalg_eig_out", legacy="at::native::linalg_eig_out")
def linalg_eig_out(
    self: Tensor, eigenvalues: Tensor, eigenvectors: Tensor
) -> tuple[Tensor, Tensor]:
    input = self
    TORCH_CHECK(
        bool(input.isfinite().all().item()),
        "torch.linalg.eig: input tensor should not contain infs or NaNs.",
    )
    squareCheckInputs(input, "linalg.eig")
    complex_dtype = toComplexType(input.scalar_type())
    _check_out_dtype(eigenvalues, complex_dtype, "eigenvalues")
    _check_out_dtype(eigenvectors, complex_dtype, "eigenvectors")
    infos = at.zeros(list(input.sizes())[:-2], dtype=ScalarType.Int)
    linalg_eig_out_info(input, eigenvalues, eigenvectors, infos, True)
    _linalg_check_errors(infos, "torch.linalg.eig", input.dim() == 2)
    return eigenvalues, eigenvectors


def _empty_complex(input: Tensor) -> Tensor:
    complex_dtype = toComplexType(input.scalar_type())  # "Unknown Complex ScalarType" for ints
    TORCH_CHECK_NOT_IMPLEMENTED(
        complex_dtype in (ScalarType.ComplexFloat, ScalarType.ComplexDouble),
        '"linalg_eig_out_cpu" not implemented for \'',
        input.scalar_type(),
        "'",
    )
    return at.empty([0], dtype=complex_dtype, device=input.device())  # type: ignore[no-any-return]


@native_function(SOURCE, name="linalg_eig", legacy="at::native::linalg_eig")
def linalg_eig(self: Tensor) -> tuple[Tensor, Tensor]:
    values, vectors = _empty_complex(self), _empty_complex(self)
    at.linalg_eig(self, eigenvalues=values, eigenvectors=vectors)
    return values, vectors


@native_function(SOURCE, name="linalg_eigvals_out", legacy="at::native::linalg_eigvals_out")
def linalg_eigvals_out(self: Tensor, out: Tensor) -> Tensor:
    input = self
    squareCheckInputs(input, "linalg.eigvals")
    _check_out_dtype(out, toComplexType(input.scalar_type()), "eigenvalues")
    TORCH_CHECK(
        bool(input.isfinite().all().item()),
        "torch.linalg.eigvals: input tensor should not contain infs or NaNs.",
    )
    infos = at.zeros(list(input.sizes())[:-2], dtype=ScalarType.Int)
    vectors = at.empty([0], dtype=out.scalar_type(), device=input.device())
    linalg_eig_out_info(input, out, vectors, infos, False)
    _linalg_check_errors(infos, "torch.linalg.eigvals", input.dim() == 2)
    return out


@native_function(SOURCE, name="_linalg_eigvals", legacy="at::native::_linalg_eigvals")
def _linalg_eigvals(self: Tensor) -> Tensor:
    values = _empty_complex(self)
    at.linalg_eigvals(self, out=values)
    return values


@native_function(SOURCE, name="linalg_eigvals", legacy="at::native::linalg_eigvals")
def linalg_eigvals(self: Tensor) -> Tensor:
    # differentiable only through linalg_eig, whose eigenvectors the backward needs
    if _may_require_fw_or_bw_grad(self):
        return at.linalg_eig(self)[0]  # type: ignore[no-any-return]
    return at._linalg_eigvals(self)  # type: ignore[no-any-return]


REGISTER_DISPATCH(linalg_eig_stub, linalg_eig_kernel)
