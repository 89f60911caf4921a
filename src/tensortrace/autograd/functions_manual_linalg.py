"""The helpers of derivatives.yaml's linear algebra formulas, with PyTorch's names.

Mirrors `linalg_vector_norm_backward` / `norm_backward` and `linalg_solve_backward` of
`torch/csrc/autograd/FunctionsManual.cpp`. As torch, linalg_solve_backward computes gB with
linalg_lu_solve on the LU factors the forward saved when grad mode is off (a plain backward),
and with linalg_solve(A^H, gX) when it is on (create_graph=True, for higher derivatives).
functions_manual.py imports it into the formulas' namespace.
"""

from __future__ import annotations

from typing import Any

from tensortrace.aten import functions as at
from tensortrace.aten.native.batch_linear_algebra import linalg_solve_is_vector_rhs
from tensortrace.aten.tensor_body import Tensor
from tensortrace.autograd.functions_manual_views import unsqueeze_multiple
from tensortrace.c10.autograd_state import autograd_state
from tensortrace.c10.scalar_type import isComplexType


def linalg_vector_norm_backward(
    grad: Tensor, self: Tensor, ord: Any, norm: Tensor, dim: Any, keepdim: bool
) -> Tensor:
    """The dtype argument needs nothing here: broadcasting casts the gradient back."""
    return norm_backward(grad, self, ord, norm, list(dim) if dim is not None else [], keepdim)


def norm_backward(
    grad: Tensor,
    self: Tensor,
    p_: Any,
    norm: Tensor,
    dim: list[int] | None = None,
    keepdim: bool = True,
) -> Tensor:
    """d||x||_p/dx by the order: sgn(x) for p=1, x/||x|| for p=2 (0 where the norm is 0), the
    maxima's share for p=inf, sgn(x)|x|^(p-1) / ||x||^(p-1) otherwise."""
    dim = [] if dim is None else dim  # the 4-argument overload (dist's formula): every dim
    ndim = self.dim()
    p = 2.0 if p_ is None else float(p_)
    if not keepdim and ndim != 0:
        grad = unsqueeze_multiple(grad, dim, ndim)  # no dims: a 0-dim grad broadcasts
        norm = unsqueeze_multiple(norm, dim, ndim)
    if p == 0.0:
        return Tensor()
    if p == 1.0:
        return self.sgn().mul(grad)
    if p == 2.0:
        return grad.mul(self.div(norm).masked_fill_(norm.eq(0), 0))
    if p in (float("inf"), float("-inf")):
        # the derivative of amax(abs(self)) that respects NaNs: the argmax or a NaN
        self_abs = self.abs()
        mask = self_abs.eq(norm).logical_or(self_abs.isnan())
        return self.sgn().mul(grad.div(mask.sum(dim, True)).mul(mask))
    if p < 1.0:
        self_scaled = self.sgn().mul(self.abs().pow_(p - 1).masked_fill_(self.eq(0), 0))
        return self_scaled.mul(grad).mul(norm.pow(1 - p))
    if p < 2.0:
        self_scaled = self.sgn().mul(self.abs().pow_(p - 1))
    else:
        self_scaled = self.mul(self.abs().pow_(p - 2))
    scale_v = grad.div(norm.pow(p - 1))
    scale_v.masked_fill_(norm.eq(0), 0)
    return self_scaled.mul(scale_v)


def linalg_solve_backward(
    gX: Tensor | None,
    X: Tensor,
    A: Tensor,
    LU: Tensor,
    pivots: Tensor,
    left: bool,
    B_requires_grad: bool,
    A_requires_grad: bool = True,
) -> tuple[Any, Any]:
    """X = A^{-1} B: gB = A^{-H} gX, gA = -gB X^H (left), -X^H gB (right)."""
    if gX is None or (not A_requires_grad and not B_requires_grad):
        return None, None
    vector_case = linalg_solve_is_vector_rhs(LU, X)

    def vector_to_matrix(t: Tensor) -> Tensor:
        return t.unsqueeze(-1) if vector_case else t

    def matrix_to_vector(t: Tensor) -> Tensor:
        return t.squeeze(-1) if vector_case else t

    if autograd_state.grad_mode:  # create_graph: a differentiable re-solve with A^H
        gB_ = at.linalg_solve(A.mH(), vector_to_matrix(gX), left=left)
    else:  # the forward's LU (of A^T when A is real and C-contiguous) solves A^H gB = gX
        use_A_T = A.is_contiguous() and not A.is_complex()
        gB_ = at.linalg_lu_solve(LU, pivots, vector_to_matrix(gX), left=left, adjoint=not use_A_T)
    gB = matrix_to_vector(gB_) if B_requires_grad else None
    if not A_requires_grad:
        return None, gB
    X_ = vector_to_matrix(X)
    gA = at.matmul(gB_, X_.mH()).neg() if left else at.matmul(X_.mH(), gB_).neg()
    if not isComplexType(A.scalar_type()) and gA.is_complex():  # handle_r_to_c
        gA = at.real(gA)
    return gA, gB
