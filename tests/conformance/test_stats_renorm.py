"""Conformance of renorm (Normalization.cpp's renorm_out) against torch 2.13: the rescaled
slices, p, dim, in-place and out=, float64, non-contiguous input, gradients and errors."""

from __future__ import annotations

import pytest

from .harness import check

EXACT = {
    "renorm_p_error": "out = torch.rand(3, 4).renorm(0, 0, 1.)",
    "renorm_maxnorm_error": "out = torch.rand(3, 4).renorm(2, 0, -1.)",
    "renorm_dim_error": "out = torch.rand(3).renorm(2, 0, 1.)",
    "renorm_bad_dim": "out = torch.rand(3, 4).renorm(2, 2, 1.)",
    "renorm_int_error": "out = torch.ones(3, 4, dtype=torch.int64).renorm(2, 0, 1.)",
}

FLOAT = {
    "renorm": "x = torch.rand(3, 4) * 2; out = (x.renorm(2, 0, 1.), torch.renorm(x, 1, 1, 1.5), "
    "x.renorm(3., -1, 0.5), x.renorm(float('inf'), 0, 1.), x.renorm(2, 0, 100.))",
    "renorm_3d_float64": "x = torch.rand(2, 3, 4, dtype=torch.float64) * 3; "
    "out = (x.renorm(2, 1, 1.), x.transpose(0, 2).renorm(2, 0, 1.))",
    "renorm_inplace_out": "x = torch.rand(3, 4) * 2; y = x.clone(); r = y.renorm_(2, 0, 1.); "
    "o = torch.empty(0); torch.renorm(x, 2, 1, 1., out=o); out = (y, r is y, o)",
    "renorm_grad": "g = (torch.rand(3, 4, dtype=torch.float64) * 2).requires_grad_(); "
    "(g.renorm(2, 0, 1.) * torch.arange(12., dtype=torch.float64).view(3, 4)).sum().backward(); "
    "h = (torch.rand(3, 4) * 2).requires_grad_(); h.renorm(1, 1, 1.2).pow(2).sum().backward(); "
    "out = (g.grad, h.grad)",
}


@pytest.mark.parametrize("name", sorted(EXACT))
def test_exact(name: str) -> None:
    check(EXACT[name])


@pytest.mark.parametrize("name", sorted(FLOAT))
def test_float(name: str) -> None:
    check(FLOAT[name], rtol=1e-6, atol=1e-7)
