"""Conformance of the inverse cdfs built on torch.erfinv (Normal, HalfNormal, LogNormal), vs
torch 2.13.

torch.erfinv comes with the fft-special branch's special functions: until that merge the module
skips. (Checked against torch on fft-special's tree with these distributions on top.)
"""

from __future__ import annotations

import pytest

import tensortrace

from .harness import check

if not hasattr(tensortrace, "erfinv"):
    pytest.skip("needs torch.erfinv (the fft-special branch)", allow_module_level=True)

SETUP = "D = torch.distributions\n"

PROGRAMS = {
    "normal": (
        "m = D.Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0])); "
        "out = m.icdf(torch.tensor([0.2, 0.9]))"
    ),
    "half_normal": (
        "m = D.HalfNormal(torch.tensor([1.0, 2.0])); out = m.icdf(torch.tensor([0.2, 0.9]))"
    ),
    "log_normal": (
        "m = D.LogNormal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0])); "
        "out = m.icdf(torch.tensor([0.2, 0.9]))"
    ),
    "normal_grad": (
        "loc = torch.tensor([0.5, -1.0], requires_grad=True); "
        "D.Normal(loc, torch.tensor([2.0, 1.0])).icdf(torch.tensor([0.3, 0.6])).sum().backward(); "
        "out = loc.grad"
    ),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_icdf(name: str) -> None:
    check(SETUP + PROGRAMS[name], rtol=1e-6, atol=1e-7)
