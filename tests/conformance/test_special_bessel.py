"""Conformance of torch.special's airy_ai, bessel_y0 / y1, the modified Bessel functions
(modified_bessel_i0 / i1 / k0 / k1, scaled_modified_bessel_k0 / k1) and spherical_bessel_j0
against torch 2.13: float32 and float64 values on a grid with the branch points (2, 5, 8), 0,
negatives, large, inf and nan (airy_ai's at +-2.09, 8.32, 103.9);
integer inputs, out=, no gradient, and the dtypes AT_DISPATCH_FLOATING_TYPES refuses."""

from __future__ import annotations

import pytest

from .harness import check

GRID = (
    "x = torch.tensor([-150., -50., -2.1, -2.09, -2.08, 2.08, 2.09, 2.1, 8.32, 8.33, 103., "
    "104., -12., -5., -1e-6, 0., 1e-6, 0.3, 0.5, 1., 2., 2.0001, 5., 7.99, 8., "
    "8.01, 20., 100., 700., 750., float('inf'), float('-inf'), float('nan')]); "
)
NAMES = (
    "airy_ai",
    "bessel_y0",
    "bessel_y1",
    "modified_bessel_i0",
    "modified_bessel_i1",
    "modified_bessel_k0",
    "modified_bessel_k1",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "spherical_bessel_j0",
)
PROGRAMS = {
    **{
        f"{name}_values": GRID + f"f = torch.special.{name}; "
        "out = [f(x), f(x.double()), f(torch.arange(-2, 4)), f(x.view(3, 11)[:, ::2])]"
        for name in NAMES
    },
    "out_and_no_grad": "x = torch.rand(3, requires_grad=True) + 0.5; "
    f"fs = [getattr(torch.special, n) for n in {NAMES!r}]; ys = [f(x) for f in fs]; "
    "os = [torch.empty(0) for _ in fs]; rs = [f(x.detach(), out=o) for f, o in zip(fs, os)]; "
    "out = [(y.requires_grad, y.grad_fn) for y in ys] + os + [r is o for r, o in zip(rs, os)]",
    **{
        f"err_{name}_half": f"out = torch.special.{name}(torch.ones(2, dtype=torch.half))"
        for name in NAMES
    },
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_special_bessel(name: str) -> None:
    check(PROGRAMS[name], rtol=1e-5, atol=1e-6)
