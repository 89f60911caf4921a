"""Triangular solves: linalg.solve_triangular, torch.triangular_solve and torch.cholesky_solve.

Mirrors `aten/src/ATen/native/BatchLinearAlgebra.cpp` (linalg_solve_triangular_out,
TORCH_META_FUNC / TORCH_IMPL_FUNC(triangular_solve), cholesky_solve and
_cholesky_solve_helper_cpu with its apply_cholesky_solve (potrs)). The trsm calls are
`cpu/batch_linear_algebra_kernel_triangular.py`'s triangular_solve_kernel. Results are batches
of F-contiguous matrices, as LAPACK writes them (Note [Linear algebra outputs are batches of
F-contiguous matrices] in batch_linear_algebra.py).
"""

from __future__ import annotations

from tensortrace.aten import functions as at
from tensortrace.aten.native.batch_linear_algebra import (
    _options,
    batched_matrix_contiguous_strides,
)
from tensortrace.aten.native.batch_linear_algebra_lu import (
    _linalg_broadcast_batch_dims,
    _linalg_broadcast_batch_sizes,
    checkInputsSolver,
    linearSolveCheckInputs,
    triangular_solve_stub,
    warn_once,
)
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar_type import ScalarType

SOURCE = "aten/src/ATen/native/BatchLinearAlgebra.cpp"
LAPACK_TYPES = (
    ScalarType.Float,
    ScalarType.Double,
    ScalarType.ComplexFloat,
    ScalarType.ComplexDouble,
)


def cloneBatchedColumnMajor(src: Tensor) -> Tensor:
    """LinearAlgebraUtils.h: a copy whose matrices are F-contiguous (a C-contiguous mT)."""
    return src.mT().clone(memory_format="contiguous_format").mT()


def _resize_f_contiguous(out: Tensor, sizes: list[int]) -> None:
    """resize_output with F-contiguous matrices: a `poorman's reimplementation` in torch."""
    if list(out.sizes()) != sizes:
        out.resize_([*sizes[:-2], sizes[-1], sizes[-2]])
        out.transpose_(-2, -1)


# ---- linalg.solve_triangular ---------------------------------------------------------------------
@native_function(
    SOURCE, name="linalg_solve_triangular_out", legacy="at::native::linalg_solve_triangular_out"
)
def linalg_solve_triangular_out(
    self: Tensor, B: Tensor, upper: bool, left: bool, unitriangular: bool, out: Tensor
) -> Tensor:
    A = self
    checkInputsSolver(A, B, left, "linalg.solve_triangular")
    B_, A_ = _linalg_broadcast_batch_dims(B, A, None)
    _resize_f_contiguous(out, list(B_.sizes()))
    # trsm works in place on an F-contiguous copy of B, with an F-contiguous A
    out_f = cloneBatchedColumnMajor(B_.to(out.scalar_type()))
    A_f = cloneBatchedColumnMajor(A_)
    triangular_solve_stub(A_f.device().type_, A_f, out_f, left, upper, "N", unitriangular)
    out.copy_(out_f)
    return out


@native_function(
    SOURCE, name="linalg_solve_triangular", legacy="at::native::linalg_solve_triangular"
)
def linalg_solve_triangular(
    self: Tensor, B: Tensor, upper: bool, left: bool = True, unitriangular: bool = False
) -> Tensor:
    out = at.empty([0], dtype=self.scalar_type(), device=self.device())
    at.linalg_solve_triangular(
        self, B, upper=upper, left=left, unitriangular=unitriangular, out=out
    )
    return out


# ---- triangular_solve ----------------------------------------------------------------------------
@meta_function("triangular_solve", SOURCE)
def meta_triangular_solve(
    it: TensorIteratorBase,
    self: Tensor,
    A: Tensor,
    upper: bool,
    transpose: bool,
    unitriangular: bool,
) -> None:
    TORCH_CHECK(
        self.dim() >= 2,
        "torch.triangular_solve: Expected b to have at least 2 dimensions, but it has ",
        self.dim(),
        " dimensions instead",
    )
    TORCH_CHECK(
        A.dim() >= 2,
        "torch.triangular_solve: Expected A to have at least 2 dimensions, but it has ",
        A.dim(),
        " dimensions instead",
    )
    linearSolveCheckInputs(self, A, "triangular_solve")
    self_size, A_size = _linalg_broadcast_batch_sizes(self, A)
    strides = batched_matrix_contiguous_strides
    it.set_output_raw_strided(0, self_size, strides(self_size, True), _options(self))
    it.set_output_raw_strided(1, A_size, strides(A_size, True), _options(A))


@impl_function("triangular_solve_out", SOURCE, legacy="at::native::triangular_solve_out")
def triangular_solve_out(
    it: TensorIteratorBase,
    self: Tensor,
    A: Tensor,
    upper: bool,
    transpose: bool,
    unitriangular: bool,
    result: Tensor,
    clone_A: Tensor,
) -> None:
    warn_once(
        "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangular"
        "and will be removed in a future PyTorch release.\ntorch.linalg.solve_triangular has "
        "its arguments reversed and does not return a copy of one of the inputs.\n"
        "X = torch.triangular_solve(B, A).solution\nshould be replaced with\n"
        "X = torch.linalg.solve_triangular(A, B)."
    )
    self_b, A_b = _linalg_broadcast_batch_dims(self, A, "triangular_solve")
    # trsm needs F-contiguous outputs: solve in temporaries when an out= tensor is not
    copy_needed = not result.mT().is_contiguous() or not clone_A.mT().is_contiguous()
    res = cloneBatchedColumnMajor(self_b) if copy_needed else result
    cln = cloneBatchedColumnMajor(A_b) if copy_needed else clone_A
    if not copy_needed:
        res.copy_(self_b)
        cln.copy_(A_b)
    trans = "T" if transpose else "N"
    triangular_solve_stub(A.device().type_, cln, res, True, upper, trans, unitriangular)
    if copy_needed:
        result.copy_(res)
        clone_A.copy_(cln)


# ---- cholesky_solve ------------------------------------------------------------------------------
@native_function(SOURCE, name="cholesky_solve", legacy="at::native::cholesky_solve")
def cholesky_solve(self: Tensor, input2: Tensor, upper: bool = False) -> Tensor:
    A = input2
    TORCH_CHECK(
        self.dim() >= 2,
        "b should have at least 2 dimensions, but has ",
        self.dim(),
        " dimensions instead",
    )
    TORCH_CHECK(
        A.dim() >= 2,
        "u should have at least 2 dimensions, but has ",
        A.dim(),
        " dimensions instead",
    )
    self_b, A_b = _linalg_broadcast_batch_dims(self, A, "cholesky_solve")
    return at._cholesky_solve_helper(self_b, A_b, upper)  # type: ignore[no-any-return]


@native_function(SOURCE, name="cholesky_solve_out", legacy="at::native::cholesky_solve_out")
def cholesky_solve_out(self: Tensor, input2: Tensor, upper: bool, out: Tensor) -> Tensor:
    result = at.cholesky_solve(self, input2, upper)
    out.resize_(list(result.sizes()))
    out.copy_(result)
    return out


@native_function(SOURCE, name="_cholesky_solve_helper_cpu")
def _cholesky_solve_helper_cpu(self: Tensor, A: Tensor, upper: bool) -> Tensor:
    """potrs: two triangular solves with the factor, L L^H X = B (or U^H U X = B)."""
    TORCH_CHECK_NOT_IMPLEMENTED(
        self.scalar_type() in LAPACK_TYPES,
        '"cholesky_solve_cpu" not implemented for \'',
        self.scalar_type(),
        "'",
    )
    result = cloneBatchedColumnMajor(self)
    factor = cloneBatchedColumnMajor(A)
    device = A.device().type_
    if upper:  # U^H (U X) = B
        triangular_solve_stub(device, factor, result, True, True, "C", False)
        triangular_solve_stub(device, factor, result, True, True, "N", False)
    else:  # L (L^H X) = B
        triangular_solve_stub(device, factor, result, True, False, "N", False)
        triangular_solve_stub(device, factor, result, True, False, "C", False)
    return result
