"""Conformance of isposinf, isneginf and nan_to_num (issue #15) against torch 2.13.0: values,
dtypes (integer, bool, half and complex inputs), in-place and out= forms, errors, gradients."""

from __future__ import annotations

import pytest

from .harness import check

X = "x = torch.tensor([1.0, float('nan'), float('inf'), -float('inf'), -2.5]); "

PROGRAMS = {
    "isposinf": X + "out = (torch.isposinf(x), x.isposinf(), torch.isposinf(torch.arange(3)))",
    "isneginf": X + "out = (torch.isneginf(x), x.isneginf(), torch.isneginf(torch.tensor([True])))",
    "isposinf_out": X + "o = torch.empty(5, dtype=torch.bool); torch.isposinf(x, out=o); out = o",
    "isneginf_out": X + "o = torch.empty(5, dtype=torch.bool); torch.isneginf(x, out=o); out = o",
    "isposinf_complex_error": "out = torch.isposinf(torch.tensor([1j]))",
    "isneginf_complex_error": "out = torch.isneginf(torch.tensor([1j]))",
    "nan_to_num": X + "out = (torch.nan_to_num(x), x.nan_to_num(nan=1.5, posinf=9.0), "
    "torch.nan_to_num(x, neginf=-7.0), torch.nan_to_num(x.double()))",
    "nan_to_num_half": X + "out = torch.nan_to_num(x.half())",
    "nan_to_num_int": "out = (torch.nan_to_num(torch.arange(3)), "
    "torch.nan_to_num(torch.tensor([True, False])))",
    "nan_to_num_complex": "out = torch.nan_to_num(torch.tensor([complex(float('nan'), "
    "float('inf')), 1 + 1j]), nan=2.0)",
    "nan_to_num_inplace": X + "y = x.clone(); r = y.nan_to_num_(0.5); z = x.clone(); "
    "torch.nan_to_num_(z); out = (y, r is y, z)",
    "nan_to_num_out": X + "o = torch.empty(5); torch.nan_to_num(x, 0.0, 1.0, -1.0, out=o); out = o",
    "nan_to_num_out_dtype_error": X + "o = torch.empty(5, dtype=torch.float64); "
    "out = torch.nan_to_num(x, out=o)",
    "nan_to_num_grad": "g = torch.tensor([1.0, float('inf'), 2.0], requires_grad=True); "
    "torch.nan_to_num(g * 3).sum().backward(); out = g.grad",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_nan_inf(name: str) -> None:
    check(PROGRAMS[name])
