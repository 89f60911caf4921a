"""Conformance of the aliases torch defines (absolute, arccos ... arctanh, greater ...
not_equal, multiply, divide, subtract, negative, positive, true_divide_), isreal, deg2rad and
rad2deg: values, dtypes, in-place and out= forms, errors and gradients, against torch 2.13.0."""

from __future__ import annotations

import warnings

import pytest

from .harness import check

X = (
    "x = torch.tensor([[-0.9, -0.5, 0.0], [0.25, 0.5, 0.75]]); "
    "y = torch.tensor([0.5, -0.5, 0.0]); i = torch.tensor([3, -2, 0]); "
)

PROGRAMS = {
    "absolute": X + "out = (torch.absolute(x), x.absolute(), torch.absolute(i))",
    "absolute_inplace_out": X + "z = x.clone(); z.absolute_(); o = torch.empty(2, 3); "
    "out = (z, torch.absolute(x, out=o))",
    "arc_functions": X + "out = (torch.arccos(x), torch.arcsin(x), torch.arctan(x), "
    "torch.arccosh(x.abs() + 1), torch.arcsinh(x), torch.arctanh(x), "
    "x.arccos(), x.arcsin(), x.arctan(), x.arcsinh(), x.arctanh(), "
    "(x.abs() + 1).arccosh())",
    "arc_int": X + "out = (torch.arctan(i), torch.arcsinh(i))",
    "arc_inplace": X + "a = x.clone(); a.arccos_(); b = x.clone(); torch.arcsin_(b); "
    "c = x.clone(); c.arctan_(); d = x.clone(); d.arcsinh_(); e = x.clone(); "
    "torch.arctanh_(e); f = x.abs() + 1; f.arccosh_(); torch.arccos_(x.clone()); "
    "torch.arccosh_(x.abs() + 1); torch.arcsinh_(x.clone()); "
    "torch.arctan_(x.clone()); out = (a, b, c, d, e, f)",
    "arc_out": X + "o = torch.empty(2, 3); torch.arctan(x, out=o); p = torch.empty(2, 3); "
    "torch.arccos(x, out=p); out = (o, p)",
    "comparisons": X + "out = (torch.greater(x, y), torch.greater_equal(x, 0.5), "
    "torch.less(x, y), torch.less_equal(i, 0), torch.not_equal(x, y), "
    "x.greater(y), x.greater_equal(y), x.less(0), x.less_equal(y), "
    "x.not_equal(0.5))",
    "comparisons_inplace": X + "a = x.clone(); a.greater_(y); b = x.clone(); b.less_(0); "
    "c = x.clone(); c.greater_equal_(y); d = x.clone(); "
    "d.less_equal_(0.25); e = x.clone(); e.not_equal_(y); "
    "out = (a, b, c, d, e)",
    "comparisons_out": X + "o = torch.empty(2, 3, dtype=torch.bool); torch.greater(x, y, out=o); "
    "p = torch.empty(2, 3); torch.less_equal(x, 0, out=p); "
    "q = torch.empty(2, 3, dtype=torch.bool); torch.not_equal(x, y, out=q); "
    "r = torch.empty(2, 3, dtype=torch.bool); torch.greater_equal(x, 0, out=r); "
    "s = torch.empty(2, 3, dtype=torch.bool); torch.less(x, y, out=s); "
    "out = (o, p, q, r, s)",
    "multiply": X + "out = (torch.multiply(x, y), torch.multiply(i, 2.5), x.multiply(i))",
    "multiply_inplace_out": X + "a = x.clone(); a.multiply_(y); b = i.clone(); b.multiply_(3); "
    "o = torch.empty(2, 3); torch.multiply(x, y, out=o); out = (a, b, o)",
    "multiply_inplace_error": X + "b = i.clone(); out = b.multiply_(2.5)",
    "divide": X + "out = (torch.divide(x, y), torch.divide(i, 2), "
    "torch.divide(i, 2, rounding_mode='floor'), x.divide(y, rounding_mode='trunc'), "
    "x.divide(3.0))",
    "divide_inplace_out": X + "a = x.clone(); a.divide_(y); b = x.clone(); "
    "b.divide_(2, rounding_mode='floor'); o = torch.empty(2, 3); "
    "torch.divide(x, y, out=o); p = torch.empty(3, dtype=torch.long); "
    "torch.divide(i, torch.tensor([2]), rounding_mode='trunc', out=p); "
    "out = (a, b, o, p)",
    "divide_bad_mode": X + "out = torch.divide(x, y, rounding_mode='round')",
    "true_divide_inplace": X + "a = x.clone(); a.true_divide_(y); b = x.clone(); "
    "b.true_divide_(4); out = (a, b)",
    "subtract": X + "out = (torch.subtract(x, y), torch.subtract(x, y, alpha=2), "
    "x.subtract(1.5), torch.subtract(i, 1, alpha=3))",
    "subtract_inplace_out": X + "a = x.clone(); a.subtract_(y, alpha=0.5); o = torch.empty(2, 3); "
    "torch.subtract(x, y, out=o); out = (a, o)",
    "subtract_bool_error": "out = torch.subtract(torch.tensor([True]), torch.tensor([False]))",
    "negative_positive": X + "a = x.clone(); a.negative_(); torch.negative_(x.clone()); "
    "o = torch.empty(2, 3); torch.negative(x, out=o); "
    "out = (torch.negative(x), x.negative(), a, o, torch.positive(i), "
    "x.positive() is x)",
    "positive_bool_error": "out = torch.positive(torch.tensor([True]))",
    "negative_bool_error": "out = torch.negative(torch.tensor([True]))",
    "alias_grads": "g = torch.tensor([0.2, -0.4], requires_grad=True); "
    "(torch.multiply(g, g) + torch.divide(g, 3) + torch.subtract(g, g.exp()) "
    "+ torch.negative(g) + torch.positive(g) + torch.absolute(g)"
    ").sum().backward(); out = g.grad",
    "isreal": X + "out = (torch.isreal(x), torch.isreal(i), x.isreal(), "
    "torch.isreal(torch.tensor([1 + 0j, 1j, 2 - 0j])), "
    "torch.isreal(torch.tensor([True])))",
    "deg2rad_rad2deg": X + "out = (torch.deg2rad(x * 180), torch.rad2deg(x), "
    "torch.deg2rad(i), torch.rad2deg(i), x.deg2rad(), x.rad2deg(), "
    "torch.deg2rad(x.double()))",
    "deg2rad_inplace_out": X + "a = x.clone(); a.deg2rad_(); b = x.clone(); torch.rad2deg_(b); "
    "o = torch.empty(2, 3); torch.deg2rad(x, out=o); "
    "p = torch.empty(3); torch.rad2deg(i, out=p); "
    "c = x.clone(); torch.deg2rad_(c); d = x.clone(); d.rad2deg_(); "
    "out = (a, b, o, p, c, d)",
    "deg2rad_int_inplace_error": X + "out = i.clone().deg2rad_()",
    "deg2rad_complex_error": "out = torch.deg2rad(torch.tensor([1j]))",
    "rad2deg_complex_error": "out = torch.rad2deg(torch.tensor([1j]))",
    "deg2rad_grad": "g = torch.tensor([0.2, -0.4], requires_grad=True); "
    "(torch.deg2rad(g) * torch.rad2deg(g)).sum().backward(); out = g.grad",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_alias(name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(PROGRAMS[name], rtol=2e-6, atol=1e-7)
