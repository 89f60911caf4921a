"""Conformance of the rounding and special unary ops of issue #15 (floor, ceil, trunc, fix,
round with and without decimals, tan, log2, log10, exp2, rsqrt, erf, erfc, sinc, signbit,
square): values, dtypes (integer and bool inputs), in-place and out= forms, strides, errors
and gradients, against torch 2.13.0. Transcendental kernels compare with a tight tolerance
(SLEEF versus libm, Note in test_elementwise.py)."""

from __future__ import annotations

import warnings

import pytest

from .harness import check

X = "x = torch.tensor([-2.5, -1.5, -0.4, 0.0, 0.5, 1.5, 2.7, float('inf'), float('nan')]); "
G = "g = torch.tensor([0.3, 0.7, 1.9], requires_grad=True); "

PROGRAMS = {
    **{
        f"{op}_float": X + f"out = torch.{op}(x)"
        for op in (
            "floor",
            "ceil",
            "trunc",
            "fix",
            "round",
            "tan",
            "exp2",
            "erf",
            "erfc",
            "sinc",
            "signbit",
            "square",
        )
    },
    **{f"{op}_pos": X + f"out = torch.{op}(x.abs())" for op in ("log2", "log10", "rsqrt")},
    **{
        f"{op}_int": f"out = torch.{op}(torch.arange(-3, 4))"
        for op in (
            "floor",
            "ceil",
            "trunc",
            "fix",
            "round",
            "tan",
            "log2",
            "log10",
            "exp2",
            "rsqrt",
            "erf",
            "erfc",
            "sinc",
            "signbit",
            "square",
        )
    },
    **{
        f"{op}_bool": f"out = torch.{op}(torch.tensor([True, False]))"
        for op in (
            "floor",
            "ceil",
            "trunc",
            "round",
            "tan",
            "exp2",
            "erf",
            "sinc",
            "signbit",
            "square",
        )
    },
    **{
        f"{op}_method_inplace": X + f"y = x.clone(); r = y.{op}_(); out = (y, r is y, x.{op}())"
        for op in (
            "floor",
            "ceil",
            "trunc",
            "fix",
            "round",
            "tan",
            "exp2",
            "erf",
            "erfc",
            "sinc",
            "square",
        )
    },
    **{
        f"{op}_out": X + f"o = torch.empty(9, dtype=torch.float64); r = torch.{op}(x, out=o); "
        "out = (o, r is o)"
        for op in ("floor", "round", "tan", "erf", "square", "fix")
    },
    **{
        f"{op}_grad": G + f"torch.{op}(g).sum().backward(); out = g.grad"
        for op in (
            "floor",
            "ceil",
            "trunc",
            "round",
            "tan",
            "log2",
            "log10",
            "exp2",
            "rsqrt",
            "erf",
            "erfc",
            "square",
            "fix",
        )
    },
    # the names spelled out, for test_shared_names
    "floor_literal": X + "out = (torch.floor(x.abs()), x.abs().floor())",
    "floor_function_inplace": X + "y = x.abs(); torch.floor_(y); out = y",
    "ceil_literal": X + "out = (torch.ceil(x.abs()), x.abs().ceil())",
    "ceil_function_inplace": X + "y = x.abs(); torch.ceil_(y); out = y",
    "trunc_literal": X + "out = (torch.trunc(x.abs()), x.abs().trunc())",
    "trunc_function_inplace": X + "y = x.abs(); torch.trunc_(y); out = y",
    "fix_literal": X + "out = (torch.fix(x.abs()), x.abs().fix())",
    "fix_function_inplace": X + "y = x.abs(); torch.fix_(y); out = y",
    "round_literal": X + "out = (torch.round(x.abs()), x.abs().round())",
    "round_function_inplace": X + "y = x.abs(); torch.round_(y); out = y",
    "tan_literal": X + "out = (torch.tan(x.abs()), x.abs().tan())",
    "tan_function_inplace": X + "y = x.abs(); torch.tan_(y); out = y",
    "log2_literal": X + "out = (torch.log2(x.abs()), x.abs().log2())",
    "log2_function_inplace": X + "y = x.abs(); torch.log2_(y); out = y",
    "log10_literal": X + "out = (torch.log10(x.abs()), x.abs().log10())",
    "log10_function_inplace": X + "y = x.abs(); torch.log10_(y); out = y",
    "exp2_literal": X + "out = (torch.exp2(x.abs()), x.abs().exp2())",
    "exp2_function_inplace": X + "y = x.abs(); torch.exp2_(y); out = y",
    "rsqrt_literal": X + "out = (torch.rsqrt(x.abs()), x.abs().rsqrt())",
    "rsqrt_function_inplace": X + "y = x.abs(); torch.rsqrt_(y); out = y",
    "erf_literal": X + "out = (torch.erf(x.abs()), x.abs().erf())",
    "erf_function_inplace": X + "y = x.abs(); torch.erf_(y); out = y",
    "erfc_literal": X + "out = (torch.erfc(x.abs()), x.abs().erfc())",
    "erfc_function_inplace": X + "y = x.abs(); torch.erfc_(y); out = y",
    "sinc_literal": X + "out = (torch.sinc(x.abs()), x.abs().sinc())",
    "sinc_function_inplace": X + "y = x.abs(); torch.sinc_(y); out = y",
    "signbit_literal": X + "out = (torch.signbit(x.abs()), x.abs().signbit())",
    "square_literal": X + "out = (torch.square(x.abs()), x.abs().square())",
    "square_function_inplace": X + "y = x.abs(); torch.square_(y); out = y",
    "round_decimals": "out = torch.round(torch.tensor([1.2345, 2.5, -1.55, 0.125]), decimals=2)",
    "round_decimals_neg": "out = torch.round(torch.tensor([1234.5, -151., 50.]), decimals=-2)",
    "round_decimals_double": "out = torch.tensor([1.005, 2.675], dtype=torch.float64)"
    ".round(decimals=2)",
    "round_decimals_int_error": "out = torch.round(torch.arange(3), decimals=1)",
    "round_decimals_grad": G + "torch.round(g, decimals=1).sum().backward(); out = g.grad",
    "round_half_even": "out = torch.round(torch.tensor([0.5, 1.5, 2.5, -0.5, -2.5]))",
    "floor_half": "out = torch.floor(torch.tensor([1.5, -1.5], dtype=torch.float16))",
    "floor_noncontig": "out = torch.arange(12.).reshape(3, 4).t().mul(0.7).floor()",
    "floor_complex_error": "out = torch.floor(torch.tensor([1j]))",
    "signbit_complex_error": "out = torch.signbit(torch.tensor([1j]))",
    "signbit_neg_zero": "out = torch.signbit(torch.tensor([-0.0, 0.0, -1.0]))",
    "signbit_out": "o = torch.empty(3, dtype=torch.bool); "
    "out = torch.signbit(torch.tensor([-1., 2., -3.]), out=o)",
    "erf_complex_error": "out = torch.erf(torch.tensor([1j]))",
    "tan_complex": "out = torch.tan(torch.tensor([1j, 0.5 + 0.5j]))",
    "rsqrt_negative": "out = torch.rsqrt(torch.tensor([-1., 0., 4.]))",
    "log2_out_int_error": "o = torch.empty(3, dtype=torch.long); "
    "out = torch.log2(torch.tensor([1., 2., 4.]), out=o)",
    "square_int8_wraps": "out = torch.tensor([100, -12], dtype=torch.int8).square()",
    "floor_int_out_dtype": "o = torch.empty(3); out = torch.floor(torch.arange(3), out=o)",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_unary_math(name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(PROGRAMS[name], rtol=2e-6, atol=1e-7)
