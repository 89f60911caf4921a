"""The helpers of derivatives.yaml's linear algebra formulas, with PyTorch's names.

Mirrors `linalg_solve_backward` of `torch/csrc/autograd/FunctionsManual.cpp`. torch computes
gB with linalg_lu_solve on the saved LU factors when grad mode is off (a plain backward) and
with linalg_solve(A^H, gX) when it is on (create_graph=True, for higher derivatives); tensortrace
has no linalg_lu_solve op, so it always takes the second path: the same gradient to rounding,
with a fresh factorization in the trace. functions_manual.py imports it into the formulas'
namespace.
"""

from __future__ import annotations

from typing import Any

from tensortrace.aten import functions as at
from tensortrace.aten.native.batch_linear_algebra import linalg_solve_is_vector_rhs
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.scalar_type import isComplexType


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

    gB_ = at.linalg_solve(A.mH(), vector_to_matrix(gX), left=left)
    gB = matrix_to_vector(gB_) if B_requires_grad else None
    if not A_requires_grad:
        return None, gB
    X_ = vector_to_matrix(X)
    gA = at.matmul(gB_, X_.mH()).neg() if left else at.matmul(X_.mH(), gB_).neg()
    if not isComplexType(A.scalar_type()) and gA.is_complex():  # handle_r_to_c
        gA = at.real(gA)
    return gA, gB
