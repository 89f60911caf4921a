"""Conformance of the matrix functions of torch.linalg against torch 2.13: det / slogdet /
logdet, cond, matrix_power, multi_dot, tensorinv / tensorsolve, vander, matrix_exp, pinv /
pinverse, matrix_rank, lstsq (its four drivers) and eig / eigvals, with their gradients
(float64, against torch's), errors and out= forms; and the derivatives they reach (cumprod,
amax / amin, flip, diag_embed).

Eigenvectors are unique up to a phase: for real inputs with real eigenvalues geev's choice
(norm 1, largest component real) is compared as is; complex eigenvectors are compared through
|V| and V diag(L) V^-1 (Note [Signs of Q, eigenvectors and singular vectors]).
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

A3 = "A = torch.tensor([[4., 2., 1.], [2., 5., 3.], [1., 3., 6.]])\n"
B42 = "B = torch.tensor([[1., 2.], [3., 4.], [5., 6.], [7., 9.]])\n"
SING = "S = torch.tensor([[1., 2.], [2., 4.]])\n"
W = "w = lambda t: torch.randn(t.shape, dtype=t.dtype)\n"
D = "a = torch.randn(2, 3, 3, dtype=torch.float64, requires_grad=True)\n"

VALUES = {
    # ---- det / slogdet / logdet ----
    "det": A3 + "out = (torch.linalg.det(A), torch.det(torch.stack([A, -A, A.mT])), A.det())",
    "det_singular_empty": SING
    + "out = (torch.linalg.det(S), torch.linalg.det(torch.zeros(2, 0, 0)))",
    "det_complex": A3 + "out = torch.linalg.det(A * (1 + 1j))",
    "det_out": A3 + "o = torch.empty(0); r = torch.linalg.det(A, out=o); out = (o, r is o)",
    "slogdet": A3 + SING + "r = torch.linalg.slogdet(-A)\n"
    "out = (type(r).__name__, r.sign, r.logabsdet, tuple(torch.slogdet(S)), tuple(A.slogdet()))",
    "slogdet_complex": A3 + "out = tuple(torch.linalg.slogdet(A * (1 + 1j)))",
    "slogdet_out": A3 + "s, l = torch.empty(0), torch.empty(0)\n"
    "torch.linalg.slogdet(A, out=(s, l)); out = (s, l)",
    "logdet": A3 + SING + "out = (torch.logdet(A), torch.logdet(-A[:1, :1]), torch.logdet(S), "
    "A.logdet(), torch.logdet(A * 1j))",
    # ---- cond ----
    "cond": A3 + "out = [torch.linalg.cond(A, p) for p in (None, 1, -1, 2, -2, math.inf, "
    "-math.inf, 'fro', 'nuc')]",
    "cond_batched_rect": B42 + "out = (torch.linalg.cond(torch.stack([B, 2 * B])), "
    "torch.linalg.cond(B, -2), torch.linalg.cond(torch.zeros(2, 0, 0)))",
    "cond_singular": SING + "out = (torch.linalg.cond(S, 1), torch.linalg.cond(S, 'fro'))",
    "cond_out": A3 + "o = torch.empty(0); torch.linalg.cond(A, 'nuc', out=o); out = o",
    # ---- matrix_power / multi_dot ----
    "matrix_power": A3 + "out = [torch.linalg.matrix_power(A, n) for n in (0, 1, 2, 3, 5, 6, "
    "-1, -2)]",
    "matrix_power_int_method_out": A3 + "o = torch.empty(0); torch.matrix_power(A, 4, out=o)\n"
    "out = (torch.matrix_power(A.long(), 3), A.matrix_power(7), o, "
    "torch.linalg.matrix_power(torch.stack([A, A.mT]), 2))",
    "multi_dot": B42 + A3 + "out = (torch.linalg.multi_dot([B, B.mT, B]), "
    "torch.linalg.multi_dot([torch.ones(3), A, A, A, A, torch.ones(3)]), "
    "torch.linalg.multi_dot([torch.ones(3), A]), torch.linalg.multi_dot([B.mT, B]))",
    "multi_dot_chain": "xs = [torch.randn(5, 2), torch.randn(2, 7), torch.randn(7, 3), "
    "torch.randn(3, 8), torch.randn(8, 1)]\no = torch.empty(0)\n"
    "torch.linalg.multi_dot(xs, out=o); out = (torch.linalg.multi_dot(xs), o)",
    # ---- tensorinv / tensorsolve / vander ----
    "tensorinv": "out = (torch.linalg.tensorinv(torch.eye(6).reshape(6, 2, 3) * 2, ind=1), "
    "torch.linalg.tensorinv(torch.eye(4).reshape(2, 2, 2, 2) + 1))",
    "tensorsolve": "a = torch.eye(6) + 1; b = torch.arange(6.).reshape(2, 3)\n"
    "out = (torch.linalg.tensorsolve(a.reshape(2, 3, 6), b), torch.linalg.tensorsolve("
    "a.reshape(6, 2, 3).permute(1, 0, 2), torch.arange(6.), dims=(0,)))",
    "vander": "out = (torch.vander(torch.tensor([1., 2., 3.])), torch.vander(torch.tensor("
    "[1, 2, 3]), N=4, increasing=True), torch.vander(torch.tensor([True, False])), "
    "torch.vander(torch.tensor([2.]), N=0))",
    "linalg_vander": "out = (torch.linalg.vander(torch.tensor([1., 2., 3.])), "
    "torch.linalg.vander(torch.tensor([[1, 2], [3, 4]]), N=4), "
    "torch.linalg.vander(torch.tensor([1j, 2.])))",
    # ---- matrix_exp: every degree of the Taylor polynomial, and scaling and squaring ----
    "matrix_exp_float": A3 + "out = [torch.linalg.matrix_exp(A * s) for s in (1e-9, 1e-4, "
    "0.01, 0.05, 0.2, 1.0)]",
    "matrix_exp_double": A3 + "out = [torch.linalg.matrix_exp(A.double() * s) for s in (1e-17, "
    "1e-9, 1e-5, 0.01, 0.05, 0.2, 2.0)]",
    "matrix_exp_batched_complex": A3 + "out = (torch.matrix_exp(torch.stack([A * 1e-3, A / 3])), "
    "torch.matrix_exp(A * 0.3j), torch.matrix_exp(torch.tensor([[[2.]]])), "
    "torch.matrix_exp(torch.zeros(0, 0)), A.matrix_exp())",
    # ---- pinv / matrix_rank ----
    "pinv": B42 + A3 + SING + "out = (torch.linalg.pinv(B), torch.linalg.pinv(A, hermitian=True), "
    "torch.linalg.pinv(S), torch.linalg.pinv(B.mT.double()), torch.pinverse(A))",
    "pinv_tolerances": SING + "out = (torch.linalg.pinv(S, rtol=0.9), torch.linalg.pinv(S, "
    "atol=10.), torch.linalg.pinv(S, atol=torch.tensor(10.)), torch.linalg.pinv(S, 0.1), "
    "torch.linalg.pinv(S, torch.tensor(0.1)), torch.linalg.pinv(torch.zeros(0, 3)))",
    "pinv_complex_out": B42 + "o = torch.empty(0, dtype=torch.complex64)\n"
    "torch.linalg.pinv(B * (1 - 2j), out=o); out = o",
    "matrix_rank": A3 + SING + "out = (torch.linalg.matrix_rank(A), torch.linalg.matrix_rank(S), "
    "torch.linalg.matrix_rank(torch.stack([S, A[:2, :2]])), torch.linalg.matrix_rank(A, "
    "hermitian=True), torch.linalg.matrix_rank(A, atol=3.0), torch.linalg.matrix_rank(A, "
    "rtol=0.5), torch.linalg.matrix_rank(A, tol=3.0), torch.linalg.matrix_rank(A, "
    "torch.tensor(3.)), torch.linalg.matrix_rank(torch.zeros(2, 0, 3)))",
    # ---- lstsq ----
    # gels: the only driver of CUDA, so the same program on both devices
    "lstsq_gels": B42 + "out = (tuple(torch.linalg.lstsq(B, torch.ones(4, 3), driver='gels')), "
    "tuple(torch.linalg.lstsq(B.mT.double(), torch.ones(2, 1, dtype=torch.float64), "
    "driver='gels')), tuple(torch.linalg.lstsq(torch.zeros(3, 3), torch.ones(3, 1), "
    "driver='gels')))",
    # ---- eig / eigvals ----
    "eig_real": "N = torch.tensor([[0., 1.], [-2., -3.]]); R = torch.tensor([[0., -1.], [1., 0.]])"
    "\nr = torch.linalg.eig(N)\nout = (type(r).__name__, r.eigenvalues, r.eigenvectors, "
    "tuple(torch.linalg.eig(R.double())), torch.linalg.eigvals(torch.stack([N, R])), "
    "tuple(torch.linalg.eig(torch.zeros(0, 0))))",
    "eig_reconstruct": "a = torch.randn(2, 4, 4, dtype=torch.float64); L, V = torch.linalg.eig(a)"
    "\nout = (V.abs(), V @ torch.diag_embed(L) @ torch.linalg.inv(V) - a)",
    "eig_complex": "a = torch.randn(3, 3, dtype=torch.complex128); L, V = torch.linalg.eig(a)\n"
    "out = (V.abs(), V @ torch.diag_embed(L) @ torch.linalg.inv(V) - a, "
    "torch.linalg.eigvals(a).abs())",
    "eig_out": "N = torch.tensor([[0., 1.], [-2., -3.]]); L = torch.empty(0, dtype=torch.cfloat)\n"
    "V = torch.empty(0, dtype=torch.cfloat); torch.linalg.eig(N, out=(L, V))\n"
    "o = torch.empty(0, dtype=torch.cfloat); torch.linalg.eigvals(N, out=o); out = (L, V, o)",
}

ERRORS = {
    "det_int": A3 + "out = torch.linalg.det(A.long())",
    "det_nonsquare": B42 + "out = torch.linalg.det(B)",
    "slogdet_half": A3 + "out = torch.linalg.slogdet(A.half())",
    "logdet_1d": "out = torch.logdet(torch.ones(3))",
    "cond_bad_ord": A3 + "out = torch.linalg.cond(A, 3)",
    "cond_bad_str": A3 + "out = torch.linalg.cond(A, 'foo')",
    "cond_nonsquare_1": B42 + "out = torch.linalg.cond(B, 1)",
    "cond_nonsquare_float": B42 + "out = torch.linalg.cond(B, 1.0)",
    "cond_nonsquare_inf": B42 + "out = torch.linalg.cond(B, math.inf)",
    "cond_nonsquare_fro": B42 + "out = torch.linalg.cond(B, 'fro')",
    "cond_1d": "out = torch.linalg.cond(torch.ones(3))",
    "matrix_power_nonsquare": B42 + "out = torch.matrix_power(B, 2)",
    "matrix_power_int_inverse": A3 + "out = torch.matrix_power(A.long(), -1)",
    "multi_dot_one": A3 + "out = torch.linalg.multi_dot([A])",
    "multi_dot_shapes": A3 + B42 + "out = torch.linalg.multi_dot([A, B])",
    "multi_dot_dtypes": A3 + "out = torch.linalg.multi_dot([A, A.double()])",
    "multi_dot_3d": A3 + "out = torch.linalg.multi_dot([A, torch.ones(2, 3, 3), A])",
    "multi_dot_first_3d": A3 + "out = torch.linalg.multi_dot([torch.ones(2, 3, 3), A])",
    "tensorinv_shape": "out = torch.linalg.tensorinv(torch.ones(2, 3, 4))",
    "tensorinv_ind": "out = torch.linalg.tensorinv(torch.ones(2, 2), ind=0)",
    "tensorinv_singular": "out = torch.linalg.tensorinv(torch.zeros(2, 2, 4))",
    "tensorsolve_shape": "out = torch.linalg.tensorsolve(torch.ones(2, 3, 4), torch.ones(2, 3))",
    "vander_2d": "out = torch.vander(torch.ones(2, 2))",
    "vander_negative": "out = torch.vander(torch.ones(2), N=-1)",
    "linalg_vander_n1": "out = torch.linalg.vander(torch.tensor([1.]), N=1)",
    "linalg_vander_bool": "out = torch.linalg.vander(torch.tensor([True]))",
    "matrix_exp_int": A3 + "out = torch.matrix_exp(A.long())",
    "matrix_exp_nonsquare": B42 + "out = torch.linalg.matrix_exp(B)",
    "pinv_int": SING + "out = torch.linalg.pinv(S.long())",
    "pinv_1d": "out = torch.linalg.pinv(torch.ones(3))",
    "pinv_complex_atol": SING + "out = torch.linalg.pinv(S, atol=torch.tensor(1j))",
    "matrix_rank_1d": "out = torch.linalg.matrix_rank(torch.ones(3))",
    "matrix_rank_int": "out = torch.linalg.matrix_rank(torch.ones(2, 2, dtype=torch.long))",
    "lstsq_int": B42 + "out = torch.linalg.lstsq(B.long(), torch.ones(4, 3).long())",
    "lstsq_half": B42 + "out = torch.linalg.lstsq(B.half(), torch.ones(4, 3).half())",
    "lstsq_dtypes": B42 + "out = torch.linalg.lstsq(B, torch.ones(4, 3).double())",
    "lstsq_dims": B42 + "out = torch.linalg.lstsq(B, torch.ones(3, 4, 2, 5))",
    "lstsq_vector_size": B42 + "out = torch.linalg.lstsq(B, torch.ones(3))",
    "lstsq_matrix_size": B42 + "out = torch.linalg.lstsq(B, torch.ones(3, 1))",
    "lstsq_1d": "out = torch.linalg.lstsq(torch.ones(3), torch.ones(3))",
    "lstsq_batch": "out = torch.linalg.lstsq(torch.ones(3, 4, 2), torch.ones(2, 4, 3))",
    "eig_int": "out = torch.linalg.eig(torch.eye(2).long())",
    "eig_half": "out = torch.linalg.eig(torch.eye(2).half())",
    "eig_nan": "out = torch.linalg.eig(torch.full((2, 2), float('nan')))",
    "eig_nonsquare": "out = torch.linalg.eig(torch.ones(2, 3))",
    "eigvals_1d": "out = torch.linalg.eigvals(torch.ones(3))",
    "eig_out_dtype": "out = torch.linalg.eig(torch.eye(2), out=(torch.empty(0), torch.empty(0)))",
}

GRADS = {
    "det_grad": W + D + "d = torch.linalg.det(a); (d * w(d)).sum().backward()\n"
    "b = torch.randn(3, 3, dtype=torch.float64, requires_grad=True)\n"
    "torch.det(b.mT).backward(); out = (a.grad, b.grad, d.grad_fn.name())",
    "det_double_backward": "a = torch.randn(3, 3, dtype=torch.float64, requires_grad=True)\n"
    "g, = torch.autograd.grad(torch.linalg.det(a), a, create_graph=True); g.sum().backward()\n"
    "out = (g.detach(), a.grad)",
    "slogdet_logdet_grad": W + D + "s, l = torch.linalg.slogdet(a); (l * w(l)).sum().backward()\n"
    "b = torch.randn(3, 3, dtype=torch.float64, requires_grad=True)\n"
    "torch.logdet(b @ b.mT + torch.eye(3)).backward(); out = (a.grad, b.grad, "
    "l.grad_fn.name())",
    "slogdet_complex_grad": "a = torch.randn(3, 3, dtype=torch.complex128, requires_grad=True)\n"
    "s, l = torch.linalg.slogdet(a); (l + 2 * s.real + s.imag).backward(); out = a.grad",
    "cond_grad": D + "torch.linalg.cond(a).sum().backward(); out = a.grad",
    "cond_fro_inplace_error": "a = torch.tensor([[2., 1.], [1., 3.]], requires_grad=True)\n"
    "torch.linalg.cond(a, 'fro').backward()",
    "matrix_power_grad": W + "a = torch.randn(3, 3, dtype=torch.float64, requires_grad=True)\n"
    "x = torch.linalg.matrix_power(a, 5); y = torch.linalg.matrix_power(a, -2)\n"
    "((x * w(x)).sum() + (y * w(y)).sum() + torch.matrix_power(a, 0).sum()).backward()\n"
    "out = a.grad",
    "multi_dot_grad": "xs = [torch.randn(*s, dtype=torch.float64, requires_grad=True) for s in "
    "((2, 3), (3, 4), (4, 5), (5,))]\ntorch.linalg.multi_dot(xs).sum().backward()\n"
    "out = [x.grad for x in xs]",
    "tensorsolve_tensorinv_grad": "a = (torch.randn(6, 6, dtype=torch.float64) + 4 * "
    "torch.eye(6)).requires_grad_(); b = torch.randn(2, 3, dtype=torch.float64, "
    "requires_grad=True)\n(torch.linalg.tensorsolve(a.reshape(2, 3, 6), b).sum() + "
    "torch.linalg.tensorinv(a.reshape(6, 2, 3), 1).pow(2).sum()).backward()\n"
    "out = (a.grad, b.grad)",
    "matrix_exp_grad": W + D + "e = torch.linalg.matrix_exp(a); (e * w(e)).sum().backward()\n"
    "b = torch.randn(3, 3, dtype=torch.float64, requires_grad=True)\n"
    "(torch.matrix_exp(b * 3) * w(b)).sum().backward()\n"
    "out = (a.grad, b.grad, e.grad_fn.name())",
    "pinv_grad": W + "a = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)\n"
    "b = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)\n"
    "p = torch.linalg.pinv(a); q = torch.linalg.pinv(b, rtol=1e-3)\n"
    "((p * w(p)).sum() + (q * w(q)).sum()).backward(); out = (a.grad, b.grad, p.grad_fn.name(), "
    "q.grad_fn.name())",
    "pinv_hermitian_grad": W + "a = torch.randn(3, 3, dtype=torch.float64, requires_grad=True)\n"
    "p = torch.linalg.pinv(a + a.mT, hermitian=True); (p * w(p)).sum().backward(); out = a.grad",
    "lstsq_grad": W + "a = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)\n"
    "b = torch.randn(5, 2, dtype=torch.float64, requires_grad=True)\n"
    "r = torch.linalg.lstsq(a, b); (r.solution * w(r.solution)).sum().backward()\n"
    "out = (a.grad, b.grad, r.solution.grad_fn.name(), r.rank.requires_grad)",
    "lstsq_vector_grad": "a = torch.randn(2, 5, 3, dtype=torch.float64, requires_grad=True)\n"
    "b = torch.randn(5, dtype=torch.float64, requires_grad=True)\n"
    "torch.linalg.lstsq(a, b.expand(2, 5), driver='gels').solution.sum().backward()\n"
    "out = (a.grad, b.grad)",
    "eig_grad": W + "a = torch.randn(3, 3, dtype=torch.float64, requires_grad=True)\n"
    "L, V = torch.linalg.eig(a); (L.real.sum() + (V.abs() ** 2 * w(a)).sum()).backward()\n"
    "out = (a.grad, L.grad_fn.name())",
    "eigvals_grad": W + D + "L = torch.linalg.eigvals(a); (L.real * w(L.real)).sum().backward()\n"
    "out = a.grad",
    # complex inputs: losses that do not depend on the phases of the eigen / singular vectors
    "complex_grads": "c = lambda *s: torch.randn(*s, dtype=torch.complex128, requires_grad=True)"
    "\na, b, h, s, q, k, d, e, m = c(3, 3), c(3, 2), c(3, 3), c(4, 3), c(4, 3), c(3, 3), "
    "c(3, 3), c(3, 3), c(3, 3)\n"
    "torch.linalg.solve(a, b).abs().pow(2).sum().backward()\n"
    "(torch.linalg.eigh(h + h.mH)[0] * torch.arange(3.)).sum().backward()\n"
    "U, S, Vh = torch.linalg.svd(s, full_matrices=False); (S.sum() + (U @ Vh).abs().sum())"
    ".backward()\nQ, R = torch.linalg.qr(q); (Q.abs().sum() + R.real.sum()).backward()\n"
    "L = torch.linalg.cholesky(k @ k.mH + torch.eye(3)); (L.real.sum() + L.imag.sum()).backward()"
    "\ntorch.linalg.det(d).abs().backward()\nw, V = torch.linalg.eig(e)\n"
    "(w.real.sum() + w.imag.sum() + V.abs().pow(2).sum()).backward()\n"
    "torch.linalg.matrix_exp(m).abs().sum().backward()\n"
    "out = [t.grad for t in (a, b, h, s, q, k, d, e, m)]",
    "solve_double_backward": "a = torch.randn(3, 3, dtype=torch.float64, requires_grad=True)\n"
    "x = torch.linalg.solve(a, torch.ones(3, dtype=torch.float64))\n"
    "g, = torch.autograd.grad(x.sum(), a, create_graph=True); g.pow(2).sum().backward()\n"
    "out = (g.detach(), a.grad)",
    # the derivatives linalg.vander and matrix_norm / cond with ord=1 or inf reach
    "cumprod_grad": "t = lambda v: torch.tensor(v, dtype=torch.float64, requires_grad=True)\n"
    "x = t([[1., 2., 3., 4.], [2., -1., 0.5, 3.]]); z = t([[1., 0., 3., 4.], [0., 2., 0., 3.], "
    "[1., 2., 3., 0.]])\n(torch.cumprod(x, 1) * torch.arange(8.).reshape(2, 4)).sum().backward()"
    "\n(torch.cumprod(z, 1) * (torch.arange(12.).reshape(3, 4) + 1)).sum().backward()\n"
    "y = t([[1., 0., 3.], [2., 1., 3.]]); torch.cumprod(y, 0, dtype=torch.float32).sum()"
    ".backward()\nout = (x.grad, z.grad, y.grad)",
    "amax_amin_grad": "t = lambda v: torch.tensor(v, dtype=torch.float64, requires_grad=True)\n"
    "x, y, z = t([[1., 3., 3.], [2., 0., -1.]]), t([[1., 3.], [2., -1.]]), t([[1., 3.], [3., 0.]])"
    "\n(x.amax(1) * torch.tensor([1., 2.])).sum().backward(); y.amin().backward()\n"
    "z.amax((0, 1), keepdim=True).sum().backward(); out = (x.grad, y.grad, z.grad)",
    "matrix_norm_ord_grad": "x = torch.tensor([[1., -3., 2.], [2., 0., -1.], [0.5, 1., 1.]], "
    "dtype=torch.float64, requires_grad=True)\n(torch.linalg.matrix_norm(x, 1) + "
    "torch.linalg.matrix_norm(x, -math.inf)).backward(); out = x.grad",
    "vander_flip_grad": "x = torch.tensor([1., -2., 0.5], dtype=torch.float64, requires_grad=True)"
    "\n(torch.linalg.vander(x) * torch.arange(9.).reshape(3, 3)).sum().backward()\n"
    "y = torch.randn(2, 3, requires_grad=True); (torch.flip(y, [0, 1]) * torch.arange(6.)"
    ".reshape(2, 3)).sum().backward(); out = (x.grad, y.grad)",
    "diag_embed_grad": "x = torch.randn(2, 3, requires_grad=True)\n"
    "(torch.diag_embed(x, 1) * torch.arange(32.).reshape(2, 4, 4)).sum().backward(); out = x.grad",
}


# the CPU's lstsq drivers: CUDA has gels only (torch raises for the others there, and its
# default is gels), so these run where torch's CPU results are the reference
CPU_ONLY = {
    "lstsq_default": B42 + "r = torch.linalg.lstsq(B, torch.ones(4, 3))\n"
    "out = (type(r).__name__, r.solution, r.residuals, r.rank, r.singular_values)",
    "lstsq_drivers_tall": B42 + "out = [tuple(torch.linalg.lstsq(B, torch.ones(4, 3), "
    "driver=d)) for d in ('gelsy', 'gelsd', 'gelss')]",
    "lstsq_drivers_wide": B42 + "out = [tuple(torch.linalg.lstsq(B.mT, torch.ones(2, 1), "
    "driver=d)) for d in ('gelsy', 'gelsd', 'gelss')]",
    "lstsq_rank_deficient": "out = [tuple(torch.linalg.lstsq(torch.ones(3, 2), torch.ones(3, 1), "
    "driver=d)) for d in ('gelsy', 'gelsd', 'gelss')]",
    "lstsq_batched_vector": B42 + "out = (tuple(torch.linalg.lstsq(torch.stack([B, B * 2]), "
    "torch.ones(1, 4, 2), driver='gelsd')), tuple(torch.linalg.lstsq(B, torch.ones(4))), "
    "tuple(torch.linalg.lstsq(B, torch.ones(4, 2), rcond=0.5, driver='gelsd')))",
    "lstsq_driver": B42 + "out = torch.linalg.lstsq(B, torch.ones(4, 3), driver='foo')",
    "lstsq_residuals_grad": W + "a = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)\n"
    "b = torch.randn(5, 2, dtype=torch.float64, requires_grad=True)\n"
    "r = torch.linalg.lstsq(a, b, driver='gelsd')\n"
    "((r.solution * w(r.solution)).sum() + r.residuals.sum()).backward(); out = (a.grad, b.grad)",
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
def test_linalg_functions_values(name: str) -> None:
    check(VALUES[name], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_linalg_functions_errors(name: str) -> None:
    check(ERRORS[name])


@pytest.mark.parametrize("name", sorted(GRADS))
def test_linalg_functions_grads(name: str) -> None:
    check(GRADS[name], rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", sorted(CPU_ONLY))
def test_linalg_functions_cpu_drivers(name: str) -> None:
    if harness.DEVICE != "cpu":
        pytest.skip("lstsq's gelsy / gelsd / gelss are CPU drivers (CUDA has gels only)")
    check(
        CPU_ONLY[name], rtol=1e-6 if "grad" in name else 1e-4, atol=1e-8 if "grad" in name else 1e-5
    )


def test_lstsq_default_driver_by_device() -> None:
    """gelsy on the CPU (rank, no residuals); gels on CUDA (residuals, no rank), as in torch."""
    program = B42 + "out = tuple(torch.linalg.lstsq(B, torch.ones(4, 3)))"
    if harness.DEVICE == "cpu":
        check(program, rtol=1e-4, atol=1e-5)
        return
    _, residuals, rank, _ = harness.run(tensortrace, program, harness.DEVICE).value
    assert list(residuals.shape) == [3] and list(rank.shape) == [0]
    error = harness.run(
        tensortrace, B42 + "torch.linalg.lstsq(B, B, driver='gelsd')", harness.DEVICE
    ).error
    assert str(error) == "torch.linalg.lstsq: `driver` other than `gels` is not supported on CUDA"


def test_linalg_functions_leak_nothing() -> None:
    """Every program frees all it allocated, after a result or an error, on the device the
    harness runs on (the CPU allocator, or the emulated CUDA one)."""
    gc.disable()  # reference counting alone must free everything
    leaks = []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for name, source in {**VALUES, **ERRORS, **GRADS, **CPU_ONLY}.items():
                start = _allocated()
                _run(source)
                if _allocated() != start:
                    leaks.append(name)
    finally:
        gc.enable()
    assert leaks == []
