"""Conformance of the binary math ops of issue #15 (atan2 / arctan2, fmod, xlogy, logical_xor,
copysign, heaviside, fmax, fmin, logaddexp, float_power): values, type promotion (integer, bool
and Scalar operands), broadcasting, in-place and out= forms, errors and gradients, against torch
2.13.0."""

from __future__ import annotations

import warnings

import pytest

from .harness import check

AB = (
    "a = torch.tensor([[-2.5, -1.0, 0.0, 0.5, 3.0]]); "
    "b = torch.tensor([[1.5], [-2.0], [0.0], [float('nan')]]); "
    "ia = torch.tensor([-7, 5, 3, 0]); ib = torch.tensor([2, -3, 4, 5]); "
    "m = torch.tensor([True, False, True, False]); "
)
G = (
    "g = torch.tensor([0.3, -0.7, 2.0], requires_grad=True); "
    "h = torch.tensor([1.2, 0.4, -1.0], requires_grad=True); "
)

PROGRAMS = {
    "atan2": AB + "out = torch.atan2(a, b)",
    "atan2_int": AB + "out = torch.atan2(ia, ib)",
    "atan2_bool": AB + "out = torch.atan2(m, m)",
    "atan2_method_inplace": AB + "y = a.clone(); r = y.atan2_(a.flip(1)); "
    "out = (y, r is y, a.atan2(a))",
    "atan2_out": AB + "o = torch.empty(4, 5); out = (torch.atan2(a, b, out=o), o)",
    "arctan2": AB + "out = (torch.arctan2(a, b), a.arctan2(b))",
    "arctan2_inplace": AB + "y = a.clone(); y.arctan2_(a); out = y",
    "arctan2_out": AB + "o = torch.empty(4, 5); torch.arctan2(a, b, out=o); out = o",
    "atan2_complex_error": "out = torch.atan2(torch.tensor([1j]), torch.tensor([1j]))",
    "fmod": AB + "out = torch.fmod(a, b)",
    "fmod_int": AB + "out = torch.fmod(ia, ib)",
    "fmod_scalar": AB + "out = (torch.fmod(a, 1.5), ia.fmod(2), torch.fmod(ia, 2.5))",
    "fmod_int_zero_error": AB + "out = torch.fmod(ia, 0)",
    "fmod_bool_error": AB + "out = torch.fmod(m, m)",
    "fmod_inplace": AB + "y = ia.clone(); y.fmod_(ib); z = a.clone(); z.fmod_(0.7); out = (y, z)",
    "fmod_out": AB + "o = torch.empty(4, dtype=torch.long); torch.fmod(ia, 3, out=o); out = o",
    "fmod_inplace_promotion_error": AB + "y = ia.clone(); out = y.fmod_(1.5)",
    "xlogy": AB + "out = torch.xlogy(a, b.abs())",
    "xlogy_int": AB + "out = torch.xlogy(ia, ib)",
    "xlogy_scalars": AB + "out = (torch.xlogy(2, b.abs()), torch.xlogy(a, 3), a.xlogy(2.5))",
    "xlogy_zero_nan": "out = torch.xlogy(torch.tensor([0., 0., 1.]), "
    "torch.tensor([0., float('nan'), 0.]))",
    "xlogy_inplace": AB + "y = a.abs(); y.xlogy_(a.abs()); z = a.clone(); z.xlogy_(2); "
    "out = (y, z)",
    "xlogy_out": AB + "o = torch.empty(5); torch.xlogy(2, a.abs()[0], out=o); out = o",
    "logical_xor": AB + "out = (torch.logical_xor(a, b), torch.logical_xor(ia, m), "
    "a.logical_xor(a))",
    "logical_xor_inplace": AB + "y = ia.clone(); y.logical_xor_(m); out = y",
    "logical_xor_out": AB + "o = torch.empty(4); torch.logical_xor(ia, m, out=o); out = o",
    "copysign": AB + "out = torch.copysign(a, b)",
    "copysign_int": AB + "out = (torch.copysign(ia, ib), torch.copysign(ia, -1), a.copysign(-0.0))",
    "copysign_inplace": AB + "y = a.clone(); y.copysign_(-1); z = a.clone(); "
    "z.copysign_(a.neg()); out = (y, z)",
    "copysign_out": AB + "o = torch.empty(5); torch.copysign(a[0], -2, out=o); out = o",
    "heaviside": AB + "out = torch.heaviside(a, torch.tensor([0.5]))",
    "heaviside_int": AB + "out = (torch.heaviside(ia, ib), ia.heaviside(ib))",
    "heaviside_bool": AB + "out = torch.heaviside(m, m.logical_not())",
    "heaviside_dtype_error": AB + "out = torch.heaviside(ia, a[0, :4])",
    "heaviside_complex_error": "out = torch.heaviside(torch.tensor([1j]), torch.tensor([1j]))",
    "heaviside_inplace": AB + "y = a.clone(); y.heaviside_(torch.tensor([7.])); out = y",
    "fmax_fmin": AB + "out = (torch.fmax(a, b), torch.fmin(a, b), a.fmax(b), a.fmin(b))",
    "fmax_fmin_int": AB + "out = (torch.fmax(ia, ib), torch.fmin(ia, a[0, :4]), torch.fmax(m, m))",
    "fmax_out": AB + "o = torch.empty(4, 5); torch.fmax(a, b, out=o); out = o",
    "fmin_out": AB + "o = torch.empty(4, 5); torch.fmin(a, b, out=o); out = o",
    "fmax_complex_error": "out = torch.fmax(torch.tensor([1j]), torch.tensor([1.]))",
    "logaddexp": AB + "out = torch.logaddexp(a, b)",
    "logaddexp_inf": "i = torch.tensor([float('inf'), float('-inf'), float('-inf')]); "
    "out = torch.logaddexp(i, torch.tensor([float('inf'), float('-inf'), 0.]))",
    "logaddexp_int_error": AB + "out = torch.logaddexp(ia, ib)",
    "logaddexp_method": AB + "out = a.logaddexp(a)",
    "logaddexp_out": AB + "o = torch.empty(4, 5); torch.logaddexp(a, b, out=o); out = o",
    "float_power": AB + "out = (torch.float_power(a, 2), torch.float_power(ia, ib), "
    "torch.float_power(2, ia), a.float_power(b))",
    "float_power_complex": AB + "out = torch.float_power(a, 1j)",
    "float_power_inplace": "y = torch.tensor([1.5, 2.], dtype=torch.float64); "
    "y.float_power_(2); y.float_power_(torch.tensor([1, 2])); out = y",
    "float_power_inplace_error": AB + "out = a.float_power_(2)",
    "float_power_out": AB + "o = torch.empty(4, dtype=torch.float64); "
    "torch.float_power(ia, 2, out=o); out = o",
    "float_power_out_error": AB + "o = torch.empty(4); out = torch.float_power(ia, 2, out=o)",
    "grads": G + "(torch.atan2(g, h) + torch.fmod(g, h) + torch.xlogy(h, h.abs()) "
    "+ torch.copysign(g, h) + torch.fmax(g, h) + torch.fmin(g, h) "
    "+ torch.logaddexp(g, h) + torch.float_power(g, 2).float()).sum().backward(); "
    "out = (g.grad, h.grad)",
    "grads_scalar": G + "(torch.fmod(g, 0.5) + torch.xlogy(g, 2.) + torch.xlogy(3., h.abs()) "
    "+ torch.copysign(g, -1)).sum().backward(); out = (g.grad, h.grad)",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_binary_math(name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(PROGRAMS[name], rtol=2e-6, atol=1e-7)
