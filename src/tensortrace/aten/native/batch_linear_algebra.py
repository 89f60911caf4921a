"""Batched factorizations and solvers: linalg.inv / inv_ex / inverse, linalg.solve / solve_ex,
linalg.qr, linalg.eigh / eigvalsh, linalg.svd and torch.svd; and linalg.matmul.

Mirrors `aten/src/ATen/native/BatchLinearAlgebra.cpp` (TORCH_META_FUNC / TORCH_IMPL_FUNC of
linalg_inv_ex, _linalg_solve_ex, linalg_qr, _linalg_eigh, _linalg_svd; the composites
linalg_inv, inverse, linalg_solve(_ex), linalg_eigh, linalg_eigvalsh, linalg_svd, svd; and
`_linalg_check_errors`), the checks of `LinearAlgebraUtils.h`, and LinearAlgebra.cpp's
linalg_matmul. The LAPACK calls (getrf / getrs, geqrf + orgqr, syevd, gesdd) are the kernels of
`cpu/batch_linear_algebra_kernel.py`.

Note [Linear algebra outputs are batches of F-contiguous matrices]
LAPACK works on column-major matrices, so the meta functions ask for outputs whose last two
dimensions are column-major (batched_matrix_contiguous_strides(shape, f_contig=True)): an
inverse of shape (2, 3, 3) has strides (9, 1, 3), as in torch. The emulated CUDA device runs
the CPU kernels (no cuSOLVER / MAGMA), so its outputs have the CPU's layouts too.
"""

from __future__ import annotations

from collections.abc import Sequence

from tensortrace.aten import functions as at
from tensortrace.aten.expand_utils import infer_size
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.linalg_norms import checkFloatingOrComplex
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.autograd_state import autograd_state
from tensortrace.c10.exception import TORCH_CHECK, TORCH_INTERNAL_ASSERT, LinAlgError
from tensortrace.c10.scalar_type import ScalarType, toRealValueType
from tensortrace.c10.tensor_options import TensorOptions

SOURCE = "aten/src/ATen/native/BatchLinearAlgebra.cpp"
LINEAR = "aten/src/ATen/native/LinearAlgebra.cpp"
STUBS = "aten/src/ATen/native/BatchLinearAlgebra.h"

# lu_factor_stub's name is det's (linalg_norms.py), so the getrf stub here carries the op's name
lu_factor_ex_stub = DECLARE_DISPATCH("linalg_lu_factor_ex_stub", STUBS)
lu_solve_stub = DECLARE_DISPATCH("lu_solve_stub", STUBS)
geqrf_orgqr_stub = DECLARE_DISPATCH("linalg_qr_stub", STUBS)
linalg_eigh_stub = DECLARE_DISPATCH("linalg_eigh_stub", STUBS)
svd_uv_stub = DECLARE_DISPATCH("linalg_svd_stub", STUBS)


# ---- LinearAlgebraUtils.h ------------------------------------------------------------------------
def batched_matrix_contiguous_strides(sizes: Sequence[int], f_contig: bool = False) -> list[int]:
    """C-contiguous batches of (F-contiguous if f_contig) matrices."""
    strides = [1] * len(sizes)
    for i in range(len(sizes) - 2, -1, -1):
        strides[i] = strides[i + 1] * max(sizes[i + 1], 1)
    if f_contig and len(sizes) >= 2:
        strides[-1] = max(sizes[-2], 1)
        strides[-2] = 1
    return strides


def checkIsMatrix(A: Tensor, f_name: str, arg_name: str = "A") -> None:
    TORCH_CHECK(
        A.dim() >= 2, f_name, ": The input tensor ", arg_name, " must have at least 2 dimensions."
    )


def squareCheckInputs(A: Tensor, f_name: str, arg_name: str = "A") -> None:
    checkIsMatrix(A, f_name, arg_name)
    TORCH_CHECK(
        A.size(-1) == A.size(-2),
        f_name,
        ": ",
        arg_name,
        " must be batches of square matrices, but they are ",
        A.size(-2),
        " by ",
        A.size(-1),
        " matrices",
    )


def checkLowPrecision(A: Tensor, f_name: str) -> None:
    """checkFloatingOrComplex(..., allow_low_precision_dtypes=false)'s second check."""
    dtype = A.scalar_type()
    TORCH_CHECK(
        dtype
        in (ScalarType.Float, ScalarType.Double, ScalarType.ComplexFloat, ScalarType.ComplexDouble),
        f_name,
        ": Low precision dtypes not supported. Got ",
        dtype,
    )


def checkUplo(uplo: str) -> None:
    TORCH_CHECK(
        len(uplo) == 1 and uplo.upper() in ("U", "L"),
        "Expected UPLO argument to be 'L' or 'U', but got ",
        uplo,
    )


def linalg_solve_is_vector_rhs(input: Tensor, other: Tensor) -> bool:
    expected = list(input.sizes())[:-1]
    return other.dim() == 1 or (input.dim() - 1 == other.dim() and list(other.sizes()) == expected)


def _parse_qr_mode(mode: str) -> tuple[bool, bool]:
    """(compute_q, reduced)."""
    if mode == "reduced":
        return True, True
    if mode == "complete":
        return True, False
    TORCH_CHECK(
        mode == "r",
        "qr received unrecognized mode '",
        mode,
        "' but expected one of 'reduced' (default), 'r', or 'complete'",
    )
    return False, True


def _linalg_check_errors(infos: Tensor, api_name: str, is_matrix: bool) -> None:
    """The error LAPACK's `info` stands for, raised as torch.linalg.LinAlgError."""
    TORCH_INTERNAL_ASSERT(infos.scalar_type() == ScalarType.Int)
    values = [int(v) for v in infos.numpy_view().reshape(-1)]  # infos.to(kCPU)
    first = next((i for i, v in enumerate(values) if v != 0), None)
    if first is None:
        return
    info = values[first]
    batch_str = "" if is_matrix else f": (Batch element {first})"
    if info < 0:
        if "svd" in api_name and info == -4:
            raise LinAlgError(
                f"{api_name}{batch_str}: The algorithm failed to converge because the input "
                "matrix contained non-finite values."
            )
        TORCH_INTERNAL_ASSERT(
            False, api_name, batch_str, ": Argument ", -info, " has illegal value."
        )
    if "inv" in api_name:
        raise LinAlgError(
            f"{api_name}{batch_str}: The diagonal element {info} is zero, the inversion could "
            "not be completed because the input matrix is singular."
        )
    if "solve" in api_name:
        raise LinAlgError(
            f"{api_name}{batch_str}: The solver failed because the input matrix is singular."
        )
    if "cholesky" in api_name:
        raise LinAlgError(
            f"{api_name}{batch_str}: The factorization could not be completed because the input "
            f"is not positive-definite (the leading minor of order {info} is not "
            "positive-definite)."
        )
    if "svd" in api_name:
        raise LinAlgError(
            f"{api_name}{batch_str}: The algorithm failed to converge because the input matrix "
            "is ill-conditioned or has too many repeated singular values (error code: "
            f"{info})."
        )
    if "eig" in api_name:
        raise LinAlgError(
            f"{api_name}{batch_str}: The algorithm failed to converge because the input matrix "
            "is ill-conditioned or has too many repeated eigenvalues (error code: "
            f"{info})."
        )
    if "lstsq" in api_name:
        raise LinAlgError(
            f"{api_name}{batch_str}: The least squares solution could not be computed because "
            f"the input matrix does not have full rank (error code: {info})."
        )
    # a plain RuntimeError in torch (TORCH_CHECK, not TORCH_CHECK_LINALG)
    TORCH_CHECK(
        "lu_factor" not in api_name,
        f"{api_name}{batch_str}: U[{info},{info}] is zero and using it on lu_solve would result "
        "in a division by zero. If you still want to perform the factorization, consider "
        "calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)",
    )
    TORCH_INTERNAL_ASSERT(False, api_name, ": Unknown error code: ", info, ".")


def _options(A: Tensor, dtype: ScalarType | None = None) -> TensorOptions:
    return TensorOptions(dtype if dtype is not None else A.scalar_type(), A.device())


# ---- matmul --------------------------------------------------------------------------------------
@native_function(LINEAR, name="linalg_matmul", legacy="at::native::linalg_matmul")
def linalg_matmul(self: Tensor, other: Tensor) -> Tensor:
    return at.matmul(self, other)


@native_function(LINEAR, name="linalg_matmul_out", legacy="at::native::linalg_matmul_out")
def linalg_matmul_out(self: Tensor, other: Tensor, out: Tensor) -> Tensor:
    return at.matmul(self, other, out=out)  # type: ignore[no-any-return]


# ---- inv -----------------------------------------------------------------------------------------
@meta_function("linalg_inv_ex", SOURCE)
def meta_linalg_inv_ex(it: TensorIteratorBase, A: Tensor, check_errors: bool) -> None:
    squareCheckInputs(A, "linalg.inv")
    checkFloatingOrComplex(A, "linalg.inv")
    checkLowPrecision(A, "linalg.inv")
    shape = list(A.sizes())
    it.set_output_raw_strided(0, shape, batched_matrix_contiguous_strides(shape, True), _options(A))
    it.set_output_raw_strided(1, shape[:-2], (), _options(A, ScalarType.Int))


@impl_function("linalg_inv_ex_out", SOURCE, legacy="at::native::linalg_inv_ex_out")
def linalg_inv_ex_out(
    it: TensorIteratorBase, A: Tensor, check_errors: bool, inverse: Tensor, info: Tensor
) -> None:
    # the identity, solved for in place: A X = I
    inverse.zero_()
    inverse.diagonal(0, -2, -1).fill_(1.0)
    at.linalg_solve_ex(A, inverse, left=True, result=inverse, info=info)
    if check_errors:
        _linalg_check_errors(info, "linalg.inv_ex", A.dim() == 2)


@native_function(SOURCE, name="linalg_inv", legacy="at::native::linalg_inv")
def linalg_inv(A: Tensor) -> Tensor:
    result, info = at.linalg_inv_ex(A)
    _linalg_check_errors(info, "linalg.inv", A.dim() == 2)
    return result


@native_function(SOURCE, name="inverse", legacy="at::native::inverse")
def inverse(self: Tensor) -> Tensor:
    return at.linalg_inv(self)


# ---- solve ---------------------------------------------------------------------------------------
@meta_function("_linalg_solve_ex", SOURCE)
def meta__linalg_solve_ex(
    it: TensorIteratorBase, A: Tensor, B: Tensor, left: bool, check_errors: bool
) -> None:
    checkFloatingOrComplex(A, "linalg.solve")
    TORCH_CHECK(
        A.scalar_type() == B.scalar_type(),
        "linalg.solve: Expected A and B to have the same dtype, but found A of type ",
        A.scalar_type(),
        " and B of type ",
        B.scalar_type(),
        " instead",
    )
    vector_case = linalg_solve_is_vector_rhs(A, B)
    B_ = B.unsqueeze(-1) if vector_case else B
    squareCheckInputs(A, "linalg.solve")
    checkIsMatrix(B_, "linalg.solve", "B")
    TORCH_CHECK(
        A.size(-2) == B_.size(-2) if left else A.size(-1) == B_.size(-1),
        "linalg.solve: Incompatible shapes of A and B for the equation ",
        "AX = B" if left else "XA = B",
        " (",
        A.size(-2),
        "x",
        A.size(-1),
        " and ",
        B_.size(-2),
        "x",
        B_.size(-1),
        ")",
    )
    # _linalg_broadcast_batch_dims(B_, A): B's shape with the broadcast batch
    batch = infer_size(list(B_.sizes())[:-2], list(A.sizes())[:-2])
    B_broad_shape = [*batch, *list(B_.sizes())[-2:]]
    TORCH_CHECK(
        left or not vector_case,
        "linalg.solve: Vector broadcasting of the left hand side is not supported for "
        "left=False. In this case linalg.solve is equivalent to B / A.squeeze(-1)",
    )
    result_shape = B_broad_shape[:-1] if vector_case else B_broad_shape
    it.set_output_raw_strided(
        0, result_shape, batched_matrix_contiguous_strides(result_shape, left), _options(B)
    )
    shape = list(A.sizes())
    it.set_output_raw_strided(1, shape, batched_matrix_contiguous_strides(shape, True), _options(A))
    it.set_output_raw_strided(2, shape[:-1], (), _options(A, ScalarType.Int))
    it.set_output_raw_strided(3, shape[:-2], (), _options(A, ScalarType.Int))


@impl_function("_linalg_solve_ex_out", SOURCE, legacy="at::native::_linalg_solve_ex_out")
def _linalg_solve_ex_out(
    it: TensorIteratorBase,
    A: Tensor,
    B: Tensor,
    left: bool,
    check_errors: bool,
    result: Tensor,
    LU: Tensor,
    pivots: Tensor,
    info: Tensor,
) -> None:
    # factor A^T when A is C-contiguous and real: then A^T is F-contiguous, LAPACK's layout,
    # and A X = B is solved as (A^T)^T X = B (adjoint=True), as torch does
    use_A_T = A.is_contiguous() and not A.is_complex()
    lu_factor_ex_stub(A.device().type_, A.mT() if use_A_T else A, LU, pivots, info)
    if check_errors:
        _linalg_check_errors(info, "torch.linalg.solve_ex", A.dim() == 2)
    vector_case = linalg_solve_is_vector_rhs(LU, B)
    result_ = result.unsqueeze(-1) if vector_case else result
    B_ = B.unsqueeze(-1) if vector_case else B
    lu_solve_stub(A.device().type_, LU, pivots, B_, result_, left, use_A_T)


@native_function(SOURCE, name="linalg_solve_ex", legacy="at::native::linalg_solve_ex")
def linalg_solve_ex(
    A: Tensor, B: Tensor, left: bool = True, check_errors: bool = False
) -> tuple[Tensor, Tensor]:
    result, _LU, _pivots, info = at._linalg_solve_ex(A, B, left=left, check_errors=check_errors)
    return result, info


@native_function(SOURCE, name="linalg_solve_ex_out", legacy="at::native::linalg_solve_ex_out")
def linalg_solve_ex_out(
    A: Tensor, B: Tensor, left: bool, check_errors: bool, result: Tensor, info: Tensor
) -> tuple[Tensor, Tensor]:
    LU = B.new_empty([0])
    pivots = B.new_empty([0], dtype=ScalarType.Int)
    at._linalg_solve_ex(
        A,
        B,
        left=left,
        check_errors=check_errors,
        result=result,
        LU=LU,
        pivots=pivots,
        info=info,
    )
    return result, info


@native_function(SOURCE, name="linalg_solve", legacy="at::native::linalg_solve")
def linalg_solve(A: Tensor, B: Tensor, left: bool = True) -> Tensor:
    result, info = at.linalg_solve_ex(A, B, left=left)
    _linalg_check_errors(info, "torch.linalg.solve", A.dim() == 2)
    return result


# ---- qr ------------------------------------------------------------------------------------------
@meta_function("linalg_qr", SOURCE)
def meta_linalg_qr(it: TensorIteratorBase, A: Tensor, mode: str) -> None:
    checkIsMatrix(A, "linalg.qr")
    checkFloatingOrComplex(A, "linalg.qr")
    compute_q, reduced_mode = _parse_qr_mode(mode)
    shape = list(A.sizes())
    m, n = shape[-2], shape[-1]
    k = min(m, n)
    if compute_q:
        Q_shape = [*shape[:-1], k if reduced_mode else m]
        it.set_output_raw_strided(
            0, Q_shape, batched_matrix_contiguous_strides(Q_shape, True), _options(A)
        )
    else:
        it.set_output_raw_strided(0, [0], (), _options(A))
    R_shape = [*shape[:-2], k if (reduced_mode or not compute_q) else m, n]
    it.set_output_raw_strided(
        1, R_shape, batched_matrix_contiguous_strides(R_shape, True), _options(A)
    )


@impl_function("linalg_qr_out", SOURCE, legacy="at::native::linalg_qr_out")
def linalg_qr_out(it: TensorIteratorBase, A: Tensor, mode: str, Q: Tensor, R: Tensor) -> None:
    compute_q, reduced_mode = _parse_qr_mode(mode)
    geqrf_orgqr_stub(A.device().type_, A, Q, R, compute_q, reduced_mode)


# ---- eigh ----------------------------------------------------------------------------------------
@meta_function("_linalg_eigh", SOURCE)
def meta__linalg_eigh(it: TensorIteratorBase, A: Tensor, UPLO: str, compute_v: bool) -> None:
    squareCheckInputs(A, "linalg.eigh")
    checkUplo(UPLO)
    shape = list(A.sizes())
    if compute_v:
        it.set_output_raw_strided(
            1, shape, batched_matrix_contiguous_strides(shape, True), _options(A)
        )
    else:
        it.set_output_raw_strided(1, [0], (), _options(A))
    real = toRealValueType(A.scalar_type())
    it.set_output_raw_strided(0, shape[:-1], (), _options(A, real))


@impl_function("_linalg_eigh_out", SOURCE, legacy="at::native::_linalg_eigh_out")
def _linalg_eigh_out(
    it: TensorIteratorBase,
    A: Tensor,
    UPLO: str,
    compute_v: bool,
    eigenvalues: Tensor,
    eigenvectors: Tensor,
) -> None:
    linalg_eigh_stub(A.device().type_, A, eigenvalues, eigenvectors, UPLO.upper(), compute_v)


@native_function(SOURCE, name="linalg_eigh", legacy="at::native::linalg_eigh")
def linalg_eigh(self: Tensor, UPLO: str = "L") -> tuple[Tensor, Tensor]:
    return at._linalg_eigh(self, UPLO, True)  # type: ignore[no-any-return]


def _may_require_fw_or_bw_grad(input: Tensor) -> bool:
    """GradMode::is_enabled() && input.requires_grad() (no forward AD here)."""
    return autograd_state.grad_mode and input.requires_grad()


@native_function(SOURCE, name="linalg_eigvalsh", legacy="at::native::linalg_eigvalsh")
def linalg_eigvalsh(self: Tensor, UPLO: str = "L") -> Tensor:
    return at._linalg_eigh(self, UPLO, _may_require_fw_or_bw_grad(self))[0]  # type: ignore[no-any-return]


# ---- svd -----------------------------------------------------------------------------------------
@meta_function("_linalg_svd", SOURCE)
def meta__linalg_svd(
    it: TensorIteratorBase, A: Tensor, full_matrices: bool, compute_uv: bool, driver: str | None
) -> None:
    checkIsMatrix(A, "linalg.svd")
    checkFloatingOrComplex(A, "linalg.svd")
    sizes = list(A.sizes())
    m, n = sizes[-2], sizes[-1]
    k = min(m, n)
    if compute_uv:
        U_shape = [*sizes[:-1], m if full_matrices else k]
        it.set_output_raw_strided(
            0, U_shape, batched_matrix_contiguous_strides(U_shape, True), _options(A)
        )
        Vh_shape = [*sizes[:-2], n if full_matrices else k, n]
        it.set_output_raw_strided(
            2, Vh_shape, batched_matrix_contiguous_strides(Vh_shape, True), _options(A)
        )
    else:
        it.set_output_raw_strided(0, [0], (), _options(A))
        it.set_output_raw_strided(2, [0], (), _options(A))
    real = toRealValueType(A.scalar_type())
    it.set_output_raw_strided(1, [*sizes[:-2], k], (), _options(A, real))


@impl_function("_linalg_svd_out", SOURCE, legacy="at::native::_linalg_svd_out")
def _linalg_svd_out(
    it: TensorIteratorBase,
    A: Tensor,
    full_matrices: bool,
    compute_uv: bool,
    driver: str | None,
    U: Tensor,
    S: Tensor,
    Vh: Tensor,
) -> None:
    # the emulated CUDA device has no cuSOLVER: driver= is refused there too
    TORCH_CHECK(
        driver is None,
        "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with "
        "cuSOLVER backend.",
    )
    if A.numel() == 0:  # no LAPACK call: U and Vh of a full SVD are identities
        if compute_uv and full_matrices:
            for t in (U, Vh):
                if t.numel() != 0:
                    t.zero_()
                    t.diagonal(0, -2, -1).fill_(1.0)
        return
    info = at.empty(list(A.sizes())[:-2], dtype=ScalarType.Int, device=A.device())
    svd_uv_stub(A.device().type_, A, full_matrices, compute_uv, U, S, Vh, info)
    _linalg_check_errors(info, "linalg.svd", A.dim() == 2)


@native_function(SOURCE, name="linalg_svd", legacy="at::native::linalg_svd")
def linalg_svd(
    A: Tensor, full_matrices: bool = True, driver: str | None = None
) -> tuple[Tensor, Tensor, Tensor]:
    return at._linalg_svd(A, full_matrices, True, driver=driver)  # type: ignore[no-any-return]


@native_function(SOURCE, name="svd", legacy="at::native::svd")
def svd(self: Tensor, some: bool = True, compute_uv: bool = True) -> tuple[Tensor, Tensor, Tensor]:
    TORCH_CHECK(
        self.dim() >= 2,
        "linalg.svd: input should have at least 2 dimensions, but has ",
        self.dim(),
        " dimensions instead",
    )
    if compute_uv:
        U, S, Vh = at.linalg_svd(self, full_matrices=not some)
    else:
        S = at.linalg_svdvals(self)
        # U and Vh of size (m, m) and (n, n), full of zeros
        sizes = list(self.sizes())
        m, n = sizes[-2], sizes[-1]
        U = at.zeros([*sizes[:-1], m], dtype=self.scalar_type(), device=self.device())
        Vh = at.zeros([*sizes[:-2], n, n], dtype=self.scalar_type(), device=self.device())
    return U, S, Vh.mH()
