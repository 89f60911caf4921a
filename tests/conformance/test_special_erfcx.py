"""Conformance of torch.special.erfcx and log_ndtr against torch 2.13: float32 and float64 values
on a grid across erfcx's branches (the 100-interval Chebyshev table, the continued fraction past
50, the 1-term form past 5e7, 2 exp(x^2) below -6.1, inf below -26.7) and log_ndtr's (erfcx
below -1), with 0, +-inf and nan; integer inputs, out=, gradients and grad_fn names, and the
dtypes AT_DISPATCH_FLOATING_TYPES refuses."""

from __future__ import annotations

import pytest

from .harness import check

GRID = (
    "x = torch.tensor([-1e10, -30., -26.8, -26.6, -10., -6.2, -6.0, -1.5, -1., -0.99, -1e-17, "
    "0., 1e-17, 0.3, 1., 3.9, 10., 49., 51., 1e8, 1e30, float('inf'), float('-inf'), "
    "float('nan')]); "
)
PROGRAMS = {
    "values": GRID + "out = [f(y) for f in (torch.special.erfcx, torch.special.log_ndtr) "
    "for y in (x, x.double(), torch.arange(-3, 4), x.view(4, 6)[:, ::2])]",
    "out": "x = torch.randn(5); o1, o2 = torch.empty(0), torch.empty(0); "
    "r1 = torch.special.erfcx(x, out=o1); r2 = torch.special.log_ndtr(x, out=o2); "
    "out = (o1, o2, r1 is o1, r2 is o2)",
    "grads": "x = torch.tensor([-8., -2., -0.5, 0., 0.7, 3., 60.], dtype=torch.float64, "
    "requires_grad=True); y = torch.special.erfcx(x); z = torch.special.log_ndtr(x); "
    "((y * torch.arange(7.)).sum() + z.sum()).backward(); "
    "out = (y, z, x.grad, y.grad_fn.name(), z.grad_fn.name())",
    "err_erfcx_half": "torch.special.erfcx(torch.ones(2, dtype=torch.half))",
    "err_log_ndtr_half": "torch.special.log_ndtr(torch.ones(2, dtype=torch.half))",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_special_erfcx(name: str) -> None:
    check(PROGRAMS[name], rtol=1e-5, atol=1e-6)
