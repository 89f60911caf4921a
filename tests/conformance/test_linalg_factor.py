"""Conformance of the Cholesky / LU factorizations and triangular solves against torch 2.13:
linalg.cholesky / cholesky_ex, torch.cholesky / cholesky_inverse / cholesky_solve,
linalg.solve_triangular, torch.triangular_solve, linalg.lu_factor / lu_factor_ex / lu /
lu_solve and torch.lu_unpack, with their gradients, errors and out= forms; and the gradients of
linalg.svd / svdvals, qr and eigh / eigvalsh (svd_backward, linalg_qr_backward,
linalg_eig_backward).

These factors are unique (Cholesky's positive diagonal, LU's partial pivoting by the largest
|a|), so they are compared entry by entry, to float tolerance (NumPy computes float32 in
double, Note [Signs of Q, eigenvectors and singular vectors]); pivots, info, shapes, strides
and dtypes exactly. Gradients are compared in float64 against torch's.
"""

from __future__ import annotations

import gc
import math
import warnings

import numpy as np
import pytest

import tensortrace

from . import harness
from .harness import check

# symmetric positive-definite, batched
SPD = "a = torch.randn(2, 3, 3, dtype=torch.float64); a = a @ a.mT + 3 * torch.eye(3)\n"
GEN = "a = torch.randn(3, 3) + 3 * torch.eye(3)\n"

VALUES = {
    # ---- cholesky ----
    "cholesky": SPD + "out = torch.linalg.cholesky(a)",
    "cholesky_upper": SPD + "out = torch.linalg.cholesky(a[0].float(), upper=True)",
    "cholesky_reads_one_triangle": SPD + "b = a[0].tril(); out = (torch.linalg.cholesky(b), "
    "torch.linalg.cholesky(b.mT, upper=True))",
    "cholesky_complex": "z = torch.randn(3, 3, dtype=torch.complex128); z = z @ z.mH + torch.eye(3)"
    "\nL = torch.linalg.cholesky(z); out = (L, L @ L.mH - z)",
    "cholesky_ex": SPD + "r = torch.linalg.cholesky_ex(a); out = (type(r).__name__, r.L, r.info)",
    "cholesky_ex_info": "r = torch.linalg.cholesky_ex(torch.tensor([[[1., 2.], [2., 1.]], "
    "[[4., 0.], [0., 1.]]])); out = (r.L, r.info)",
    "cholesky_out": SPD + "o = torch.empty(0, dtype=torch.float64); "
    "r = torch.linalg.cholesky(a, out=o); out = (o, r is o)",
    "cholesky_empty": "out = tuple(torch.linalg.cholesky_ex(torch.zeros(2, 0, 0)))",
    "cholesky_noncontiguous": SPD + "out = torch.linalg.cholesky(a.permute(1, 2, 0)[..., 1])",
    "torch_cholesky": SPD + "out = (torch.cholesky(a), torch.cholesky(a[0], upper=True), "
    "a[1].cholesky(), torch.cholesky(torch.zeros(0, 2, 2)))",
    "cholesky_inverse": SPD
    + "L = torch.linalg.cholesky(a); o = torch.empty(0, dtype=torch.float64)\n"
    "torch.cholesky_inverse(L[0], out=o)\nout = (torch.cholesky_inverse(L), "
    "torch.cholesky_inverse(L.mT, upper=True), L[1].cholesky_inverse(), o)",
    "cholesky_inverse_complex": "z = torch.tensor([[4., 1+2j], [1-2j, 6.]])\n"
    "out = torch.cholesky_inverse(torch.linalg.cholesky(z))",
    # ---- lu_factor / lu / lu_unpack ----
    "lu_factor": GEN + "r = torch.linalg.lu_factor(a); out = (type(r).__name__, r.LU, r.pivots)",
    "lu_factor_tall": "out = tuple(torch.linalg.lu_factor(torch.randn(2, 5, 3)))",
    "lu_factor_wide": "out = tuple(torch.linalg.lu_factor(torch.randn(3, 5, dtype=torch.float64)))",
    "lu_factor_complex": "out = tuple(torch.linalg.lu_factor(torch.randn(3, 3, "
    "dtype=torch.complex64)))",
    "lu_factor_ex": GEN + "r = torch.linalg.lu_factor_ex(a); out = (type(r).__name__, tuple(r))",
    "lu_factor_ex_singular": "out = tuple(torch.linalg.lu_factor_ex(torch.stack([torch.eye(3), "
    "torch.ones(3, 3)])))",
    "lu_factor_out": GEN + "LU = torch.empty(0); p = torch.empty(0, dtype=torch.int32)\n"
    "r = torch.linalg.lu_factor(a, out=(LU, p)); out = (LU, p, r[0] is LU)",
    "lu": "r = torch.linalg.lu(torch.randn(2, 4, 4)); out = (type(r).__name__, r.P, r.L, r.U, "
    "r.P @ r.L @ r.U)",
    "lu_tall_wide": "out = (tuple(torch.linalg.lu(torch.randn(5, 3))), "
    "tuple(torch.linalg.lu(torch.randn(3, 5))))",
    "lu_out": "P, L, U = torch.empty(0), torch.empty(0), torch.empty(0)\n"
    "torch.linalg.lu(torch.randn(4, 3), out=(P, L, U)); out = (P, L, U)",
    "lu_unpack": "LU, piv = torch.linalg.lu_factor(torch.randn(2, 3, 5))\n"
    "r = torch.lu_unpack(LU, piv); out = (type(r).__name__, tuple(r))",
    "lu_unpack_flags": "LU, piv = torch.linalg.lu_factor(torch.randn(4, 3))\n"
    "out = (tuple(torch.lu_unpack(LU, piv, unpack_data=False)), "
    "tuple(torch.lu_unpack(LU, piv, unpack_pivots=False)))",
    # ---- lu_solve ----
    "lu_solve": GEN + "LU, piv = torch.linalg.lu_factor(a); b = torch.randn(3, 2)\n"
    "out = (torch.linalg.lu_solve(LU, piv, b), torch.linalg.lu_solve(LU, piv, b, adjoint=True), "
    "torch.linalg.lu_solve(LU, piv, b.mT, left=False))",
    "lu_solve_broadcast": "LU, piv = torch.linalg.lu_factor(torch.randn(2, 1, 3, 3) + "
    "3 * torch.eye(3)); out = torch.linalg.lu_solve(LU, piv, torch.randn(4, 3, 2))",
    "lu_solve_complex": "a = torch.randn(3, 3, dtype=torch.complex128) + 3 * torch.eye(3)\n"
    "LU, piv = torch.linalg.lu_factor(a); b = torch.randn(3, 1, dtype=torch.complex128)\n"
    "out = (torch.linalg.lu_solve(LU, piv, b, adjoint=True), a.mH @ "
    "torch.linalg.lu_solve(LU, piv, b, adjoint=True) - b)",
    # ---- triangular solves ----
    "solve_triangular": GEN + "b = torch.randn(3, 4)\n"
    "out = (torch.linalg.solve_triangular(a.triu(), b, upper=True), "
    "torch.linalg.solve_triangular(a, b, upper=False, unitriangular=True), "
    "torch.linalg.solve_triangular(a, b.mT, upper=True, left=False))",
    "solve_triangular_broadcast": "a = torch.randn(2, 1, 3, 3) + 3 * torch.eye(3)\n"
    "out = torch.linalg.solve_triangular(a, torch.randn(4, 3, 2), upper=False)",
    "solve_triangular_out": GEN + "o = torch.empty(0); r = torch.linalg.solve_triangular(a, "
    "torch.randn(3, 2), upper=True, out=o); out = (o, r is o)",
    "solve_triangular_complex": "a = torch.randn(3, 3, dtype=torch.complex64) + 3 * torch.eye(3)"
    "\nout = torch.linalg.solve_triangular(a, torch.ones(3, 2, dtype=torch.complex64), "
    "upper=True)",
    "triangular_solve": GEN + "b = torch.randn(2, 3, 2)\nr = torch.triangular_solve(b, a)\n"
    "out = (type(r).__name__, r.solution, r.cloned_coefficient, "
    "tuple(torch.triangular_solve(b, a, upper=False, transpose=True, unitriangular=True)))",
    "triangular_solve_method": GEN + "out = tuple(torch.randn(3, 1).triangular_solve(a))",
    "cholesky_solve": SPD + "L = torch.linalg.cholesky(a); b = torch.randn(3, 2, "
    "dtype=torch.float64)\nout = (torch.cholesky_solve(b, L), torch.cholesky_solve(b, L.mT, "
    "upper=True), a @ torch.cholesky_solve(b, L) - b)",
    "cholesky_solve_method_out": SPD + "L = torch.linalg.cholesky(a[0]); "
    "b = torch.randn(3, 1, dtype=torch.float64); o = torch.empty(0, dtype=torch.float64)\n"
    "r = torch.cholesky_solve(b, L, out=o); out = (b.cholesky_solve(L), o, r is o)",
}

ERRORS = {
    "cholesky_not_pd": "out = torch.linalg.cholesky(torch.tensor([[1., 2.], [2., 1.]]))",
    "cholesky_not_pd_batch": "out = torch.linalg.cholesky(torch.stack([torch.eye(2), "
    "torch.tensor([[1., 2.], [2., 1.]])]))",
    "cholesky_nan": "out = torch.linalg.cholesky(torch.full((2, 2), float('nan')))",
    "cholesky_ex_check_errors": "out = torch.linalg.cholesky_ex(-torch.eye(3), check_errors=True)",
    "cholesky_int": "out = torch.linalg.cholesky(torch.eye(2, dtype=torch.int64))",
    "cholesky_half": "out = torch.linalg.cholesky(torch.eye(2).half())",
    "cholesky_nonsquare": "out = torch.linalg.cholesky(torch.ones(2, 3))",
    "cholesky_1d": "out = torch.linalg.cholesky(torch.ones(3))",
    "torch_cholesky_not_pd": "out = torch.cholesky(torch.stack([torch.eye(2), -torch.eye(2)]))",
    "torch_cholesky_nonsquare": "out = torch.cholesky(torch.ones(2, 3))",
    "cholesky_inverse_singular": "out = torch.cholesky_inverse(torch.zeros(2, 2))",
    "cholesky_inverse_int": "out = torch.cholesky_inverse(torch.eye(2, dtype=torch.int64))",
    "lu_factor_singular": "out = torch.linalg.lu_factor(torch.zeros(2, 2))",
    "lu_factor_singular_batch": "out = torch.linalg.lu_factor(torch.stack([torch.eye(2), "
    "torch.ones(2, 2)]))",
    "lu_factor_ex_check_errors": "out = torch.linalg.lu_factor_ex(torch.ones(3, 3), "
    "check_errors=True)",
    "lu_factor_1d": "out = torch.linalg.lu_factor(torch.ones(3))",
    "lu_factor_int": "out = torch.linalg.lu_factor(torch.ones(2, 2, dtype=torch.int64))",
    "lu_1d": "out = torch.linalg.lu(torch.ones(3))",
    "lu_solve_dtype": "LU, p = torch.linalg.lu_factor(torch.eye(2)); "
    "out = torch.linalg.lu_solve(LU, p, torch.ones(2, 1, dtype=torch.float64))",
    "lu_solve_pivots_dtype": "LU, p = torch.linalg.lu_factor(torch.eye(2)); "
    "out = torch.linalg.lu_solve(LU, p.long(), torch.ones(2, 1))",
    "lu_solve_shapes": "LU, p = torch.linalg.lu_factor(torch.eye(2)); "
    "out = torch.linalg.lu_solve(LU, p, torch.ones(3, 1))",
    "lu_solve_pivots_shape": "LU, p = torch.linalg.lu_factor(torch.eye(2)); "
    "out = torch.linalg.lu_solve(LU, p[:1], torch.ones(2, 1))",
    "lu_solve_int": "out = torch.linalg.lu_solve(torch.eye(2, dtype=torch.int64), "
    "torch.ones(2, dtype=torch.int32), torch.ones(2, 1, dtype=torch.int64))",
    "lu_unpack_pivots_dtype": "out = torch.lu_unpack(torch.eye(2), torch.ones(2).long())",
    "lu_unpack_1d": "out = torch.lu_unpack(torch.ones(2), torch.ones(2, dtype=torch.int32))",
    "solve_triangular_shapes": "out = torch.linalg.solve_triangular(torch.eye(3), "
    "torch.ones(2, 1), upper=True)",
    "solve_triangular_right_shapes": "out = torch.linalg.solve_triangular(torch.eye(3), "
    "torch.ones(3, 2), upper=True, left=False)",
    "solve_triangular_nonsquare": "out = torch.linalg.solve_triangular(torch.ones(2, 3), "
    "torch.ones(2, 1), upper=True)",
    "solve_triangular_int": "out = torch.linalg.solve_triangular(torch.eye(2, dtype=torch.long), "
    "torch.ones(2, 2, dtype=torch.long), upper=True)",
    "solve_triangular_no_upper": "out = torch.linalg.solve_triangular(torch.eye(2), "
    "torch.ones(2, 1))",
    "triangular_solve_1d": "out = torch.triangular_solve(torch.ones(2), torch.eye(2))",
    "triangular_solve_sizes": "out = torch.triangular_solve(torch.ones(2, 2), torch.eye(3))",
    "triangular_solve_dtype": "out = torch.triangular_solve(torch.ones(2, 2).double(), "
    "torch.eye(2))",
    "triangular_solve_batch": "out = torch.triangular_solve(torch.ones(3, 2, 2), "
    "torch.eye(2).expand(4, 2, 2))",
    "cholesky_solve_dtype": "out = torch.cholesky_solve(torch.ones(2, 2).double(), torch.eye(2))",
    "cholesky_solve_1d": "out = torch.cholesky_solve(torch.ones(2), torch.eye(2))",
    "cholesky_solve_int": "out = torch.cholesky_solve(torch.ones(2, 2, dtype=torch.long), "
    "torch.eye(2, dtype=torch.long))",
}

# float64 gradients, a weighted sum of the outputs so that every entry counts
W = "w = lambda t: torch.randn(t.shape, dtype=t.dtype)\n"
GRADS = {
    "cholesky_grad": W + SPD + "a.requires_grad_(); L = torch.linalg.cholesky(a)\n"
    "(L * w(L)).sum().backward(); out = (a.grad, L.grad_fn.name())",
    "cholesky_upper_grad": W + SPD + "a.requires_grad_(); U = torch.linalg.cholesky(a, "
    "upper=True); (U * w(U)).sum().backward(); out = a.grad",
    "cholesky_solve_grad": W + SPD + "L = torch.linalg.cholesky(a).requires_grad_(); "
    "b = torch.randn(3, 2, dtype=torch.float64, requires_grad=True)\n"
    "x = torch.cholesky_solve(b, L); (x * w(x)).sum().backward(); out = (L.grad, b.grad, "
    "x.grad_fn.name())",
    "torch_cholesky_inverse_grad": W + SPD + "a.requires_grad_(); L = torch.cholesky(a)\n"
    "(L * w(L)).sum().backward(); l = torch.linalg.cholesky(a.detach()).requires_grad_()\n"
    "x = torch.cholesky_inverse(l); u = l.detach().mT.requires_grad_()\n"
    "y = torch.cholesky_inverse(u, upper=True); ((x * w(x)).sum() + (y * w(y)).sum()).backward()\n"
    "out = (a.grad, l.grad, u.grad, x.grad_fn.name())",
    "solve_triangular_grad": W + "a = (torch.randn(2, 3, 3, dtype=torch.float64) + 3 * "
    "torch.eye(3)).requires_grad_(); b = torch.randn(3, 2, dtype=torch.float64, "
    "requires_grad=True)\nx = torch.linalg.solve_triangular(a, b, upper=True)\n"
    "y = torch.linalg.solve_triangular(a, b.mT, upper=False, left=False, unitriangular=True)\n"
    "((x * w(x)).sum() + (y * w(y)).sum()).backward(); out = (a.grad, b.grad, x.grad_fn.name())",
    "triangular_solve_grad": W + "a = (torch.randn(3, 3, dtype=torch.float64) + 3 * "
    "torch.eye(3)).requires_grad_(); b = torch.randn(3, 2, dtype=torch.float64, "
    "requires_grad=True)\nx, m = torch.triangular_solve(b, a, transpose=True)\n"
    "((x * w(x)).sum() + (m * w(m)).sum()).backward(); out = (a.grad, b.grad)",
    "lu_factor_grad": W + "a = torch.randn(2, 3, 3, dtype=torch.float64, requires_grad=True)\n"
    "LU, piv = torch.linalg.lu_factor(a); (LU * w(LU)).sum().backward(); "
    "out = (a.grad, LU.grad_fn.name())",
    "lu_factor_rectangular_grad": W + "a = torch.randn(3, 5, dtype=torch.float64, "
    "requires_grad=True); b = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)\n"
    "x = torch.linalg.lu_factor(a)[0]; y = torch.linalg.lu_factor(b)[0]\n"
    "((x * w(x)).sum() + (y * w(y)).sum()).backward(); out = (a.grad, b.grad)",
    "lu_grad": W + "a = torch.randn(4, 4, dtype=torch.float64, requires_grad=True)\n"
    "P, L, U = torch.linalg.lu(a); ((L * w(L)).sum() + (U * w(U)).sum()).backward()\n"
    "out = (a.grad, L.grad_fn.name(), P.requires_grad)",
    "lu_rectangular_grad": W + "a = torch.randn(2, 5, dtype=torch.float64, requires_grad=True)"
    "\nb = torch.randn(5, 2, dtype=torch.float64, requires_grad=True)\n"
    "_, L, U = torch.linalg.lu(a); _, L2, U2 = torch.linalg.lu(b)\n"
    "((L * w(L)).sum() + U.pow(2).sum() + (L2 * w(L2)).sum() + U2.sum()).backward()\n"
    "out = (a.grad, b.grad)",
    "lu_unpack_grad": W + "LU, piv = torch.linalg.lu_factor(torch.randn(3, 4, "
    "dtype=torch.float64)); LU.requires_grad_()\nP, L, U = torch.lu_unpack(LU, piv)\n"
    "((L * w(L)).sum() + (U * w(U)).sum()).backward(); out = (LU.grad, L.grad_fn.name())",
    "lu_solve_grad": W + "a = torch.randn(3, 3, dtype=torch.float64, requires_grad=True)\n"
    "b = torch.randn(3, 3, dtype=torch.float64, requires_grad=True)\n"
    "LU, piv = torch.linalg.lu_factor(a)\n"
    "xs = [torch.linalg.lu_solve(LU, piv, b, left=l, adjoint=d) for l in (True, False) "
    "for d in (True, False)]\nsum((x * w(x)).sum() for x in xs).backward(); "
    "out = (a.grad, b.grad)",
    "svd_grad": W + "a = torch.randn(2, 4, 3, dtype=torch.float64, requires_grad=True)\n"
    "U, S, Vh = torch.linalg.svd(a, full_matrices=False)\n"
    "((U @ Vh * w(a)).sum() + (S * w(S)).sum()).backward(); out = (a.grad, S.grad_fn.name())",
    "svd_full_wide_grad": W + "a = torch.randn(3, 5, dtype=torch.float64, requires_grad=True)\n"
    "U, S, Vh = torch.linalg.svd(a); ((U @ Vh[:3] * w(a[:, :3].T @ a[:, :3])[:3]).sum() + "
    "S.sum()).backward(); out = a.grad",
    "svdvals_grad": "a = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)\n"
    "torch.linalg.svdvals(a).pow(2).sum().backward(); out = a.grad",
    "torch_svd_grad": "a = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)\n"
    "U, S, V = torch.svd(a); (U @ V.mT).sum().backward(); out = a.grad",
    "qr_grad": W + "a = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)\n"
    "b = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)\n"
    "Q, R = torch.linalg.qr(a); Q2, R2 = torch.linalg.qr(b)\n"
    "((Q * w(Q)).sum() + (R * w(R)).sum() + (Q2 * w(Q2)).sum() + (R2 * w(R2)).sum()).backward()"
    "\nout = (a.grad, b.grad, Q.grad_fn.name())",
    "qr_complete_square_grad": W + "a = torch.randn(3, 3, dtype=torch.float64, "
    "requires_grad=True)\nQ, R = torch.linalg.qr(a, mode='complete'); (R * w(R)).sum()"
    ".backward(); out = a.grad",
    "eigh_grad": W + "a = torch.randn(2, 3, 3, dtype=torch.float64); a = (a + a.mT)"
    ".requires_grad_()\nL, V = torch.linalg.eigh(a); ((L * w(L)).sum() + ((V * V) * w(V)).sum())"
    ".backward(); out = (a.grad, L.grad_fn.name())",
    "eigvalsh_grad": "a = torch.randn(3, 3, dtype=torch.float64); a = (a + a.mT).requires_grad_()"
    "\ntorch.linalg.eigvalsh(a).pow(2).sum().backward(); out = a.grad",
    "tril_triu_grad": W + "a = torch.randn(3, 4, requires_grad=True)\n"
    "((a.tril(-1) * w(a)).sum() + (a.triu(1) * w(a)).sum()).backward(); out = a.grad",
}

GRAD_ERRORS = {
    "qr_mode_r_grad": "a = torch.randn(3, 3, requires_grad=True); "
    "torch.linalg.qr(a, mode='r')[1].sum().backward()",
    "qr_complete_tall_grad": "a = torch.randn(4, 3, requires_grad=True); "
    "torch.linalg.qr(a, mode='complete')[0].sum().backward()",
}


def _run(source: str) -> None:
    """The program in tensortrace alone, on the harness's device; its namespace cleared after
    (a lambda in it would otherwise keep it alive in a cycle)."""
    namespace = {"torch": tensortrace, "np": np, "math": math}
    if harness.DEVICE != "cpu":  # the factories default to it, as harness.run sets them
        tensortrace.set_default_device(harness.DEVICE)
    try:
        exec(source, namespace)
    except (RuntimeError, TypeError, NotImplementedError):
        pass
    finally:
        tensortrace.set_default_device(None)
    namespace.clear()


def _allocated() -> int:
    if harness.DEVICE == "cpu":
        return int(tensortrace.memory_allocated("cpu"))
    return int(tensortrace.cuda.memory_allocated())


@pytest.mark.parametrize("name", sorted(VALUES))
def test_linalg_factor_values(name: str) -> None:
    check(VALUES[name], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_linalg_factor_errors(name: str) -> None:
    check(ERRORS[name])


@pytest.mark.parametrize("name", sorted(GRADS))
def test_linalg_factor_grads(name: str) -> None:
    check(GRADS[name], rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", sorted(GRAD_ERRORS))
def test_linalg_factor_grad_errors(name: str) -> None:
    check(GRAD_ERRORS[name])


def test_lu_without_pivoting() -> None:
    """torch's CPU refuses pivot=False; cuSOLVER (the emulated CUDA device) factors unpivoted."""
    program = "out = tuple(torch.linalg.lu_factor(torch.tensor([[2., 1.], [4., 3.]]), pivot=False))"
    if harness.DEVICE == "cpu":
        check(program)
        return
    LU, pivots = harness.run(tensortrace, program, harness.DEVICE).value
    np.testing.assert_array_equal(LU.cpu().numpy(), [[2.0, 1.0], [2.0, 1.0]])
    np.testing.assert_array_equal(pivots.cpu().numpy(), [1, 2])


def test_linalg_factor_leaks_nothing() -> None:
    """Every program frees all it allocated, after a result or an error (a LinAlgError too),
    on the device the harness runs on (the CPU allocator, or the emulated CUDA one)."""
    gc.disable()  # reference counting alone must free everything
    leaks = []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for name, source in {**VALUES, **ERRORS, **GRADS}.items():
                start = _allocated()
                _run(source)
                if _allocated() != start:
                    leaks.append(name)
    finally:
        gc.enable()
    assert leaks == []
