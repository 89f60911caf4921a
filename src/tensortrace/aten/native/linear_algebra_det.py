"""Determinants and condition numbers: linalg.det / torch.det, linalg.slogdet / torch.slogdet,
torch.logdet and linalg.cond.

Mirrors `aten/src/ATen/native/LinearAlgebra.cpp`: TORCH_META_FUNC / TORCH_IMPL_FUNC of _linalg_det
and _linalg_slogdet (an LU factorization, kept as an output for the backward, and the product of
U's diagonal with the sign of the permutation, lu_det_P), the composites linalg_det, det,
linalg_slogdet, slogdet, logdet, and linalg_cond with _linalg_cond_helper.
"""

from __future__ import annotations

import math
from typing import Any

from tensortrace.aten import functions as at
from tensortrace.aten.native.batch_linear_algebra import (
    _options,
    batched_matrix_contiguous_strides,
    checkLowPrecision,
    squareCheckInputs,
)
from tensortrace.aten.native.linalg_norms import checkFloatingOrComplex
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType, canCast, toRealValueType

SOURCE = "aten/src/ATen/native/LinearAlgebra.cpp"


def lu_det_P(pivots: Tensor) -> Tensor:
    """det(P) of the permutation the pivots make: 1 for an even number of swaps, -1 for odd."""
    n = pivots.size(-1)
    identity = at.arange(1, n + 1, dtype=pivots.scalar_type(), device=pivots.device())
    swaps = identity.ne(pivots).sum([-1], False, dtype=ScalarType.Long)
    return swaps.fmod_(2).mul_(-2).add_(1)  # type: ignore[no-any-return]


def _lu_of(A: Tensor, LU: Tensor, pivots: Tensor) -> None:
    """lu_factor_ex into LU and pivots; of A^T when A is real and C-contiguous, as det(A^T) =
    det(A) and A^T is F-contiguous, LAPACK's layout (no copy)."""
    info = at.empty([0], dtype=ScalarType.Int, device=A.device())
    A_ = A.mH() if A.is_contiguous() and not A.is_complex() else A
    at.linalg_lu_factor_ex(A_, pivot=True, check_errors=False, LU=LU, pivots=pivots, info=info)


def _set_lu_outputs(it: TensorIteratorBase, A: Tensor, first: int) -> None:
    shape = list(A.sizes())
    strides = batched_matrix_contiguous_strides(shape, True)
    it.set_output_raw_strided(first, shape, strides, _options(A))
    it.set_output_raw_strided(first + 1, shape[:-1], (), _options(A, ScalarType.Int))


# ---- det -----------------------------------------------------------------------------------------
@meta_function("_linalg_det", SOURCE)
def meta__linalg_det(it: TensorIteratorBase, A: Tensor) -> None:
    squareCheckInputs(A, "linalg.det")
    checkFloatingOrComplex(A, "linalg.det")
    it.set_output_raw_strided(0, list(A.sizes())[:-2], (), _options(A))
    _set_lu_outputs(it, A, 1)


@impl_function("_linalg_det_out", SOURCE, legacy="at::native::_linalg_det_out")
def _linalg_det_out(
    it: TensorIteratorBase, A: Tensor, result: Tensor, LU: Tensor, pivots: Tensor
) -> None:
    _lu_of(A, LU, pivots)
    # det = det(P) * prod(diag(U))
    at.mul(lu_det_P(pivots), at.prod(LU.diagonal(0, -2, -1), -1), out=result)


@native_function(SOURCE, name="linalg_det", legacy="at::native::linalg_det")
def linalg_det(A: Tensor) -> Tensor:
    return at._linalg_det(A)[0]  # type: ignore[no-any-return]


@native_function(SOURCE, name="linalg_det_out", legacy="at::native::linalg_det_out")
def linalg_det_out(A: Tensor, out: Tensor) -> Tensor:
    LU = at.empty([0], dtype=A.scalar_type(), device=A.device())
    pivots = at.empty([0], dtype=ScalarType.Int, device=A.device())
    at._linalg_det(A, result=out, LU=LU, pivots=pivots)
    return out


@native_function(SOURCE, name="det", legacy="at::native::det")
def det(self: Tensor) -> Tensor:
    return at.linalg_det(self)  # type: ignore[no-any-return]


# ---- slogdet / logdet ----------------------------------------------------------------------------
@meta_function("_linalg_slogdet", SOURCE)
def meta__linalg_slogdet(it: TensorIteratorBase, A: Tensor) -> None:
    squareCheckInputs(A, "linalg.slogdet")
    checkFloatingOrComplex(A, "linalg.slogdet")
    checkLowPrecision(A, "linalg.slogdet")
    batch = list(A.sizes())[:-2]
    it.set_output_raw_strided(0, batch, (), _options(A))
    it.set_output_raw_strided(1, batch, (), _options(A, toRealValueType(A.scalar_type())))
    _set_lu_outputs(it, A, 2)


@impl_function("_linalg_slogdet_out", SOURCE, legacy="at::native::_linalg_slogdet_out")
def _linalg_slogdet_out(
    it: TensorIteratorBase,
    A: Tensor,
    sign: Tensor,
    logabsdet: Tensor,
    LU: Tensor,
    pivots: Tensor,
) -> None:
    _lu_of(A, LU, pivots)
    diag_U = LU.diagonal(0, -2, -1)
    at.mul(diag_U.sgn().prod(-1), lu_det_P(pivots), out=sign)
    at.sum(diag_U.abs().log_(), [-1], out=logabsdet)


@native_function(SOURCE, name="linalg_slogdet", legacy="at::native::linalg_slogdet")
def linalg_slogdet(A: Tensor) -> tuple[Tensor, Tensor]:
    sign, logabsdet, _LU, _pivots = at._linalg_slogdet(A)
    return sign, logabsdet


@native_function(SOURCE, name="linalg_slogdet_out", legacy="at::native::linalg_slogdet_out")
def linalg_slogdet_out(A: Tensor, sign: Tensor, logabsdet: Tensor) -> tuple[Tensor, Tensor]:
    LU = at.empty([0], dtype=A.scalar_type(), device=A.device())
    pivots = at.empty([0], dtype=ScalarType.Int, device=A.device())
    at._linalg_slogdet(A, sign=sign, logabsdet=logabsdet, LU=LU, pivots=pivots)
    return sign, logabsdet


@native_function(SOURCE, name="slogdet", legacy="at::native::slogdet")
def slogdet(self: Tensor) -> tuple[Tensor, Tensor]:
    return at.linalg_slogdet(self)  # type: ignore[no-any-return]


@native_function(SOURCE, name="slogdet_out", legacy="at::native::slogdet_out")
def slogdet_out(self: Tensor, sign: Tensor, logabsdet: Tensor) -> tuple[Tensor, Tensor]:
    at.linalg_slogdet(self, sign=sign, logabsdet=logabsdet)
    return sign, logabsdet


@native_function(SOURCE, name="logdet", legacy="at::native::logdet")
def logdet(self: Tensor) -> Tensor:
    A = self
    squareCheckInputs(A, "logdet")
    checkFloatingOrComplex(A, "logdet")
    checkLowPrecision(A, "logdet")
    sign, logabsdet = at.linalg_slogdet(A)
    if A.is_complex():
        return sign.log().add(logabsdet)  # type: ignore[no-any-return]
    return at.where(sign.eq(-1.0), math.nan, logabsdet)  # type: ignore[no-any-return]


# ---- cond ----------------------------------------------------------------------------------------
def _linalg_cond_helper(self: Tensor, ord: Any) -> Tensor:
    """||A|| ||A^-1||, with an infinite inverse for a singular A (NumPy's convention)."""
    inverse, info = at.linalg_inv_ex(self)
    info = info.unsqueeze(-1).unsqueeze(-1)
    inverse.masked_fill_(info.gt(0), math.inf)
    result = at.linalg_matrix_norm(self, ord).mul(at.linalg_matrix_norm(inverse, ord))
    # 0 * inf is NaN: make it inf, as NumPy
    return result.nan_to_num_(math.inf, math.inf, -math.inf)  # type: ignore[no-any-return]


def _linalg_cond_empty_matrix(self: Tensor) -> Tensor:
    """A 0 for each (empty) matrix: NumPy does not define cond for them."""
    real = toRealValueType(self.scalar_type())
    return at.zeros(list(self.sizes())[:-2], dtype=real, device=self.device())  # type: ignore[no-any-return]


def _linalg_cond_check_ord(ord: Any) -> None:
    if isinstance(ord, str):
        TORCH_CHECK(ord in ("fro", "nuc"), "linalg.cond got an invalid norm type: ", ord)
        return
    TORCH_CHECK(
        abs(float(ord)) in (2.0, 1.0, math.inf),
        "linalg.cond got an invalid norm type: ",
        float(ord),
    )


def _std_to_string(ord: Any) -> str:
    """std::to_string of the Scalar, as torch builds the name in its message."""
    if isinstance(ord, float):
        return "inf" if ord == math.inf else "-inf" if ord == -math.inf else f"{ord:.6f}"
    return str(int(ord))


@native_function(SOURCE, name="linalg_cond", legacy="at::native::linalg_cond")
def linalg_cond(self: Tensor, p: Any = None) -> Tensor:
    TORCH_CHECK(self.dim() >= 2, "linalg.cond: The input tensor must have at least 2 dimensions.")
    ord = 2 if p is None else p
    _linalg_cond_check_ord(ord)
    if self.numel() == 0:
        return _linalg_cond_empty_matrix(self)
    if abs(float(ord)) == 2.0:  # ratio of the extreme singular values
        singular_values = at.linalg_svdvals(self)
        s_max = singular_values.narrow(-1, 0, 1)
        s_min = singular_values.narrow(-1, singular_values.size(-1) - 1, 1)
        result = s_min.div(s_max) if float(ord) == -2.0 else s_max.div(s_min)
        return result.squeeze(-1)  # type: ignore[no-any-return]
    squareCheckInputs(self, f"linalg.cond(ord={_std_to_string(ord)})")
    return _linalg_cond_helper(self, ord)


@native_function(SOURCE, name="linalg_cond_p_str", legacy="at::native::linalg_cond")
def linalg_cond_p_str(self: Tensor, p: str) -> Tensor:
    squareCheckInputs(self, f"linalg.cond(ord={p})")
    _linalg_cond_check_ord(p)
    if self.numel() == 0:
        return _linalg_cond_empty_matrix(self)
    if p == "nuc":  # matrix_norm('nuc') refuses infinities: the definition, directly
        singular_values = at.linalg_svdvals(self)
        return singular_values.sum([-1]).mul(singular_values.reciprocal().sum([-1]))  # type: ignore[no-any-return]
    return _linalg_cond_helper(self, p)


def _copy_into(out: Tensor, result: Tensor, name: str) -> Tensor:
    """The `*_out` composites: checkLinalgCompatibleDtype, resize_output, copy_."""
    TORCH_CHECK(
        canCast(result.scalar_type(), out.scalar_type()),
        name,
        ": Expected result to be safely castable from ",
        result.scalar_type(),
        " dtype, but got result with dtype ",
        out.scalar_type(),
    )
    if list(out.sizes()) != list(result.sizes()):
        out.resize_(list(result.sizes()))
    return out.copy_(result)  # type: ignore[no-any-return]


@native_function(SOURCE, name="linalg_cond_out", legacy="at::native::linalg_cond_out")
def linalg_cond_out(self: Tensor, p: Any, out: Tensor) -> Tensor:
    return _copy_into(out, at.linalg_cond(self, p), "linalg.cond")


@native_function(SOURCE, name="linalg_cond_p_str_out", legacy="at::native::linalg_cond_out")
def linalg_cond_p_str_out(self: Tensor, p: str, out: Tensor) -> Tensor:
    return _copy_into(out, at.linalg_cond(self, p), "linalg.cond")
