"""Conformance of torch.cdist (Distance.cpp's cdist, _cdist_forward, _cdist_backward and
_euclidean_dist) against torch 2.13: every p, the matmul path for p=2 and its compute modes,
broadcast batch dims, float64, non-contiguous inputs, empty inputs, gradients and errors."""

from __future__ import annotations

import pytest

from .harness import check

EXACT = {
    "cdist_empty": "out = (torch.cdist(torch.rand(0, 3), torch.rand(4, 3)), "
    "torch.cdist(torch.rand(2, 0), torch.rand(4, 0)), torch.cdist(torch.rand(2, 5, 3), "
    "torch.rand(0, 3)).shape)",
    "cdist_1d_error": "out = torch.cdist(torch.rand(3), torch.rand(2, 3))",
    "cdist_x2_1d_error": "out = torch.cdist(torch.rand(2, 3), torch.rand(3))",
    "cdist_columns_error": "out = torch.cdist(torch.rand(2, 3), torch.rand(2, 4))",
    "cdist_int_error": "out = torch.cdist(torch.ones(2, 3, dtype=torch.int64), "
    "torch.ones(2, 3, dtype=torch.int64))",
    "cdist_negative_p_error": "out = torch.cdist(torch.rand(2, 3), torch.rand(2, 3), p=-1.)",
    "cdist_mode_error": "out = torch.cdist(torch.rand(2, 3), torch.rand(2, 3), compute_mode='bad')",
    "cdist_batch_error": "out = torch.cdist(torch.rand(2, 2, 3), torch.rand(3, 2, 3))",
    "cdist_grad_fn": "a = torch.rand(3, 4, requires_grad=True); b = torch.rand(30, 4); "
    "out = (torch.cdist(a, b[:5]).grad_fn.name(), torch.cdist(a, b).grad_fn.name(), "
    "torch.cdist(a, b[:5], compute_mode='use_mm_for_euclid_dist').grad_fn.name(), "
    "torch.cdist(a, b, compute_mode='donot_use_mm_for_euclid_dist').grad_fn.name())",
}

# the matmul path sums in another order than the direct one, and pow / sqrt round in the
# last bits: a few ulps
FLOAT = {
    "cdist_p": "a = torch.rand(3, 4); b = torch.rand(5, 4); out = [torch.cdist(a, b, p) "
    "for p in (2., 1., 0., 3., 0.5, float('inf'))]",
    "cdist_float64_batched": "a = torch.rand(2, 3, 4, dtype=torch.float64); "
    "b = torch.rand(5, 4, dtype=torch.float64); c = torch.rand(1, 6, 4, dtype=torch.float64); "
    "out = (torch.cdist(a, b), torch.cdist(a, c, 1.), torch.cdist(a, b, float('inf')))",
    "cdist_mm": "a = torch.rand(30, 4, dtype=torch.float64); b = torch.rand(3, 4, "
    "dtype=torch.float64); out = (torch.cdist(a, b), torch.cdist(a[:4], b, "
    "compute_mode='use_mm_for_euclid_dist'), torch.cdist(a, b, "
    "compute_mode='donot_use_mm_for_euclid_dist'), torch.cdist(a, a)[:3, :3])",
    "cdist_noncontig": "a = torch.rand(4, 3).t(); b = torch.rand(4, 5)[:, ::2].t(); "
    "out = (torch.cdist(a, b), torch.cdist(a, b, 1.))",
    "cdist_grad": "a = torch.rand(2, 3, 4, dtype=torch.float64, requires_grad=True); "
    "b = torch.rand(5, 4, dtype=torch.float64, requires_grad=True); w = torch.arange(30., "
    "dtype=torch.float64).view(2, 3, 5); gs = []\n"
    "for p in (2., 1., 0., 3., 0.5, float('inf')):\n"
    "    (torch.cdist(a, b, p) * w).sum().backward(); gs += [a.grad.clone(), b.grad.clone()]; "
    "a.grad = None; b.grad = None\n"
    "out = gs",
    "cdist_grad_mm": "a = torch.rand(30, 4, dtype=torch.float64, requires_grad=True); "
    "b = torch.rand(3, 4, dtype=torch.float64, requires_grad=True); "
    "(torch.cdist(a, b) * torch.arange(90., dtype=torch.float64).view(30, 3)).sum().backward(); "
    "c = torch.rand(2, 4, requires_grad=True); torch.cdist(c, c.detach()).sum().backward(); "
    "out = (a.grad, b.grad, c.grad)",
}


@pytest.mark.parametrize("name", sorted(EXACT))
def test_exact(name: str) -> None:
    check(EXACT[name])


@pytest.mark.parametrize("name", sorted(FLOAT))
def test_float(name: str) -> None:
    check(FLOAT[name], rtol=1e-5, atol=1e-6)
