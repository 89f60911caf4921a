"""Least squares and pseudo-inverses: linalg.lstsq, linalg.pinv / torch.pinverse and
linalg.matrix_rank.

Mirrors `aten/src/ATen/native/BatchLinearAlgebra.cpp` (linalg_lstsq, linalg_lstsq_out with
get_default_lstsq_driver and linalg_lstsq_out_info: a solution buffer of max(m, n) rows whose
rows n: give the residuals, restrided to its first n rows) and `LinearAlgebra.cpp`
(get_atol_rtol, linalg_pinv through svd or eigh, matrix_rank_impl). The LAPACK drivers are
`cpu/batch_linear_algebra_kernel_lstsq.py`'s.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.expand_utils import infer_size
from tensortrace.aten.native.batch_linear_algebra import (
    _linalg_check_errors,
    checkIsMatrix,
    linalg_solve_is_vector_rhs,
)
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.linear_algebra_det import _copy_into
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType, canCast, isComplexType, toRealValueType

BATCH = "aten/src/ATen/native/BatchLinearAlgebra.cpp"
LINEAR = "aten/src/ATen/native/LinearAlgebra.cpp"

lstsq_stub = DECLARE_DISPATCH("lstsq_stub", "aten/src/ATen/native/BatchLinearAlgebra.h")


def _get_epsilon(sc_type: ScalarType) -> float:
    TORCH_CHECK(
        sc_type in (ScalarType.Float, ScalarType.Double),
        "This function doesn't handle types other than float and double",
    )
    return float(np.finfo(np.float32 if sc_type == ScalarType.Float else np.float64).eps)


def checkNotComplexTolerance(tol: Tensor, f_name: str, tol_name: str) -> None:
    TORCH_CHECK(
        not isComplexType(tol.scalar_type()),
        f_name,
        ": ",
        tol_name,
        " tensor of complex type is not supported. Got ",
        tol.scalar_type(),
    )


def checkLinalgCompatibleDtype(
    fn_name: str, out_type: ScalarType, result_type: ScalarType, out_name: str = "result"
) -> None:
    TORCH_CHECK(
        canCast(result_type, out_type),
        fn_name,
        ": Expected ",
        out_name,
        " to be safely castable from ",
        result_type,
        " dtype, but got ",
        out_name,
        " with dtype ",
        out_type,
    )


# ---- tolerances ----------------------------------------------------------------------------------
def _double(input: Tensor, value: float) -> Tensor:
    return at.full([], value, dtype=ScalarType.Double, device=input.device())  # type: ignore[no-any-return]


def get_atol_rtol(input: Tensor, atol: Any, rtol: Any, function_name: str) -> tuple[Tensor, Tensor]:
    """atol defaults to 0, rtol to eps * max(m, n), or to 0 when a positive atol is given.
    Both overloads: tolerances as tensors (checked not complex) or as floats."""
    default_rtol = _get_epsilon(toRealValueType(input.scalar_type())) * max(
        input.size(-1), input.size(-2)
    )
    if isinstance(atol, Tensor) or isinstance(rtol, Tensor) or (atol is None and rtol is None):
        atol_t = atol if atol is not None else _double(input, 0.0)
        checkNotComplexTolerance(atol_t, function_name, "atol")
        if rtol is not None:
            checkNotComplexTolerance(rtol, function_name, "rtol")
            return atol_t, rtol
        default = _double(input, default_rtol)
        if atol is None:
            return atol_t, default
        return atol_t, at.where(atol.gt(0), _double(input, 0.0), default)
    atol_f = 0.0 if atol is None else float(atol)
    if rtol is not None:
        rtol_f = float(rtol)
    else:
        rtol_f = 0.0 if (atol is not None and atol_f > 0.0) else default_rtol
    return _double(input, atol_f), _double(input, rtol_f)


# ---- pinv ----------------------------------------------------------------------------------------
@native_function(LINEAR, name="linalg_pinv", legacy="at::native::linalg_pinv")
def linalg_pinv(
    self: Tensor,
    atol: Any = None,
    rtol: Any = None,
    hermitian: bool = False,
    rcond: Any = None,
) -> Tensor:
    """All overloads: atol / rtol as tensors (the one that computes), as floats, or NumPy's
    rcond (a relative tolerance)."""
    input = self
    if rcond is not None:  # the rcond overloads: rtol=rcond, atol=0
        if isinstance(rcond, Tensor):
            checkNotComplexTolerance(rcond, "torch.linalg.pinv", "rcond")
        else:
            rcond = _double(input, float(rcond))
        return at.linalg_pinv(input, atol=_double(input, 0.0), rtol=rcond, hermitian=hermitian)  # type: ignore[no-any-return]
    t = input.scalar_type()
    TORCH_CHECK(
        t
        in (ScalarType.Double, ScalarType.Float, ScalarType.ComplexFloat, ScalarType.ComplexDouble)
        and input.dim() >= 2,
        "linalg.pinv(",
        t,
        "{",
        input.sizes(),
        "}): expected a tensor with 2 or more dimensions of float, double, cfloat or cdouble types",
    )
    if (
        not isinstance(atol, Tensor)
        and not isinstance(rtol, Tensor)
        and (atol, rtol) != (None, None)
    ):
        atol_t, rtol_t = get_atol_rtol(input, atol, rtol, "torch.linalg.pinv")
        return at.linalg_pinv(input, atol=atol_t, rtol=rtol_t, hermitian=hermitian)  # type: ignore[no-any-return]
    atol_t, rtol_t = get_atol_rtol(input, atol, rtol, "torch.linalg.pinv")
    if input.numel() == 0:  # the formulas below need elements: V S^-1 U^H of the empty SVD
        U, S, V = input.svd()
        return at.matmul(V.mul(S.reciprocal().unsqueeze(-2)), U.mH())  # type: ignore[no-any-return]
    zero = at.zeros([], dtype=toRealValueType(t), device=input.device())
    if not hermitian:
        U, S, V = input.svd()
        max_val = S.narrow(-1, 0, 1)  # singular values come sorted, largest first
        tol = at.maximum(atol_t.unsqueeze(-1), rtol_t.unsqueeze(-1).mul(max_val))
        S_pseudoinv = at.where(S.gt(tol), S.reciprocal(), zero).to(t)
        return at.matmul(V.mul(S_pseudoinv.unsqueeze(-2)), U.mH())  # type: ignore[no-any-return]
    S, U = at.linalg_eigh(input)
    S_abs = S.abs()  # |eigenvalues| are the singular values of a Hermitian matrix
    max_val = S_abs.amax([-1], True)
    tol = at.maximum(atol_t.unsqueeze(-1), rtol_t.unsqueeze(-1).mul(max_val))
    S_pseudoinv = at.where(S_abs.gt(tol), S.reciprocal(), zero).to(t)
    return at.matmul(U.mul(S_pseudoinv.unsqueeze(-2)), U.mH())  # type: ignore[no-any-return]


@native_function(LINEAR, name="linalg_pinv_out", legacy="at::native::linalg_pinv_out")
def linalg_pinv_out(
    self: Tensor,
    out: Tensor,
    atol: Any = None,
    rtol: Any = None,
    hermitian: bool = False,
    rcond: Any = None,
) -> Tensor:
    if rcond is not None:
        result = at.linalg_pinv(self, rcond, hermitian)
    else:
        result = at.linalg_pinv(self, atol=atol, rtol=rtol, hermitian=hermitian)
    return _copy_into(out, result, "linalg.pinv")


@native_function(LINEAR, name="pinverse", legacy="at::native::pinverse")
def pinverse(self: Tensor, rcond: float = 1e-15) -> Tensor:
    return at.linalg_pinv(self, rcond, False)  # type: ignore[no-any-return]


# ---- matrix_rank ---------------------------------------------------------------------------------
def matrix_rank_impl(input: Tensor, atol: Tensor, rtol: Tensor, hermitian: bool) -> Tensor:
    """The number of singular values (|eigenvalues|) above max(atol, rtol * their largest)."""
    checkIsMatrix(input, "torch.linalg.matrix_rank", "input")
    checkNotComplexTolerance(atol, "torch.linalg.matrix_rank", "atol")
    checkNotComplexTolerance(rtol, "torch.linalg.matrix_rank", "rtol")
    if input.numel() == 0:  # NumPy errors here; a matrix with no elements has rank 0
        return at.zeros(list(input.sizes())[:-2], dtype=ScalarType.Long, device=input.device())  # type: ignore[no-any-return]
    if not hermitian:
        S = at.linalg_svdvals(input)
        max_S = S.narrow(-1, 0, 1)
    else:
        S = at.linalg_eigvalsh(input).abs()
        max_S = S.amax([-1], True)
    tol = at.maximum(atol.unsqueeze(-1), rtol.unsqueeze(-1).mul(max_S))
    return at.sum(S.gt(tol), [-1])  # type: ignore[no-any-return]


@native_function(LINEAR, name="linalg_matrix_rank", legacy="at::native::linalg_matrix_rank")
def linalg_matrix_rank(
    input: Tensor, atol: Any = None, rtol: Any = None, hermitian: bool = False, tol: Any = None
) -> Tensor:
    """The overloads of `input`: atol / rtol tensors, or an absolute tolerance tensor `tol`."""
    checkIsMatrix(input, "torch.linalg.matrix_rank", "input")
    if tol is not None:  # NumPy's tol: absolute, not scaled by the largest singular value
        return matrix_rank_impl(
            input, tol, at.zeros([], dtype=tol.scalar_type(), device=tol.device()), hermitian
        )
    atol_t, rtol_t = get_atol_rtol(input, atol, rtol, "torch.linalg.matrix_rank")
    return matrix_rank_impl(input, atol_t, rtol_t, hermitian)


@native_function(LINEAR, name="linalg_matrix_rank", legacy="at::native::linalg_matrix_rank")
def linalg_matrix_rank_self(
    self: Tensor, atol: Any = None, rtol: Any = None, hermitian: bool = False, tol: Any = None
) -> Tensor:
    """The overloads of `self`: float atol / rtol, or a float absolute tolerance `tol`."""
    checkIsMatrix(self, "torch.linalg.matrix_rank", "input")
    if tol is not None:
        atol, rtol = tol, 0.0
    atol_t, rtol_t = get_atol_rtol(self, atol, rtol, "torch.linalg.matrix_rank")
    return matrix_rank_impl(self, atol_t, rtol_t, hermitian)


@native_function(LINEAR, name="linalg_matrix_rank_out", legacy="at::native::linalg_matrix_rank_out")
def linalg_matrix_rank_out(
    input: Tensor,
    out: Tensor,
    atol: Any = None,
    rtol: Any = None,
    hermitian: bool = False,
    tol: Any = None,
) -> Tensor:
    checkLinalgCompatibleDtype("torch.linalg.matrix_rank", out.scalar_type(), ScalarType.Long)
    return _copy_into(out, linalg_matrix_rank(input, atol, rtol, hermitian, tol), "matrix_rank")


@native_function(LINEAR, name="linalg_matrix_rank_out", legacy="at::native::linalg_matrix_rank_out")
def linalg_matrix_rank_self_out(
    self: Tensor,
    out: Tensor,
    atol: Any = None,
    rtol: Any = None,
    hermitian: bool = False,
    tol: Any = None,
) -> Tensor:
    checkLinalgCompatibleDtype("torch.linalg.matrix_rank", out.scalar_type(), ScalarType.Long)
    result = linalg_matrix_rank_self(self, atol, rtol, hermitian, tol)
    return _copy_into(out, result, "matrix_rank")


# ---- lstsq ---------------------------------------------------------------------------------------
def get_default_lstsq_driver(driver: str | None, input: Tensor) -> str:
    """gelsy on the CPU, gels on CUDA (the only one cuSOLVER / MAGMA have)."""
    if driver is None:
        return "gels" if input.device().is_cuda() else "gelsy"
    driver_str = driver.lower()
    if input.device().is_cpu():
        TORCH_CHECK(
            driver_str in ("gels", "gelsy", "gelsd", "gelss"),
            "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)",
        )
    else:
        TORCH_CHECK(
            driver_str == "gels",
            "torch.linalg.lstsq: `driver` other than `gels` is not supported on CUDA",
        )
    return driver_str


@native_function(BATCH, name="linalg_lstsq_out", legacy="at::native::linalg_lstsq_out")
def linalg_lstsq_out(
    self: Tensor,
    b: Tensor,
    rcond: float | None,
    driver: str | None,
    solution: Tensor,
    residuals: Tensor,
    rank: Tensor,
    singular_values: Tensor,
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    input, other = self, b
    TORCH_CHECK(input.dim() >= 2, "torch.linalg.lstsq: input must have at least 2 dimensions.")
    TORCH_CHECK(other.dim() >= 1, "torch.linalg.lstsq: other must have at least 1 dimension.")
    TORCH_CHECK(
        input.scalar_type() == other.scalar_type(),
        "torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's "
        "dtype ",
        input.scalar_type(),
        " and other's dtype ",
        other.scalar_type(),
    )
    dim_diff = input.dim() - other.dim()
    TORCH_CHECK(
        0 <= dim_diff <= 1,
        "torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and "
        "(input.dim() - other.dim()) <= 1",
    )
    other_2d = other.unsqueeze(-1) if dim_diff else other
    TORCH_CHECK(
        input.size(-2) == other_2d.size(-2),
        "torch.linalg.lstsq: input.size(-2) should match other.size(-1)"
        if dim_diff
        else "torch.linalg.lstsq: input.size(-2) should match other.size(-2)",
    )
    real_dtype = toRealValueType(input.scalar_type())
    checkLinalgCompatibleDtype(
        "torch.linalg.lstsq", solution.scalar_type(), input.scalar_type(), "solution"
    )
    checkLinalgCompatibleDtype(
        "torch.linalg.lstsq", residuals.scalar_type(), real_dtype, "solution"
    )
    checkLinalgCompatibleDtype("torch.linalg.lstsq", rank.scalar_type(), ScalarType.Long, "rank")
    checkLinalgCompatibleDtype(
        "torch.linalg.lstsq", singular_values.scalar_type(), real_dtype, "singular_values"
    )
    driver_name = get_default_lstsq_driver(driver, input)
    m, n = input.size(-2), input.size(-1)
    rcond_value = rcond if rcond is not None else _get_epsilon(real_dtype) * max(m, n)
    vector_case = linalg_solve_is_vector_rhs(input, other)
    other_2d = other.unsqueeze(-1) if vector_case else other
    batch = infer_size(list(input.sizes())[:-2], list(other_2d.sizes())[:-2])
    nrhs = other_2d.size(-1)
    infos = at.zeros([max(1, int(np.prod(batch)))], dtype=ScalarType.Int, device=input.device())
    # the solution buffer: max(m, n) rows, F-contiguous, B in its first m rows
    rows = max(m, n)
    solution.resize_([*batch, nrhs, rows])
    solution.transpose_(-2, -1)
    solution.zero_()
    solution.narrow(-2, 0, m).copy_(other_2d.expand([*batch, m, nrhs]))
    A = input.expand([*batch, m, n]).mT().contiguous().mT()  # copyBatchedColumnMajor
    computes_rank = driver_name != "gels"
    computes_sv = driver_name in ("gelsd", "gelss")
    rank.resize_(batch if computes_rank else [0])
    singular_values.resize_([*batch, min(m, n)] if computes_sv else [0])
    lstsq_stub(
        input.device().type_, A, solution, rank, singular_values, infos, rcond_value, driver_name
    )
    residuals.resize_([0])
    if m > n and driver_name != "gelsy":
        # gelsd / gelss leave valid residuals only where the rank is full: all or nothing here
        compute_residuals = not computes_sv or int(rank.sum().item()) == rank.numel() * n
        if compute_residuals:  # the squares of rows n: of the buffer, summed
            raw = solution.narrow(-2, n, m - n)
            raw = at.real(raw.mul(raw.conj())) if raw.is_complex() else raw.pow(2)
            at.sum(raw, [-2], False, dtype=real_dtype, out=residuals)
    view = solution.narrow(-2, 0, n)
    solution.as_strided_(list(view.sizes()), list(view.strides()), view.storage_offset())
    if m == 0:
        solution.zero_()
    if vector_case:
        solution.squeeze_(-1)
    _linalg_check_errors(infos, "torch.linalg.lstsq", infos.numel() <= 1)
    return solution, residuals, rank, singular_values


@native_function(BATCH, name="linalg_lstsq", legacy="at::native::linalg_lstsq")
def linalg_lstsq(
    self: Tensor, b: Tensor, rcond: float | None = None, driver: str | None = None
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    real = toRealValueType(self.scalar_type())
    device = self.device()
    solution = at.empty([0], dtype=self.scalar_type(), device=device)
    residuals = at.empty([0], dtype=real, device=device)
    rank = at.empty([0], dtype=ScalarType.Long, device=device)
    singular_values = at.empty([0], dtype=real, device=device)
    return at.linalg_lstsq(  # type: ignore[no-any-return]
        self,
        b,
        rcond,
        driver=driver,
        solution=solution,
        residuals=residuals,
        rank=rank,
        singular_values=singular_values,
    )
