"""The backward formulas of the matrix decompositions and triangular solves, with PyTorch's
names: svd_backward, linalg_qr_backward, linalg_eig_backward (eigh's too), cholesky_backward,
cholesky_inverse_backward, cholesky_solve_backward, linalg_solve_triangular_backward,
triangular_solve_backward, linalg_lu_backward, lu_factor_ex_backward, lu_unpack_backward and
linalg_lu_solve_LU.

Mirrors those functions of `torch/csrc/autograd/FunctionsManual.cpp`, op for op, so a backward
pass traces the same aten calls. The gradients of the outputs a loss does not use arrive as
None (an undefined Tensor in C++); `_defined` folds both into None. functions_manual.py
imports them into the formulas' namespace.
"""

from __future__ import annotations

from typing import Any

from tensortrace.aten import functions as at
from tensortrace.aten.native.batch_linear_algebra import _parse_qr_mode
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK


def _defined(t: Any) -> Tensor | None:
    return t if isinstance(t, Tensor) and t.defined() else None


def _solve_tri(A: Tensor, B: Tensor, upper: bool, left: bool = True, unit: bool = False) -> Tensor:
    return at.linalg_solve_triangular(A, B, upper=upper, left=left, unitriangular=unit)  # type: ignore[no-any-return]


# ---- svd -----------------------------------------------------------------------------------------
def linalg_svd_backward(
    gU: Any, gS: Any, gVh: Any, U: Tensor, S: Tensor, Vh: Tensor, full_matrices: bool
) -> Tensor | None:
    """derivatives.yaml's _linalg_svd entry: a full SVD's extra columns carry no gradient."""
    gU, gVh = _defined(gU), _defined(gVh)
    k = S.size(-1)
    if full_matrices:
        gU = gU.narrow(-1, 0, k) if gU is not None else None
        gVh = gVh.narrow(-2, 0, k) if gVh is not None else None
        U = U.narrow(-1, 0, k) if U.numel() else U
        Vh = Vh.narrow(-2, 0, k) if Vh.numel() else Vh
    return svd_backward(gU, _defined(gS), gVh, U, S, Vh)


def svd_backward(
    gU: Tensor | None, gS: Tensor | None, gVh: Tensor | None, U: Tensor, S: Tensor, Vh: Tensor
) -> Tensor | None:
    """A = U S V^H with distinct singular values (Note in FunctionsManual.cpp)."""
    if gS is None and gU is None and gVh is None:
        return None
    m, n = U.size(-2), Vh.size(-1)
    if gU is None and gVh is None:  # svdvals: gA = U diag(gS) V^H
        assert gS is not None
        return (
            at.matmul(U, gS.unsqueeze(-1).mul(Vh))
            if m >= n
            else at.matmul(U.mul(gS.unsqueeze(-2)), Vh)
        )
    is_complex = U.is_complex()

    def skew(A: Tensor) -> Tensor:
        return A.sub(A.mH())

    UhgU = skew(at.matmul(U.mH(), gU)) if gU is not None else None
    VhgV = skew(at.matmul(Vh, gVh.mH())) if gVh is not None else None
    if is_complex:  # the loss must not depend on the phases of the singular vectors
        im_u = at.imag(UhgU.diagonal(0, -2, -1)) if UhgU is not None else at.zeros_like(S)
        im_v = at.imag(VhgV.diagonal(0, -2, -1)) if VhgV is not None else at.zeros_like(S)
        TORCH_CHECK(
            bool(at.allclose(im_u, im_v.neg(), 1e-2, 1e-2)),
            "svd_backward: The singular vectors in the complex case are specified up to "
            "multiplication by e^{i phi}. The specified loss function depends on this phase "
            "term, making it ill-defined.",
        )
    S2 = S.mul(S)
    E = S2.unsqueeze(-2).sub(S2.unsqueeze(-1))
    E.diagonal(0, -2, -1).fill_(1)  # any a != 0: the diagonal computes 0 / a
    if UhgU is not None:
        if VhgV is not None:
            gA = UhgU.mul(S.unsqueeze(-2)).add(S.unsqueeze(-1).mul(VhgV)).div(E)
        else:
            gA = UhgU.div(E).mul(S.unsqueeze(-2))
    else:
        assert VhgV is not None
        gA = S.unsqueeze(-1).mul(VhgV.div(E))
    if gS is not None:
        gA = gA.add(gS.diag_embed())
    if is_complex and UhgU is not None and VhgV is not None:
        gA = gA.add(UhgU.diagonal(0, -2, -1).div(S.mul(2.0)).diag_embed())
    if m > n and gU is not None:  # gA = [U gA + (I_m - U U^H) gU S^-1] V^H
        gA = at.matmul(U, gA)
        gUSinv = gU.div(S.unsqueeze(-2))
        gA = gA.add(gUSinv).sub(at.matmul(U, at.matmul(U.mH(), gUSinv)))
        gA = at.matmul(gA, Vh)
    elif m < n and gVh is not None:  # gA = U [gA V^H + S^-1 gV^H (I_n - V V^H)]
        gA = at.matmul(gA, Vh)
        SinvgVh = gVh.div(S.unsqueeze(-1))
        gA = gA.add(SinvgVh).sub(at.matmul(at.matmul(SinvgVh, Vh.mH()), Vh))
        gA = at.matmul(U, gA)
    else:
        gA = at.matmul(U, at.matmul(gA, Vh)) if m >= n else at.matmul(at.matmul(U, gA), Vh)
    return gA  # type: ignore[no-any-return]


# ---- qr ------------------------------------------------------------------------------------------
def linalg_qr_backward(gQ: Any, gR: Any, Q: Tensor, R: Tensor, mode: str) -> Tensor | None:
    compute_q, reduced = _parse_qr_mode(mode)
    TORCH_CHECK(
        compute_q,
        "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please "
        "use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.",
    )
    m, n = Q.size(-2), R.size(-1)
    TORCH_CHECK(
        reduced or m <= n,
        "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.",
    )
    gQ, gR = _defined(gQ), _defined(gR)
    if gQ is None and gR is None:
        return None
    if gQ is not None:
        QhgQ = at.matmul(Q.mH(), gQ)
        gA = at.matmul(gR, R.mH()).sub(QhgQ) if gR is not None else QhgQ.neg()
    else:
        assert gR is not None
        gA = at.matmul(gR, R.mH())
    if m >= n:
        # syminvadj(triu(gA)): X + X^H with the real part of the diagonal halved
        X = gA.triu()
        ret = X.add(X.mH())
        diag = ret.diagonal(0, -2, -1)
        (at.real(diag) if diag.is_complex() else diag).mul_(0.5)
        gA = at.matmul(Q, ret)
        if gQ is not None:
            gA = gA.add(gQ)
        return _solve_tri(R.mH(), gA, False, left=False)
    # trilImInvAdjSkew(-gA): tril(X - X^H) with the imaginary part of the diagonal halved
    ret = gA.neg().sub(gA.neg().mH()).tril()
    if ret.is_complex():
        at.imag(ret.diagonal(0, -2, -1)).mul_(0.5)
    gA = at.matmul(Q, ret)
    gA = _solve_tri(R.narrow(-1, 0, m).mH(), gA, False, left=False)
    gA = at.cat([gA, at.zeros_like(R.narrow(-1, m, n - m))], -1)
    if gR is not None:
        gA = gA.add(at.matmul(Q, gR))
    return gA  # type: ignore[no-any-return]


# ---- eig / eigh ----------------------------------------------------------------------------------
def linalg_eig_backward(
    gL: Any, gV: Any, L: Tensor, V: Tensor, is_hermitian: bool, symeig_eigenvectors: bool = True
) -> Any:  # a Tensor, or None (undefined) when no gradient reaches it
    """A = V diag(L) V^-1 (V^H for eigh): gA = V^-H (diag(gL) + (V^H gV) / E^*) V^H."""
    gL, gV = _defined(gL), _defined(gV)
    if gL is None and gV is None:
        return None
    if gV is None:  # eigvals / eigvalsh: V^-H diag(gL) V^H
        if is_hermitian:
            return at.matmul(V.mul(gL.unsqueeze(-2)), V.mH())  # type: ignore[union-attr]
        return at.linalg_solve(V.mH(), gL.unsqueeze(-1).mul(V.mH()))  # type: ignore[union-attr, no-any-return]
    VhgV = at.matmul(V.mH(), gV)
    diag_VhgV = VhgV.diagonal(0, -2, -1)
    if V.is_complex():  # invariance under V -> V e^{i phi}
        imdiag = at.imag(diag_VhgV)
        TORCH_CHECK(
            bool(at.allclose(imdiag, at.zeros_like(imdiag), 1e-2, 1e-2)),
            "linalg_eigh_backward" if is_hermitian else "linalg_eig_backward",
            ": The eigenvectors in the complex case are specified up to multiplication by "
            "e^{i phi}. The specified loss function depends on this quantity, so it is "
            "ill-defined.",
        )
    if is_hermitian:  # onto the skew-Hermitian matrices, U(n)'s tangent space at I
        VhgV = VhgV.sub(VhgV.mH()).mul(0.5)
    else:  # onto the tangent space of matrices with columns of norm 1
        VhgV = VhgV.sub(at.matmul(V.mH(), V.mul(at.real(diag_VhgV).unsqueeze(-2))))
    Lconj = L if is_hermitian else L.conj()
    Econj = Lconj.unsqueeze(-2).sub(Lconj.unsqueeze(-1))
    Econj.diagonal(0, -2, -1).fill_(1.0)
    ret = VhgV.div(Econj)
    if gL is not None:
        ret.diagonal(0, -2, -1).copy_(gL)
    if is_hermitian:
        return at.matmul(V, at.matmul(ret, V.mH()))  # type: ignore[no-any-return]
    return at.linalg_solve(V.mH(), at.matmul(ret, V.mH()))  # type: ignore[no-any-return]


# ---- cholesky ------------------------------------------------------------------------------------
def cholesky_backward(gL: Any, upper: bool, L: Tensor) -> Tensor | None:
    """Iain Murray (2016), arXiv 1602.07527: gA = L^-H Phi(L^H gL) L^-1, made Hermitian."""
    gL = _defined(gL)
    if gL is None:
        return None
    if upper:
        L, gL = L.mH(), gL.mH()
    # tril(L^H gL) needs only tril(gL): L^H triu(gL, 1) is strictly upper triangular
    gA = at.matmul(L.mH(), gL).tril()
    gA = gA.add(gA.tril(-1).mH()).mul(0.5)  # 0.5 (gA + gA^H - diag(gA))
    gA = _solve_tri(L.mH(), gA, True, left=True)
    return _solve_tri(L, gA, False, left=False)


def cholesky_solve_backward(
    grad_x: Any, self: Tensor, input2: Tensor, result: Tensor, upper: bool, output_mask: list[bool]
) -> tuple[Tensor | None, Tensor | None]:
    grad_x = _defined(grad_x)
    if grad_x is None:
        return None, None
    grad_self = at.cholesky_solve(grad_x, input2, upper)
    common_term = at.matmul(grad_self, result.mH())
    common_term = common_term.add(common_term.mH())
    if upper:
        grad_input2 = at.matmul(input2, common_term).neg()
    else:
        grad_input2 = at.matmul(common_term, input2).neg()
    return grad_self, grad_input2


# ---- triangular solves ---------------------------------------------------------------------------
def linalg_solve_triangular_backward(
    grad: Any,
    A: Tensor,
    X: Tensor,
    upper: bool,
    left: bool,
    unitriangular: bool,
    output_mask: list[bool],
) -> tuple[Tensor | None, Tensor | None]:
    """gB = A^-H gX; gA = -gB X^H (X^H gB for left=False), on A's triangle."""
    grad = _defined(grad)
    A_requires_grad, B_requires_grad = output_mask[0], output_mask[1]
    if grad is None or not (A_requires_grad or B_requires_grad):
        return None, None
    G_B = _solve_tri(A.mH(), grad, not upper, left=left, unit=unitriangular)
    if not A_requires_grad:
        return None, G_B
    X_H = X.mH()
    G_A = at.matmul(G_B, X_H).neg() if left else at.matmul(X_H, G_B).neg()
    G_A = G_A.triu(int(unitriangular)) if upper else G_A.tril(-int(unitriangular))
    return G_A, G_B if B_requires_grad else None


def triangular_solve_backward(
    grad_x: Any,
    grad_m: Any,
    b: Tensor,
    a: Tensor,
    x: Tensor,
    upper: bool,
    transpose: bool,
    unitriangular: bool,
    output_mask: list[bool],
) -> tuple[Tensor | None, Tensor | None]:
    grad_x, grad_m = _defined(grad_x), _defined(grad_m)
    grad_b: Tensor | None = None
    grad_a: Tensor | None = None
    if grad_x is None and grad_m is None:
        return None, None
    if grad_x is not None:
        grad_b = at.triangular_solve(grad_x, a.conj(), upper, not transpose, unitriangular)[0]
        if output_mask[1]:
            assert grad_b is not None
            if transpose:
                grad_a = at.matmul(x.conj(), grad_b.mT()).neg()
            else:
                grad_a = at.matmul(grad_b, x.mH()).neg()
            grad_a = grad_a.triu(int(unitriangular)) if upper else grad_a.tril(-int(unitriangular))
    options = grad_m if grad_m is not None else grad_x
    assert options is not None
    if grad_a is None:
        grad_a = at.zeros([1], dtype=options.scalar_type(), device=options.device()).expand_as(a)
    if grad_b is None:
        grad_b = at.zeros([1], dtype=options.scalar_type(), device=options.device()).expand_as(b)
    if output_mask[1] and grad_m is not None:
        grad_a = grad_a.add(grad_m)
    return grad_b, grad_a


# ---- lu ------------------------------------------------------------------------------------------
def linalg_lu_backward(
    L_grad: Any, U_grad: Any, P: Tensor, L: Tensor, U: Tensor, pivot: bool
) -> Tensor | None:
    """A = P L U, L (m, k) unit lower, U (k, n) upper (square, wide and tall cases)."""
    L_grad, U_grad = _defined(L_grad), _defined(U_grad)
    if L_grad is None and U_grad is None:
        return None
    m, n = L.size(-2), U.size(-1)
    k = min(m, n)
    A_grad: Tensor | None
    if m == n:  # P L^-H [L^H gL o 1_L + gU U^H o 1_U] U^-H
        A_grad = at.matmul(L.mH(), L_grad).tril(-1) if L_grad is not None else None
        if U_grad is not None:
            term = at.matmul(U_grad, U.mH()).triu()
            A_grad = A_grad.add(term) if A_grad is not None else term
        assert A_grad is not None
        A_grad = _solve_tri(U.mH(), A_grad, False, left=False)
        A_grad = _solve_tri(L.mH(), A_grad, True, left=True, unit=True)
        return at.matmul(P, A_grad) if pivot else A_grad  # type: ignore[no-any-return]
    if m < n:  # wide: A1 = P L^-H [gU1 + (L^H gL o 1_L - gU U^H o 1_U) U1^-H], A2 = P L^-H gU2
        U1 = U.narrow(-1, 0, k)
        A_grad = at.matmul(L.mH(), L_grad) if L_grad is not None else None
        if U_grad is not None:
            term = at.matmul(U_grad.triu(), U.mH())
            A_grad = A_grad.sub(term) if A_grad is not None else term.neg()
        assert A_grad is not None
        A_grad = _solve_tri(U1.mH(), A_grad.tril(-1), False, left=False)
        if U_grad is not None:
            A_grad = at.cat(
                [A_grad.add(U_grad.narrow(-1, 0, k).triu()), U_grad.narrow(-1, k, n - k)], -1
            )
        A_grad = _solve_tri(L.mH(), A_grad, True, left=True, unit=True)
        if U_grad is None:
            A_grad = at.cat([A_grad, at.zeros_like(U.narrow(-1, k, n - k))], -1)
        return at.matmul(P, A_grad) if pivot else A_grad  # type: ignore[no-any-return]
    # tall: A1 = P [gL1 + L^-H (gU U^H o 1_U - L^H gL o 1_L)] U^-H, A2 = P gL2 U^-H
    L1 = L.narrow(-2, 0, k)
    A_grad = at.matmul(U_grad, U.mH()) if U_grad is not None else None
    if L_grad is not None:
        term = at.matmul(L.mH(), L_grad.tril(-1))
        A_grad = A_grad.sub(term) if A_grad is not None else term.neg()
    assert A_grad is not None
    A_grad = _solve_tri(L1.mH(), A_grad.triu(), True, left=True, unit=True)
    if L_grad is not None:
        A_grad = at.cat(
            [A_grad.add(L_grad.narrow(-2, 0, k).tril(-1)), L_grad.narrow(-2, k, m - k)], -2
        )
    A_grad = _solve_tri(U.mH(), A_grad, False, left=False)
    if L_grad is None:
        A_grad = at.cat([A_grad, at.zeros_like(L.narrow(-2, k, m - k))], -2)
    return at.matmul(P, A_grad) if pivot else A_grad  # type: ignore[no-any-return]


def lu_factor_ex_backward(grad: Any, LU: Tensor, pivs: Tensor, pivot: bool) -> Tensor | None:
    """LU packs L (below the diagonal) and U: its gradient is theirs, through linalg.lu's."""
    P, L, U = at.lu_unpack(LU, pivs, True, pivot)
    k = min(LU.size(-2), LU.size(-1))
    return linalg_lu_backward(grad.narrow(-1, 0, k), grad.narrow(-2, 0, k), P, L, U, pivot)


def lu_unpack_backward(L_grad: Any, U_grad: Any, m: int, n: int) -> Tensor | None:
    """L is LU's strict lower part (m, k), U its upper part (k, n)."""
    L_grad, U_grad = _defined(L_grad), _defined(U_grad)
    if L_grad is None and U_grad is None:
        return None
    gL = L_grad.tril(-1) if L_grad is not None else None
    gU = U_grad.triu() if U_grad is not None else None
    if m < n and gL is not None:  # L is LU[..., :, :m]
        gL = at.cat([gL, gL.new_zeros([*list(gL.sizes())[:-1], n - m])], -1)
    if m > n and gU is not None:  # U is LU[..., :n, :]
        gU = at.cat([gU, gU.new_zeros([*list(gU.sizes())[:-2], m - n, n])], -2)
    if gL is not None and gU is not None:
        return gL.add(gU)  # type: ignore[no-any-return]
    return gL if gL is not None else gU


def linalg_lu_solve_LU(
    gX: Tensor, LU: Tensor, pivots: Tensor, X: Tensor, left: bool, adjoint: bool
) -> Tensor:
    """The adjoint of linalg_lu_solve_jvp's dLU term, through an auxiliary gR (n, n)."""
    P, L, U = at.lu_unpack(LU, pivots, True, left == adjoint)
    if left != adjoint:  # gR = U^-H op2(-gX) op2(X)^H; gU = triu(gR); gL = tril(L^-H gR U^H, -1)
        rhs = (gX if left else gX.mH()).neg().matmul(X.mH() if left else X)
        gR = _solve_tri(U.mH(), rhs, False)
        gL = _solve_tri(L.mH(), gR.matmul(U.mH()), True, left=True, unit=True).tril(-1)
        return gL.add(gR.triu())  # type: ignore[no-any-return]
    # gR = -P^T op3(X) op1(op2(gX)) P L^-H; gU = triu(L^H gR U^-H); gL = tril(gR, -1)
    gR = P.mT().matmul(X if left else X.mH()).matmul(gX.mH() if left else gX).matmul(P).neg()
    gR = _solve_tri(L.mH(), gR, True, left=False, unit=True)
    gU = _solve_tri(U.mH(), L.mH().matmul(gR), False, left=False).triu()
    return gR.tril(-1).add(gU)  # type: ignore[no-any-return]


def cholesky_inverse_backward(grad: Any, L: Tensor, upper: bool, inverse: Tensor) -> Tensor | None:
    """inverse = (L L^H)^-1: gL = -(inverse (G + G^H) inverse) L (L on the left for upper)."""
    grad = _defined(grad)
    if grad is None:
        return None
    common_term = at.matmul(inverse, at.matmul(grad.add(grad.mH()), inverse))
    if upper:
        return at.matmul(L, common_term).neg()  # type: ignore[no-any-return]
    return at.matmul(common_term, L).neg()  # type: ignore[no-any-return]
