"""Cholesky and LU: linalg.cholesky / cholesky_ex, torch.cholesky / cholesky_inverse,
linalg.lu_factor / lu_factor_ex, linalg.lu, torch.lu_unpack and linalg.lu_solve.

Mirrors `aten/src/ATen/native/BatchLinearAlgebra.cpp` (TORCH_META_FUNC / TORCH_IMPL_FUNC of
linalg_cholesky_ex, linalg_lu_factor_ex, linalg_lu, lu_unpack, linalg_lu_solve and the
composites linalg_cholesky, linalg_lu_factor). The LAPACK calls (potrf, getrf, getrs) are the
kernels of `cpu/batch_linear_algebra_kernel.py` and `cpu/batch_linear_algebra_kernel_triangular.py`;
their outputs are batches of F-contiguous matrices (Note [Linear algebra outputs are batches of
F-contiguous matrices] in batch_linear_algebra.py), except linalg.lu's and lu_unpack's P, L, U,
which torch allocates C-contiguous.
"""

from __future__ import annotations

import math
import warnings

from tensortrace.aten import functions as at
from tensortrace.aten.expand_utils import infer_size
from tensortrace.aten.native.batch_linear_algebra import (
    _linalg_check_errors,
    _options,
    batched_matrix_contiguous_strides,
    checkIsMatrix,
    squareCheckInputs,
)
from tensortrace.aten.native.batch_linear_algebra import (
    lu_factor_ex_stub as lu_factor_stub,
)
from tensortrace.aten.native.batch_linear_algebra import (
    lu_solve_stub as lu_solve_stub,
)
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.linalg_norms import checkFloatingOrComplex
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType, canCast

SOURCE = "aten/src/ATen/native/BatchLinearAlgebra.cpp"
STUBS = "aten/src/ATen/native/BatchLinearAlgebra.h"

cholesky_stub = DECLARE_DISPATCH("cholesky_stub", STUBS)
triangular_solve_stub = DECLARE_DISPATCH("triangular_solve_stub", STUBS)
cholesky_inverse_stub = DECLARE_DISPATCH("cholesky_inverse_stub", STUBS)
unpack_pivots_stub = DECLARE_DISPATCH("unpack_pivots_stub", "aten/src/ATen/native/LinearAlgebra.h")


_WARNED: set[str] = set()


def warn_once(message: str) -> None:
    """TORCH_WARN_ONCE: a UserWarning, the first time only."""
    if message not in _WARNED:
        _WARNED.add(message)
        warnings.warn(message, UserWarning, stacklevel=4)


# ---- LinearAlgebraUtils.h ------------------------------------------------------------------------
def checkInputsSolver(A: Tensor, B: Tensor, left: bool, f_name: str) -> None:
    squareCheckInputs(A, f_name, "A")
    checkIsMatrix(B, f_name, "B")
    TORCH_CHECK(
        A.size(-2) == B.size(-2) if left else A.size(-1) == B.size(-1),
        f_name,
        ": Incompatible shapes of A and B for the equation ",
        "AX = B" if left else "XA = B",
        " (",
        A.size(-2),
        "x",
        A.size(-1),
        " and ",
        B.size(-2),
        "x",
        B.size(-1),
        ")",
    )


def linearSolveCheckInputs(self: Tensor, A: Tensor, name: str) -> None:
    TORCH_CHECK(
        self.device() == A.device(),
        "Expected b and A to be on the same device, but found b on ",
        self.device(),
        " and A on ",
        A.device(),
        " instead.",
    )
    TORCH_CHECK(
        self.scalar_type() == A.scalar_type(),
        "Expected b and A to have the same dtype, but found b of type ",
        self.scalar_type(),
        " and A of type ",
        A.scalar_type(),
        " instead.",
    )
    TORCH_CHECK(
        A.size(-1) == A.size(-2),
        "A must be batches of square matrices, but they are ",
        A.size(-2),
        " by ",
        A.size(-1),
        " matrices",
    )
    TORCH_CHECK(
        A.size(-1) == self.size(-2),
        "Incompatible matrix sizes for ",
        name,
        ": each A matrix is ",
        A.size(-1),
        " by ",
        A.size(-1),
        " but each b matrix is ",
        self.size(-2),
        " by ",
        self.size(-1),
    )


def _linalg_broadcast_batch_sizes(arg1: Tensor, arg2: Tensor) -> tuple[list[int], list[int]]:
    """The two shapes with their batch dimensions broadcast against each other."""
    batch = infer_size(list(arg1.sizes())[:-2], list(arg2.sizes())[:-2])
    return [*batch, *list(arg1.sizes())[-2:]], [*batch, *list(arg2.sizes())[-2:]]


def _linalg_broadcast_batch_dims(
    arg1: Tensor, arg2: Tensor, name: str | None
) -> tuple[Tensor, Tensor]:
    """arg1 and arg2 expanded to their broadcast batch (checked as b and A when `name`)."""
    if name is not None:
        linearSolveCheckInputs(arg1, arg2, name)
    size1, size2 = _linalg_broadcast_batch_sizes(arg1, arg2)
    arg1_b = arg1 if size1 == list(arg1.sizes()) else arg1.expand(size1)
    arg2_b = arg2 if size2 == list(arg2.sizes()) else arg2.expand(size2)
    return arg1_b, arg2_b


# ---- cholesky ------------------------------------------------------------------------------------
@meta_function("linalg_cholesky_ex", SOURCE)
def meta_linalg_cholesky_ex(
    it: TensorIteratorBase, self: Tensor, upper: bool, check_errors: bool
) -> None:
    A = self
    squareCheckInputs(A, "linalg.cholesky")
    checkFloatingOrComplex(A, "linalg.cholesky")
    shape = list(A.sizes())
    it.set_output_raw_strided(0, shape, batched_matrix_contiguous_strides(shape, True), _options(A))
    it.set_output_raw_strided(1, shape[:-2], (), _options(A, ScalarType.Int))


@impl_function("linalg_cholesky_ex_out", SOURCE, legacy="at::native::linalg_cholesky_ex_out")
def linalg_cholesky_ex_out(
    it: TensorIteratorBase, self: Tensor, upper: bool, check_errors: bool, L: Tensor, info: Tensor
) -> None:
    A = self
    if L.numel() == 0:  # nothing to factor
        info.zero_()
        return
    # potrf reads one triangle: copy only that one, so the other comes out zero
    L.copy_(A.triu() if upper else A.tril())
    cholesky_stub(L.device().type_, L, info, upper)
    if check_errors:
        _linalg_check_errors(info, "linalg.cholesky_ex", A.dim() == 2)


@native_function(SOURCE, name="linalg_cholesky", legacy="at::native::linalg_cholesky")
def linalg_cholesky(self: Tensor, upper: bool = False) -> Tensor:
    A = self
    L, info = at.linalg_cholesky_ex(A, upper=upper, check_errors=False)
    _linalg_check_errors(info, "linalg.cholesky", A.dim() == 2)
    return L  # type: ignore[no-any-return]


@native_function(SOURCE, name="linalg_cholesky_out", legacy="at::native::linalg_cholesky_out")
def linalg_cholesky_out(self: Tensor, upper: bool, out: Tensor) -> Tensor:
    A = self
    info = at.empty([0], dtype=ScalarType.Int, device=A.device())
    at.linalg_cholesky_ex(A, upper=upper, check_errors=False, L=out, info=info)
    _linalg_check_errors(info, "linalg.cholesky", A.dim() == 2)
    return out


# ---- lu_factor -----------------------------------------------------------------------------------
@meta_function("linalg_lu_factor_ex", SOURCE)
def meta_linalg_lu_factor_ex(
    it: TensorIteratorBase, A: Tensor, pivot: bool, check_errors: bool
) -> None:
    TORCH_CHECK(
        A.dim() >= 2,
        "torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: ",
        A.sizes(),
        " instead",
    )
    sizes = list(A.sizes())
    m, n = sizes[-2], sizes[-1]
    it.set_output_raw_strided(0, sizes, batched_matrix_contiguous_strides(sizes, True), _options(A))
    it.set_output_raw_strided(1, [*sizes[:-2], min(m, n)], (), _options(A, ScalarType.Int))
    it.set_output_raw_strided(2, sizes[:-2], (), _options(A, ScalarType.Int))


@impl_function("linalg_lu_factor_ex_out", SOURCE, legacy="at::native::linalg_lu_factor_ex_out")
def linalg_lu_factor_ex_out(
    it: TensorIteratorBase,
    A: Tensor,
    pivot: bool,
    check_errors: bool,
    LU: Tensor,
    pivots: Tensor,
    info: Tensor,
) -> None:
    if A.numel() == 0:  # zero-sized matrices: nothing to factor
        info.zero_()
        return
    lu_factor_stub(A.device().type_, A, LU, pivots, info, pivot)
    if check_errors:
        _linalg_check_errors(info, "torch.linalg.lu_factor_ex", A.dim() == 2)


@native_function(SOURCE, name="linalg_lu_factor", legacy="at::native::linalg_lu_factor")
def linalg_lu_factor(A: Tensor, pivot: bool = True) -> tuple[Tensor, Tensor]:
    LU, pivots, info = at.linalg_lu_factor_ex(A, pivot=pivot, check_errors=False)
    _linalg_check_errors(info, "torch.linalg.lu_factor", A.dim() == 2)
    return LU, pivots


@native_function(SOURCE, name="linalg_lu_factor_out", legacy="at::native::linalg_lu_factor_out")
def linalg_lu_factor_out(
    A: Tensor, pivot: bool, LU: Tensor, pivots: Tensor
) -> tuple[Tensor, Tensor]:
    info = at.empty([0], dtype=ScalarType.Int, device=A.device())
    at.linalg_lu_factor_ex(A, pivot=pivot, check_errors=False, LU=LU, pivots=pivots, info=info)
    _linalg_check_errors(info, "torch.linalg.lu_factor", A.dim() == 2)
    return LU, pivots


# ---- lu_unpack / linalg.lu -----------------------------------------------------------------------
def _set_plu_outputs(it: TensorIteratorBase, A: Tensor, unpack_p: bool, unpack_lu: bool) -> None:
    """P (m, m), L (m, k), U (k, n), C-contiguous; P (or L and U) of size 0 when not asked."""
    sizes = list(A.sizes())
    m, n = sizes[-2], sizes[-1]
    k = min(m, n)
    batch = sizes[:-2]
    it.set_output_raw_strided(0, [*batch, m, m] if unpack_p else [0], (), _options(A))
    it.set_output_raw_strided(1, [*batch, m, k] if unpack_lu else [0], (), _options(A))
    it.set_output_raw_strided(2, [*batch, k, n] if unpack_lu else [0], (), _options(A))


@meta_function("lu_unpack", SOURCE)
def meta_lu_unpack(
    it: TensorIteratorBase, LU: Tensor, pivots: Tensor, unpack_data: bool, unpack_pivots: bool
) -> None:
    TORCH_CHECK(
        LU.dim() >= 2,
        "torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: ",
        LU.sizes(),
        " instead",
    )
    if unpack_pivots:
        TORCH_CHECK(
            pivots.scalar_type() == ScalarType.Int,
            "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 "
            "dtype.\nNote: this function is intended to be used with the output produced by "
            "torch.linalg.lu_factor",
        )
    _set_plu_outputs(it, LU, unpack_pivots, unpack_data)


@impl_function("lu_unpack_out", SOURCE, legacy="at::native::lu_unpack_out")
def lu_unpack_out(
    it: TensorIteratorBase,
    LU: Tensor,
    pivots: Tensor,
    unpack_lu: bool,
    unpack_pivots: bool,
    P: Tensor,
    L: Tensor,
    U: Tensor,
) -> None:
    m, n = LU.size(-2), LU.size(-1)
    if unpack_lu:
        # the order of triu and tril matters when LU is L (or U) itself
        if m > n or LU.is_same(L):
            U.copy_((LU if m == n else LU.narrow(-2, 0, n)).triu())
            L.copy_(LU.tril(-1))
        else:
            L.copy_((LU if m == n else LU.narrow(-1, 0, m)).tril(-1))
            U.copy_(LU.triu())
        L.diagonal(0, -2, -1).fill_(1.0)
    if unpack_pivots:
        # pivots: 1-based row swaps (LAPACK's ipiv); the permutation they make, then P from it
        perm_sizes = list(P.sizes())[:-1]
        perm = at.arange(m, dtype=ScalarType.Long, device=pivots.device())
        perm = perm.expand(perm_sizes).contiguous()
        unpack_pivots_stub(pivots.device().type_, perm, pivots, min(m, n))
        P.zero_()
        P.scatter_(-2, perm.unsqueeze(-2), 1.0)


@meta_function("linalg_lu", SOURCE)
def meta_linalg_lu(it: TensorIteratorBase, A: Tensor, pivot: bool) -> None:
    TORCH_CHECK(
        A.dim() >= 2,
        "linalg.lu: Expected tensor with 2 or more dimensions. Got size: ",
        A.sizes(),
        " instead",
    )
    _set_plu_outputs(it, A, pivot, True)


@impl_function("linalg_lu_out", SOURCE, legacy="at::native::linalg_lu_out")
def linalg_lu_out(
    it: TensorIteratorBase, A: Tensor, pivot: bool, P: Tensor, L: Tensor, U: Tensor
) -> None:
    # factor into whichever of L (m, k) and U (k, n) has A's shape, then unpack from it
    use_L = A.size(-2) > A.size(-1)
    LU = L if use_L else U
    pivots = at.empty([0], dtype=ScalarType.Int, device=A.device())
    info = at.empty([0], dtype=ScalarType.Int, device=A.device())
    at.linalg_lu_factor_ex(A, pivot=pivot, check_errors=False, LU=LU, pivots=pivots, info=info)
    at.lu_unpack(LU, pivots, True, pivot, P=P, L=L, U=U)


# ---- lu_solve ------------------------------------------------------------------------------------
@meta_function("linalg_lu_solve", SOURCE)
def meta_linalg_lu_solve(
    it: TensorIteratorBase, LU: Tensor, pivots: Tensor, B: Tensor, left: bool, adjoint: bool
) -> None:
    checkFloatingOrComplex(LU, "torch.linalg.lu_solve")
    TORCH_CHECK(
        LU.scalar_type() == B.scalar_type(),
        "linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type ",
        LU.scalar_type(),
        " and B of type ",
        B.scalar_type(),
        " instead",
    )
    TORCH_CHECK(
        pivots.scalar_type() == ScalarType.Int,
        "linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32",
    )
    squareCheckInputs(LU, "torch.linalg.lu_solve")
    checkInputsSolver(LU, B, left, "linalg.lu_solve")
    TORCH_CHECK(
        LU.size(-1) == pivots.size(-1),
        "linalg.lu_solve: Number of pivots per batch should be same as the dimension of the matrix",
    )
    TORCH_CHECK(
        list(LU.sizes())[:-1] == list(pivots.sizes()),
        "linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the same, but got "
        "pivots with shape ",
        pivots.sizes(),
        " instead",
    )
    B_broadcast_size = _linalg_broadcast_batch_sizes(B, LU)[0]
    strides = batched_matrix_contiguous_strides(B_broadcast_size, left)
    it.set_output_raw_strided(0, B_broadcast_size, strides, _options(B))


@impl_function("linalg_lu_solve_out", SOURCE, legacy="at::native::linalg_lu_solve_out")
def linalg_lu_solve_out(
    it: TensorIteratorBase,
    LU: Tensor,
    pivots: Tensor,
    B: Tensor,
    left: bool,
    adjoint: bool,
    result: Tensor,
) -> None:
    if result.numel() == 0:
        return
    # getrs with trans = N, T or C; right-hand solves as the adjoint system (the kernel's job)
    lu_solve_stub(LU.device().type_, LU, pivots, B, result, left, adjoint)


# ---- torch.cholesky (deprecated) and cholesky_inverse --------------------------------------------
@native_function(SOURCE, name="cholesky", legacy="at::native::cholesky")
def cholesky(self: Tensor, upper: bool = False) -> Tensor:
    """potrf on a column-major copy, then the other triangle zeroed (torch warns once that it
    is deprecated in favor of linalg.cholesky)."""
    warn_once(
        "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in "
        "a future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\n"
        "L = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\nshould be "
        "replaced with\nU = torch.linalg.cholesky(A).mH\nThis transform will produce "
        "equivalent results for all valid (symmetric positive definite) inputs."
    )
    if self.numel() == 0:
        return at.empty_like(self, memory_format="contiguous_format")  # type: ignore[no-any-return]
    squareCheckInputs(self, "cholesky")
    raw_cholesky_output = self.mT().clone(memory_format="contiguous_format").mT()
    info = at.empty(list(self.sizes())[:-2], dtype=ScalarType.Int, device=self.device())
    cholesky_stub(self.device().type_, raw_cholesky_output, info, upper)
    _linalg_check_errors(info, "cholesky", self.dim() == 2)
    return raw_cholesky_output.triu_() if upper else raw_cholesky_output.tril_()  # type: ignore[no-any-return]


@native_function(SOURCE, name="cholesky_out", legacy="at::native::cholesky_out")
def cholesky_out(self: Tensor, upper: bool, out: Tensor) -> Tensor:
    result = at.cholesky(self, upper)
    out.resize_(list(result.sizes()))
    return out.copy_(result)  # type: ignore[no-any-return]


@native_function(SOURCE, name="cholesky_inverse_out", legacy="at::native::cholesky_inverse_out")
def cholesky_inverse_out(self: Tensor, upper: bool, out: Tensor) -> Tensor:
    """(L L^H)^-1 (or (U^H U)^-1) from the factor, through potri, into a column-major out."""
    input = self
    squareCheckInputs(input, "cholesky_inverse")
    TORCH_CHECK(
        canCast(input.scalar_type(), out.scalar_type()),
        "cholesky_inverse: Expected result to be safely castable from ",
        input.scalar_type(),
        " dtype, but got result with dtype ",
        out.scalar_type(),
    )
    batch = list(input.sizes())[:-2]
    infos = at.zeros([max(1, math.prod(batch))], dtype=ScalarType.Int)
    shape = list(input.sizes())
    copy_needed = (out.numel() != 0 and not (out.dim() >= 2 and out.mT().is_contiguous())) or (
        out.scalar_type() != input.scalar_type()
        or (out.numel() != 0 and list(out.sizes()) != shape)
    )
    result = at.empty([0], dtype=input.scalar_type(), device=input.device()) if copy_needed else out
    result.resize_([*shape[:-2], shape[-1], shape[-2]])
    result.transpose_(-2, -1)  # batches of F-contiguous matrices, as potri writes them
    result.copy_(input)
    cholesky_inverse_stub(input.device().type_, result, infos, upper)
    if copy_needed:
        out.resize_(shape)
        out.copy_(result)
    _linalg_check_errors(infos, "cholesky_inverse", out.dim() == 2)
    return out


@native_function(SOURCE, name="cholesky_inverse", legacy="at::native::cholesky_inverse")
def cholesky_inverse(self: Tensor, upper: bool = False) -> Tensor:
    result = at.empty([0], dtype=self.scalar_type(), device=self.device())
    return at.cholesky_inverse(self, upper, out=result)  # type: ignore[no-any-return]
