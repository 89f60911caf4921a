"""Conformance of torch.linalg's factorizations and solvers (inv / inv_ex / inverse, solve /
solve_ex, qr, eigh / eigvalsh, svd / torch.svd) and linalg.matmul against torch 2.13.

Values are compared to float tolerances (NumPy's LAPACK computes float32 in double: Note [Signs
of Q, eigenvectors and singular vectors] in cpu/batch_linear_algebra_kernel.py); shapes, strides
(batches of F-contiguous matrices), dtypes, return types and errors exactly. Q and the eigenvectors
of the inputs here come out with torch's signs; singular vectors may not (a pair (u_i, v_i) of
NumPy's gesdd can be the negative of torch's, even in float64), so SVDs compare |U|, |Vh|, S and
the product U S Vh.
"""

from __future__ import annotations

import pytest

from .harness import check

# square, well conditioned: the identity plus small values
SQ = "torch.eye(3) * 4 + torch.arange(9.).reshape(3, 3) / 10"
BSQ = "torch.eye(3) * 4 + torch.arange(18.).reshape(2, 3, 3) / 10"

APPROX = {
    # ---- the tutorial's lines ("Introduction to PyTorch") ----
    "tutorial": "m1 = torch.rand(2, 2); m2 = torch.tensor([[3, 0], [0, 3]], dtype=m1.dtype)\n"
    "m3 = torch.linalg.matmul(m1, m2)\n"
    "r = torch.linalg.svd(m3); s = torch.svd(m3)\n"
    "out = (m3, type(r).__name__, tuple(r), type(s).__name__, tuple(s))",
    # ---- matmul ----
    "matmul_batched": "out = torch.linalg.matmul(torch.rand(2, 3, 4), torch.rand(4, 5))",
    "matmul_out": "o = torch.empty(0); r = torch.linalg.matmul(torch.rand(2, 3), torch.rand(3), "
    "out=o); out = (o, r is o)",
    # ---- inv ----
    "inv": f"out = torch.linalg.inv({SQ})",
    "inv_batched": f"out = torch.linalg.inv({BSQ})",
    "inv_float64": f"out = torch.linalg.inv(({SQ}).double())",
    "inv_complex": f"out = torch.linalg.inv(({SQ}) * (1 + 1j))",
    "inverse_method": f"out = (({SQ}).inverse(), torch.inverse({BSQ}))",
    "inv_noncontiguous": f"out = torch.linalg.inv(({BSQ}).mT)",
    "inv_ex": f"r = torch.linalg.inv_ex({BSQ}); out = (type(r).__name__, r.inverse, r.info)",
    "inv_times_A": f"a = {BSQ}; out = a @ torch.linalg.inv(a)",
    # ---- solve ----
    "solve_vector": f"out = torch.linalg.solve({SQ}, torch.tensor([1., 2., 3.]))",
    "solve_matrix": f"out = torch.linalg.solve({SQ}, torch.arange(6.).reshape(3, 2))",
    "solve_batched": f"out = torch.linalg.solve({BSQ}, torch.arange(12.).reshape(2, 3, 2))",
    "solve_batched_vector": f"out = torch.linalg.solve({BSQ}, torch.arange(6.).reshape(2, 3))",
    "solve_broadcast": f"out = torch.linalg.solve({SQ}, torch.arange(24.).reshape(4, 3, 2))",
    "solve_broadcast_A": f"out = torch.linalg.solve({BSQ}, torch.arange(6.).reshape(3, 2))",
    "solve_right": f"out = torch.linalg.solve({BSQ}, torch.arange(12.).reshape(2, 2, 3), "
    "left=False)",
    "solve_noncontiguous": f"out = torch.linalg.solve(({BSQ}).mT, torch.ones(2, 3, 1))",
    "solve_float64": f"out = torch.linalg.solve(({SQ}).double(), "
    "torch.ones(3, dtype=torch.float64))",
    "solve_ex": f"r = torch.linalg.solve_ex({SQ}, torch.ones(3)); "
    "out = (type(r).__name__, r.result, r.info)",
    "solve_check": f"a = {BSQ}; b = torch.rand(2, 3, 4); out = a @ torch.linalg.solve(a, b) - b",
    # ---- svd ----
    # singular vectors: compared up to sign (Note [Signs of Q, eigenvectors and singular
    # vectors]): NumPy's gesdd and torch's may flip a pair (u_i, v_i), so |U|, |Vh| and U S Vh
    "svd": "a = torch.arange(12.).reshape(4, 3) + torch.eye(4, 3); u, s, vh = torch.linalg.svd(a)"
    "\nout = (u.abs(), s, vh.abs(), (u[:, :3] * s) @ vh)",
    "svd_reduced": "a = torch.arange(12.).reshape(4, 3) + torch.eye(4, 3)\n"
    "u, s, vh = torch.linalg.svd(a, full_matrices=False); out = (u.abs(), s, vh.abs())",
    "svd_wide_batched": "a = torch.arange(24.).reshape(2, 3, 4) + torch.eye(3, 4)\n"
    "u, s, vh = torch.linalg.svd(a)\n"
    "out = (u.abs(), s, vh.abs(), (u * s.unsqueeze(-2)) @ vh[..., :3, :])",
    "svd_float64": "a = torch.arange(6., dtype=torch.float64).reshape(2, 3) + torch.eye(2, 3, "
    "dtype=torch.float64)\nu, s, vh = torch.linalg.svd(a, full_matrices=False)\n"
    "out = (u.abs(), s, vh.abs(), (u * s) @ vh)",
    "svd_fields": "r = torch.linalg.svd(torch.eye(2) * 2)\n"
    "out = (type(r).__name__, r.U, r.S, r.Vh)",
    "svd_signs_diagonal": "out = tuple(torch.linalg.svd(torch.diag(torch.tensor([3., -2., 1.]))))",
    "svd_product": "a = torch.rand(2, 5, 3); u, s, vh = torch.linalg.svd(a, full_matrices=False); "
    "out = (u * s.unsqueeze(-2)) @ vh - a",
    "svd_empty": "out = tuple(torch.linalg.svd(torch.zeros(0, 3)))",
    "torch_svd": "r = torch.svd(torch.arange(12.).reshape(4, 3) + torch.eye(4, 3)); "
    "out = (type(r).__name__, r.U.abs(), r.S, r.V.abs(), (r.U * r.S) @ r.V.mT)",
    "torch_svd_some_false": "u, s, v = torch.svd(torch.arange(12.).reshape(2, 3, 2) + "
    "torch.eye(3, 2), some=False); out = (u.abs(), s, v.abs())",
    "torch_svd_no_uv": "out = tuple(torch.svd(torch.arange(12.).reshape(4, 3) + torch.eye(4, 3), "
    "compute_uv=False))",
    "svd_method": "u, s, v = (torch.eye(3) * 2 + torch.arange(9.).reshape(3, 3) / 9).svd(); "
    "out = (u.abs(), s, v.abs())",
    # ---- qr ----
    "qr": "r = torch.linalg.qr(torch.arange(12.).reshape(4, 3) + torch.eye(4, 3)); "
    "out = (type(r).__name__, r.Q, r.R)",
    "qr_complete": "out = tuple(torch.linalg.qr(torch.arange(12.).reshape(4, 3) + torch.eye(4, 3), "
    "mode='complete'))",
    "qr_r": "out = tuple(torch.linalg.qr(torch.arange(12.).reshape(4, 3) + torch.eye(4, 3), "
    "mode='r'))",
    "qr_wide_batched": "out = tuple(torch.linalg.qr(torch.arange(24.).reshape(2, 3, 4) + "
    "torch.eye(3, 4)))",
    "qr_product": "a = torch.rand(3, 4, 4, dtype=torch.float64); q, r = torch.linalg.qr(a); "
    "out = q @ r - a",
    # ---- eigh ----
    "eigh": f"a = {SQ}; r = torch.linalg.eigh(a + a.mT); "
    "out = (type(r).__name__, r.eigenvalues, r.eigenvectors)",
    "eigh_batched_upper": f"a = {BSQ}; out = tuple(torch.linalg.eigh(a + a.mT, UPLO='U'))",
    "eigh_lower_only": f"out = tuple(torch.linalg.eigh(torch.tril({SQ}), UPLO='L'))",
    "eigh_float64": f"a = ({SQ}).double(); out = tuple(torch.linalg.eigh(a + a.mT))",
    "eigvalsh": f"a = {BSQ}; out = torch.linalg.eigvalsh(a + a.mT, UPLO='u')",
    "eigh_product": "a = torch.rand(2, 4, 4); a = a + a.mT; w, v = torch.linalg.eigh(a); "
    "out = (v * w.unsqueeze(-2)) @ v.mT - a",
}

EXACT = {
    "inv_singular": "out = torch.linalg.inv(torch.tensor([[1., 2.], [2., 4.]]))",
    "inv_singular_batch": "out = torch.linalg.inv(torch.stack([torch.eye(2), torch.zeros(2, 2)]))",
    "inverse_singular": "out = torch.zeros(3, 3).inverse()",
    "inv_nonsquare": "out = torch.linalg.inv(torch.ones(2, 3))",
    "inv_1d": "out = torch.linalg.inv(torch.ones(3))",
    "inv_int": "out = torch.inverse(torch.ones(2, 2, dtype=torch.int64))",
    "inv_half": "out = torch.linalg.inv(torch.ones(2, 2, dtype=torch.float16))",
    "inv_ex_info": "out = torch.linalg.inv_ex(torch.stack([torch.eye(2), torch.zeros(2, 2)])).info",
    "inv_ex_check_errors": "out = torch.linalg.inv_ex(torch.zeros(2, 2), check_errors=True)",
    "linalg_error_class": "try:\n    torch.linalg.inv(torch.zeros(2, 2))\n"
    "except torch.linalg.LinAlgError as e:\n    out = (isinstance(e, RuntimeError), str(e))",
    "solve_singular": "out = torch.linalg.solve(torch.zeros(2, 2), torch.ones(2))",
    "solve_singular_batch": "out = torch.linalg.solve(torch.stack([torch.eye(2), "
    "torch.zeros(2, 2)]), torch.ones(2, 2))",
    "solve_ex_info": "out = torch.linalg.solve_ex(torch.zeros(2, 2), torch.ones(2)).info",
    "solve_ex_check_errors": "out = torch.linalg.solve_ex(torch.zeros(2, 2), torch.ones(2), "
    "check_errors=True)",
    "solve_nonsquare": "out = torch.linalg.solve(torch.ones(2, 3), torch.ones(2))",
    "solve_dtype_mismatch": "out = torch.linalg.solve(torch.eye(2), "
    "torch.ones(2, dtype=torch.float64))",
    "solve_int": "out = torch.linalg.solve(torch.eye(2, dtype=torch.int64), torch.ones(2, "
    "dtype=torch.int64))",
    "solve_half": "out = torch.linalg.solve(torch.eye(2).half(), torch.ones(2).half())",
    "solve_bad_vector": "out = torch.linalg.solve(torch.eye(2), torch.ones(3))",
    "solve_bad_matrix": "out = torch.linalg.solve(torch.eye(2), torch.ones(3, 2))",
    "solve_bad_batch": "out = torch.linalg.solve(torch.eye(2).expand(3, 2, 2), "
    "torch.ones(4, 2, 2))",
    "solve_right_vector": "out = torch.linalg.solve(torch.eye(2), torch.ones(2), left=False)",
    "svd_1d": "out = torch.linalg.svd(torch.ones(3))",
    "svd_int": "out = torch.linalg.svd(torch.ones(3, 3, dtype=torch.int64))",
    "svd_half": "out = torch.linalg.svd(torch.ones(3, 3, dtype=torch.float16))",
    "svd_driver": "out = torch.linalg.svd(torch.ones(3, 3), driver='gesvd')",
    "svd_nan": "out = torch.linalg.svd(torch.full((2, 2), float('nan')))",
    "svd_nan_batch": "out = torch.linalg.svd(torch.stack([torch.eye(2), torch.full((2, 2), "
    "float('nan'))]))",
    "svd_inf": "out = tuple(torch.linalg.svd(torch.stack([torch.eye(2), torch.full((2, 2), "
    "float('inf'))])))",
    "torch_svd_1d": "out = torch.svd(torch.ones(3))",
    "torch_svd_int": "out = torch.svd(torch.ones(3, 3, dtype=torch.int64))",
    "qr_bad_mode": "out = torch.linalg.qr(torch.ones(3, 3), mode='foo')",
    "qr_int": "out = torch.linalg.qr(torch.ones(3, 3, dtype=torch.int64))",
    "qr_half": "out = torch.linalg.qr(torch.ones(3, 3, dtype=torch.float16))",
    "qr_1d": "out = torch.linalg.qr(torch.ones(3))",
    "eigh_nonsquare": "out = torch.linalg.eigh(torch.ones(2, 3))",
    "eigh_bad_uplo": "out = torch.linalg.eigh(torch.ones(2, 2), UPLO='X')",
    "eigh_long_uplo": "out = torch.linalg.eigh(torch.ones(2, 2), UPLO='LU')",
    "eigh_int": "out = torch.linalg.eigh(torch.ones(2, 2, dtype=torch.int64))",
    "eigh_bfloat16": "out = torch.linalg.eigh(torch.ones(2, 2, dtype=torch.bfloat16))",
    "eigvalsh_bad_uplo": "out = torch.linalg.eigvalsh(torch.ones(2, 2), UPLO='X')",
    "eigh_identity": "out = tuple(torch.linalg.eigh(torch.eye(3) * 2))",
    "matmul_mismatch": "out = torch.linalg.matmul(torch.ones(2, 3), torch.ones(2, 3))",
}


@pytest.mark.parametrize("name", sorted(APPROX))
def test_linalg_batch_values(name: str) -> None:
    check(APPROX[name], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(EXACT))
def test_linalg_batch_exact(name: str) -> None:
    check(EXACT[name])


# gradients through the ported formulas (linalg_inv_ex, _linalg_solve_ex): .grad and grad_fn
GRADS = {
    "inv_grad": f"a = ({BSQ}).requires_grad_(); y = torch.linalg.inv(a); (y * y).sum().backward()"
    "\nout = (a.grad, type(y.grad_fn).__name__)",
    "inverse_grad_float64": f"a = ({SQ}).double().requires_grad_(); "
    "a.inverse().sum().backward(); out = a.grad",
    "solve_grad": f"a = ({BSQ}).requires_grad_(); b = torch.rand(2, 3, 2, requires_grad=True)\n"
    "x = torch.linalg.solve(a, b); x.pow(2).sum().backward()\n"
    "out = (a.grad, b.grad, type(x.grad_fn).__name__)",
    "solve_grad_vector_broadcast": f"a = ({BSQ}).requires_grad_(); "
    "b = torch.rand(3, requires_grad=True)\n"
    "torch.linalg.solve(a, b).sum().backward(); out = (a.grad, b.grad)",
    "solve_grad_right": f"a = ({SQ}).requires_grad_(); b = torch.rand(4, 3, requires_grad=True)\n"
    "torch.linalg.solve(a, b, left=False).sum().backward(); out = (a.grad, b.grad)",
    "solve_grad_only_B": f"a = {SQ}; b = torch.rand(3, 2, requires_grad=True)\n"
    "torch.linalg.solve(a, b).sum().backward(); out = b.grad",
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_linalg_batch_grads(name: str) -> None:
    check(GRADS[name], rtol=1e-4, atol=1e-5)
