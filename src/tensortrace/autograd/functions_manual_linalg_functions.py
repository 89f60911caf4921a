"""The backward formulas of the matrix functions, with PyTorch's names: linalg_det_backward,
slogdet_backward, pinv_backward, linalg_lstsq_backward and linalg_matrix_exp_differential (with
prod_safe_zeros_backward and masked_fmap, which det's singular case uses).

Mirrors those functions of `torch/csrc/autograd/FunctionsManual.cpp`, op for op.
functions_manual.py imports them into the formulas' namespace.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tensortrace.aten import functions as at
from tensortrace.aten.native.batch_linear_algebra import linalg_solve_is_vector_rhs
from tensortrace.aten.tensor_body import Tensor
from tensortrace.autograd.functions_manual_decompositions import _defined
from tensortrace.c10.autograd_state import autograd_state
from tensortrace.c10.scalar_type import ScalarType, toRealValueType


def _epsilon(t: ScalarType) -> float:
    return (
        1.1920928955078125e-07 if toRealValueType(t) == ScalarType.Float else 2.220446049250313e-16
    )


def prod_safe_zeros_backward(grad: Tensor, inp: Tensor, dim: int) -> Tensor:
    """d prod / d x_i as the product of the others (exclusive cumprods), safe for zeros."""
    if inp.numel() == 0:
        return grad.expand_as(inp)  # type: ignore[no-any-return]
    size = inp.size(dim)
    ones_size = list(inp.sizes())
    ones_size[dim] = 1
    ones = at.ones(ones_size, dtype=grad.scalar_type(), device=grad.device())
    exclusive_normal = at.cat([ones, inp.narrow(dim, 0, size - 1)], dim).cumprod(dim)
    narrow_reverse = inp.narrow(dim, 1, size - 1).flip([dim])
    exclusive_reverse = at.cat([ones, narrow_reverse], dim).cumprod(dim).flip([dim])
    return grad.mul(exclusive_normal.mul(exclusive_reverse).conj())  # type: ignore[no-any-return]


def masked_fmap(
    mask: Tensor, f1: Callable[..., Tensor], f2: Callable[..., Tensor], t: Tensor, *ts: Tensor
) -> Tensor:
    """f1 where mask (over the batch), f2 elsewhere."""
    n = int(mask.sum().item())
    if n == mask.numel():
        return f1(t, *ts)
    if n == 0:
        return f2(t, *ts)
    not_mask = mask.logical_not()
    ret = at.empty_like(t)
    ret.index_put_([mask], f1(t.index([mask]), *(x.index([mask]) for x in ts)))
    ret.index_put_([not_mask], f2(t.index([not_mask]), *(x.index([not_mask]) for x in ts)))
    return ret  # type: ignore[no-any-return]


# ---- det / slogdet -------------------------------------------------------------------------------
def linalg_det_backward(
    grad: Any, det: Tensor, A: Tensor, LU: Tensor, pivots: Tensor
) -> Tensor | None:
    """G solves A^H G = conj(det) grad I: the cofactor matrix, scaled."""
    grad = _defined(grad)
    if grad is None or A.numel() == 0:
        return None
    d_diag = grad.mul(det.conj())
    # F-transposed, as lu_solve wants it
    d = at.diag_embed(d_diag.unsqueeze(-1).expand_as(pivots)).mT()
    eps = _epsilon(LU.scalar_type())
    if not autograd_state.grad_mode:
        # det is C^1: a zero pivot perturbed by eps gives the limit for a singular A
        LU_ = LU.add(at.diag_embed(at.where(LU.diagonal(0, -2, -1).eq(0.0), eps, 0.0)))
        use_A_T = A.is_contiguous() and not A.is_complex()
        return at.linalg_lu_solve(LU_, pivots, d, left=True, adjoint=not use_A_T)  # type: ignore[no-any-return]

    # create_graph: recompute differentiably, through the SVD for (near) singular matrices
    def non_singular(A: Tensor, d: Tensor, grad: Tensor) -> Tensor:
        return at.linalg_solve(A.mH(), d)  # type: ignore[no-any-return]

    def singular(A: Tensor, d: Tensor, grad: Tensor) -> Tensor:
        U, S, Vh = at.linalg_svd(A)
        alpha = at.linalg_det(U).mul(at.linalg_det(Vh)).conj().mul(grad)
        D = prod_safe_zeros_backward(alpha.unsqueeze(-1), S, S.dim() - 1)
        return U.mul(D.unsqueeze(-2)).matmul(Vh)  # type: ignore[no-any-return]

    return masked_fmap(det.abs().lt(100.0 * eps), singular, non_singular, A, d, grad)


def slogdet_backward(
    grad_sign: Any, grad_logabsdet: Any, A: Tensor, signdet: Tensor, LU: Tensor, pivots: Tensor
) -> Tensor | None:
    """(g_abs - i Im(conj(g_sign) sgn)) A^-H; the sign of a real matrix has no gradient."""
    grad_sign, grad_logabsdet = _defined(grad_sign), _defined(grad_logabsdet)
    if grad_sign is None and grad_logabsdet is None:
        return None
    is_complex = A.is_complex()
    if not is_complex and grad_logabsdet is None:
        return None
    g = grad_logabsdet
    if is_complex:
        if grad_sign is not None:
            term = at.imag(grad_sign.conj().mul(signdet)).mul(1j)
            g = g.sub(term) if g is not None else term.neg()
        else:
            assert g is not None
            g = g.to(A.scalar_type())
    assert g is not None
    d = at.diag_embed(g.unsqueeze(-1).expand_as(pivots)).mT()
    if not autograd_state.grad_mode:
        use_A_T = A.is_contiguous() and not A.is_complex()
        return at.linalg_lu_solve(LU, pivots, d, left=True, adjoint=not use_A_T)  # type: ignore[no-any-return]
    return at.linalg_solve(A.mH(), d)  # type: ignore[no-any-return]


# ---- pinv / lstsq --------------------------------------------------------------------------------
def pinv_backward(grad: Tensor, pinvA: Tensor, A: Tensor) -> Tensor:
    """The differential of the pseudo-inverse (Golub and Pereyra), transposed; matrices of
    the smaller of A's dimensions where possible."""
    m, n = A.size(-2), A.size(-1)
    pinvAh = pinvA.mH()
    gradh = grad.mH()
    if m <= n:
        K = gradh.matmul(pinvA)
        KpinvAh = K.matmul(pinvAh)
        return (  # type: ignore[no-any-return]
            pinvA.matmul(K)
            .mH()
            .neg()
            .add(KpinvAh)
            .sub(A.matmul(pinvA).matmul(KpinvAh))
            .add(pinvAh.matmul(pinvA).matmul(gradh.sub(K.matmul(A))))
        )
    K = pinvA.matmul(gradh)
    pinvAhK = pinvAh.matmul(K)
    return (  # type: ignore[no-any-return]
        K.matmul(pinvA)
        .mH()
        .neg()
        .add(gradh.sub(A.matmul(K)).matmul(pinvA).matmul(pinvAh))
        .add(pinvAhK)
        .sub(pinvAhK.matmul(pinvA).matmul(A))
    )


def linalg_lstsq_backward(
    gX_: Any, gL_: Any, A: Tensor, B_: Tensor, X_: Tensor, grad_input_mask: list[bool]
) -> tuple[Tensor | None, Tensor | None]:
    """Through pinv(A) for the solution, and 2 (A X - B) for the residuals."""
    gX_, gL_ = _defined(gX_), _defined(gL_)
    A_requires_grad, B_requires_grad = grad_input_mask[0], grad_input_mask[1]
    gL_numel = gL_.numel() if gL_ is not None else 0
    if (gX_ is None and not gL_numel) or not (A_requires_grad or B_requires_grad):
        return None, None
    vector_case = linalg_solve_is_vector_rhs(A, B_)

    def vector_to_matrix(t: Tensor) -> Tensor:
        return t.unsqueeze(-1) if vector_case else t

    def matrix_to_vector(t: Tensor) -> Tensor:
        return t.squeeze(-1) if vector_case else t

    B = vector_to_matrix(B_)
    A_grad_X = B_grad_X = A_grad = B_grad = None
    if gX_ is not None:  # the solution's gradient
        gX = vector_to_matrix(gX_)
        pinvA = at.linalg_pinv(A)
        if A_requires_grad:
            A_grad_X = pinv_backward(gX.matmul(B.mH()), pinvA, A)
        if B_requires_grad:  # lstsq(A^H, gX) but deterministic, unlike gelsy
            B_grad_X = matrix_to_vector(pinvA.mH().matmul(gX))
    if gL_numel:  # the residuals' gradient
        assert gL_ is not None
        X = vector_to_matrix(X_)
        r = A.matmul(X).sub(B)
        gL = gL_.unsqueeze(-2)
        if A_requires_grad:
            A_grad_L = gL.mul(r).matmul(X.mH()).mul(2)
            A_grad = A_grad_X.add(A_grad_L) if A_grad_X is not None else A_grad_L
        if B_requires_grad:
            B_grad_L = matrix_to_vector(gL.mul(r).mul(-2))
            B_grad = B_grad_X.add(B_grad_L) if B_grad_X is not None else B_grad_L
    else:
        A_grad, B_grad = A_grad_X, B_grad_X
    return A_grad, B_grad


# ---- matrix_exp ----------------------------------------------------------------------------------
def linalg_matrix_exp_differential(self: Tensor, grad: Tensor, adjoint: bool) -> Tensor:
    """Mathias (1996): f([[A, E], [0, A]]) has the differential of f at A along E in its
    upper-right block; A^H for the adjoint (backward AD)."""
    A = self.transpose(-2, -1).conj() if adjoint else self
    n = A.size(-1)
    sizes = list(A.sizes())
    sizes[-2] *= 2
    sizes[-1] *= 2
    meta_grad = at.zeros(sizes, dtype=grad.scalar_type(), device=grad.device())
    meta_grad.narrow(-2, 0, n).narrow(-1, 0, n).copy_(A)
    meta_grad.narrow(-2, n, n).narrow(-1, n, n).copy_(A)
    meta_grad.narrow(-2, 0, n).narrow(-1, n, n).copy_(grad)
    return at.linalg_matrix_exp(meta_grad).narrow(-2, 0, n).narrow(-1, n, n)  # type: ignore[no-any-return]
