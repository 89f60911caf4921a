"""Conformance of the elementwise ops: type promotion, broadcasting, in-place and out= forms,
Python operators and PyTorch's errors, against torch 2.13.0.

Programs are bit-exact unless listed in TOLERANT: PyTorch's Vectorized<float> exp, log, sin,
cos, tanh, sigmoid and pow come from SLEEF, whose results may differ from NumPy's libm in the
last bit (1 ulp), so those compare with a tight relative tolerance.
"""

from __future__ import annotations

import pytest

from .harness import check

SETUP = (
    "x = torch.rand(3, 4) * 4 - 2; y = torch.rand(4) * 4 - 2; "
    "a = torch.arange(-6, 6).reshape(3, 4); b = torch.arange(1, 5); "
    "m = x > 0; "
)

PROGRAMS = {
    # ---- type promotion: tensor-tensor, 0-dim tensors, wrapped numbers -----------------------
    "promote_int_float": "out = a + x",
    "promote_uint8_int8": "out = torch.arange(4).to(torch.uint8) * torch.arange(4).to(torch.int8)",
    "promote_half_bfloat16": "out = x.to(torch.float16) * x.to(torch.bfloat16)",
    "promote_bool_int": "out = m * a",
    "promote_bool_float": "out = m - x",
    "promote_int32_int64": "out = a.to(torch.int32) - b",
    "promote_float_double": "out = x * x.to(torch.float64)",
    "promote_zero_dim_same_category": "out = x * torch.full((), 2.0, dtype=torch.float64)",
    "promote_zero_dim_higher_category": "out = a * torch.full((), 2.5)",
    "promote_zero_dim_int_into_uint8": "out = torch.arange(4).to(torch.uint8) + "
    "torch.full((), 300)",
    "promote_scalar_float_into_int": "out = a * 2.5",
    "promote_scalar_int_keeps_int8": "out = a.to(torch.int8) * 3",
    "promote_scalar_int_wraps_uint8": "out = torch.arange(4).to(torch.uint8) + 1000",
    "promote_scalar_float_keeps_half": "out = x.to(torch.float16) * 2.5",
    "promote_scalar_bool": "out = a * True",
    "promote_two_zero_dims": "out = torch.full((), 2) * torch.full((), 3.0, dtype=torch.float64)",
    "result_type": "out = (torch.result_type(a, 2.5), torch.result_type(x, a), "
    "torch.result_type(2, 3.5), torch.result_type(3, x.to(torch.float16)))",
    "promote_types": "out = (torch.promote_types(torch.uint8, torch.int8), "
    "torch.promote_types(torch.float16, torch.bfloat16), "
    "torch.promote_types(torch.bool, torch.int16))",
    "can_cast": "out = (torch.can_cast(torch.float32, torch.int32), "
    "torch.can_cast(torch.int32, torch.float16), "
    "torch.can_cast(torch.int8, torch.bool))",
    # ---- sub, mul, div -----------------------------------------------------------------------
    "sub_broadcast": "out = x - y",
    "sub_alpha": "out = torch.sub(x, y, alpha=2)",
    "sub_int_alpha": "out = a.sub(b, alpha=3)",
    "sub_bool_error": "out = m - m",
    "sub_bool_tensor_error": "out = m - x",
    "sub_uint8_wraps": "out = torch.arange(4).to(torch.uint8) - 5",
    "sub_bool_alpha_error": "out = x.sub(x, alpha=True)",
    "sub_float_alpha_int_error": "out = a.sub(a, alpha=0.5)",
    "sub_alpha_overflow": "out = a.to(torch.int8).sub(a.to(torch.int8), alpha=300)",
    "rsub_scalar": "out = 2 - x",
    "rsub_function": "out = torch.rsub(x, y, alpha=2)",
    "mul_scalar_reflected": "out = 3 * a",
    "mul_int_overflow_wraps": "out = torch.full((3,), 100, dtype=torch.int8) * 3",
    "mul_bool": "out = m * m",
    "div_true_int": "out = a / b",
    "div_true_scalar": "out = a / 4",
    "div_reflected": "out = 2 / b",
    "div_by_zero_float": "out = x / torch.zeros(4)",
    "div_trunc_int": "out = torch.div(a, 4, rounding_mode='trunc')",
    "div_floor_int": "out = torch.div(a, -4, rounding_mode='floor')",
    "div_trunc_float": "out = x.div(0.7, rounding_mode='trunc')",
    "div_floor_float": "out = x.div(-0.7, rounding_mode='floor')",
    "div_floor_half": "out = x.to(torch.float16).div(0.3, rounding_mode='floor')",
    "div_int_by_zero_error": "out = torch.div(a, 0, rounding_mode='trunc')",
    "div_bad_rounding_mode": "out = x.div(x, rounding_mode='round')",
    "true_divide": "out = torch.true_divide(a, 3)",
    "floor_divide_int": "out = a // 4",
    "floor_divide_reflected": "out = 7 // b",
    "floor_divide_float": "out = x // 0.5",
    "floor_divide_by_zero_error": "out = a // 0",
    "floor_divide_bool_error": "out = m // m",
    # ---- remainder, pow ----------------------------------------------------------------------
    "remainder_int_sign": "out = a % 4, a % -4",
    "remainder_float": "out = x % 0.75",
    "remainder_reflected": "out = 5 % b",
    "remainder_by_zero_error": "out = a % 0",
    "remainder_float_by_zero": "out = x % 0.0",
    "pow_int_scalar": "out = a ** 3",
    "pow_int_negative_error": "out = a ** -1",
    "pow_int_tensor_negative_exponent": "out = torch.arange(-2, 3).pow(torch.arange(-2, 3) * -1)",
    "pow_float_square": "out = x ** 2",
    "pow_exponent_zero": "out = x.pow(0), a.pow(0)",
    "pow_exponent_one": "out = a.pow(1.0)",
    "pow_int_float_exponent": "out = b ** 0.5",
    "pow_scalar_base": "out = 2 ** b",
    "pow_scalar_base_one": "out = torch.pow(1, x)",
    "pow_bool_scalar": "out = m.pow(2)",
    "pow_bool_tensor_error": "out = m.pow(m)",
    "pow_inplace_int_float_error": "out = a.pow_(0.5)",
    "pow_two_numbers_error": "out = torch.pow(2, 3)",
    "pow_int_overflow_wraps": "out = torch.full((2,), 7, dtype=torch.int8) ** 5",
    # ---- unary ops ---------------------------------------------------------------------------
    "neg": "out = -x, -a",
    "neg_bool_error": "out = -m",
    "neg_int8_min_wraps": "out = -torch.full((2,), -128, dtype=torch.int16).to(torch.int8)",
    "abs": "out = abs(x), a.abs()",
    "abs_bool_error": "out = m.abs()",
    "abs_out_dtype_error": "out = torch.abs(x, out=torch.empty(3, 4, dtype=torch.int64))",
    "sqrt_int_promotes": "out = b.sqrt()",
    "sqrt_bool_promotes": "out = m.sqrt()",
    "reciprocal": "out = b.reciprocal()",
    "exp_inplace_int_error": "out = a.exp_()",
    "relu": "out = x.relu(), torch.relu(a)",
    "relu_bool_error": "out = m.relu()",
    "relu_inplace_view": "x2 = x * 1; v = x2[1]; v.relu_(); out = (x2, x2._version)",
    "logical_not": "out = a.logical_not(), torch.logical_not(x)",
    "logical_not_inplace_float": "out = x.logical_not_()",
    "bitwise_not_int": "out = ~a",
    "bitwise_not_bool": "out = ~m",
    "invert_float_error": "out = ~x",
    "bitwise_not_float_error": "out = x.bitwise_not()",
    # ---- clamp, maximum, minimum -------------------------------------------------------------
    "clamp_scalars": "out = x.clamp(-0.5, 0.5)",
    "clamp_min_only": "out = torch.clamp(x, min=0.1)",
    "clamp_int_float_bound": "out = a.clamp(0.5)",
    "clamp_int_inplace_float_error": "out = a.clamp_(0.5)",
    "clamp_none_error": "out = x.clamp()",
    "clamp_tensor_bounds": "out = x.clamp(min=y)",
    "clamp_tensor_both": "out = x.clamp(y, y + 1)",
    "clamp_min_greater_than_max": "out = x.clamp(1, -1)",
    "clamp_int_promotes_tensor": "out = a.clamp(min=torch.zeros(4))",
    "clamp_overflow_error": "out = a.to(torch.int8).clamp(max=1000)",
    "clamp_nan_bound": "out = x.clamp(float('nan'), 1.0)",
    "maximum_minimum": "out = torch.maximum(x, y), torch.minimum(a, b)",
    "maximum_nan": "out = torch.maximum(x, torch.full((4,), float('nan')))",
    "max_other": "out = torch.max(x, y), x.min(y), torch.max(a, b)",
    "max_other_broadcast": "out = torch.min(x, torch.rand(2, 4))",
    "max_other_out": "o = torch.empty(4); torch.max(x, y, out=o); out = o",
    "max_other_bad_type": "out = torch.max(x, 'a')",
    "max_invalid_combination": "out = x.max('a')",  # torch's "didn't match because" lines
    "maximum_bool": "out = torch.maximum(m, ~m)",
    "maximum_number_error": "out = torch.maximum(x, 2)",
    # ---- comparisons, logical and bitwise ----------------------------------------------------
    "comparisons": "out = (x == y, x != y, x < y, x <= y, x > y, x >= y)",
    "comparison_scalar": "out = (a == 2, a < 2.5, a >= -1, x > 0)",
    "comparison_mixed_dtypes": "out = a.to(torch.uint8) < a.to(torch.int8)",
    "comparison_inplace": "out = x.clone().eq_(y), a.clone().lt_(0.5)",
    "comparison_out_float": "o = torch.empty(3, 4); torch.lt(x, y, out=o); out = o",
    "comparison_out_int": "o = torch.empty(3, 4, dtype=torch.int64); torch.ge(a, 0, out=o); "
    "out = o",
    "logical_and_or": "out = torch.logical_and(a, x), x.logical_or(a)",
    "logical_and_inplace": "out = x.clone().logical_and_(a)",
    "bool_and_or": "out = m & ~m, m | ~m, m & True, False | m",
    "int_and_or": "out = a & 3, a | b",
    "float_and_error": "out = x & x",
    "rand_operator": "out = 3 & a",
    # ---- where, masked_fill ------------------------------------------------------------------
    "where_tensors": "out = torch.where(m, x, y)",
    "where_promotes": "out = torch.where(m, a, x)",
    "where_scalar_other": "out = torch.where(m, a, 2.5)",
    "where_scalar_self": "out = torch.where(m, 1, a.to(torch.int8))",
    "where_scalars": "out = torch.where(m, 2, 3), torch.where(m, 2., 3), torch.where(m, True, 3)",
    "where_method": "out = x.where(m, 0.0)",
    "where_int_condition_error": "out = torch.where(a, x, x)",
    "where_out": "o = torch.empty(3, 4); torch.where(m, x, y, out=o); out = o",
    "where_overflow_error": "out = torch.where(m, a.to(torch.int8), 1000)",
    "masked_fill_scalar": "out = x.masked_fill(m, 1.5)",
    "masked_fill_int_float_value": "out = a.masked_fill(m, 1.5)",
    "masked_fill_tensor_value": "out = a.masked_fill(m, torch.full((), 7))",
    "masked_fill_broadcast_mask": "out = x.masked_fill(y > 0, -1.0)",
    "masked_fill_non_bool_mask_error": "out = x.masked_fill(a, 1.0)",
    "masked_fill_value_dim_error": "out = x.masked_fill(m, y)",
    "masked_fill_overflow_error": "out = a.to(torch.int8).masked_fill(m, 1000)",
    "masked_fill_inplace": "x2 = x * 1; x2.masked_fill_(m, 0.0); out = (x2, x2._version)",
    # ---- in-place, out= and views ------------------------------------------------------------
    "sub_inplace": "x2 = x.clone(); x2.sub_(y); out = x2",
    "isub_view": "x2 = x * 1; v = x2[:, 1]; v -= 1; out = (x2, x2._version, v._version)",
    "imul_int_float_error": "a2 = a.clone(); a2 *= 1.5; out = a2",
    "itruediv_int_error": "a2 = a.clone(); a2 /= 2; out = a2",
    "itruediv_float": "x2 = x.clone(); x2 /= 2; out = x2",
    "ifloordiv_imod": "a2 = a.clone(); a2 //= 3; a3 = a.clone(); a3 %= 3; out = (a2, a3)",
    "ipow": "x2 = x.clone(); x2 **= 2; out = x2",
    "inplace_broadcast_error": "out = y.mul_(x)",
    "mul_out": "o = torch.empty(3, 4, dtype=torch.float64); torch.mul(x, y, out=o); out = o",
    "mul_out_resize": "o = torch.empty(0); torch.mul(x, y, out=o); out = o",
    "add_out_unsafe_cast_error": "o = torch.empty(3, 4, dtype=torch.int64); "
    "out = torch.add(x, y, out=o)",
    "div_out_mode": "o = torch.empty(3, 4, dtype=torch.int64); "
    "torch.div(a, 3, rounding_mode='floor', out=o); out = o",
    "non_contiguous_inputs": "t = torch.rand(4, 6); out = t[::2, 1::2] * t.t()[1:4:2, :3]",
    "expanded_input": "out = torch.rand(3, 1).expand(3, 4) - torch.rand(4)",
    "permuted_output_layout": "out = torch.rand(4, 3).t() * 2",
    "where_permuted_layout": "out = torch.where(m.t(), x.t(), y.expand(3, 4).t())",
    "logical_and_permuted_layout": "out = torch.logical_and(x.t(), a.t())",
    "abs_permuted_layout": "out = x.t().abs(), a.t()[::2].abs()",
    "half_arith": "h = x.to(torch.float16); out = (h + h * 3, h - 1.5, h * h)",
    "bfloat16_arith": "h = x.to(torch.bfloat16); out = (h * 3, h / 7, h - h * 0.1)",
    "half_alpha_single_rounding": "h = x.to(torch.float16); out = h.sub(h, alpha=0.3)",
}

# SLEEF vs libm: the transcendental kernels agree with torch to 1-2 ulp, not bit for bit
TOLERANT = {
    "exp_log": "out = x.exp(), x.abs().log(), b.log()",
    "trig": "out = x.sin(), x.cos(), x.tanh()",
    "sigmoid": "out = x.sigmoid(), a.sigmoid()",
    "pow_float_tensor": "out = x.abs() ** y",
    "pow_float_scalar": "out = x.abs() ** 1.7",
    # torch 2.13's float32 sqrt is not always correctly rounded (NumPy's is): 1 ulp apart
    "sqrt_negative_nan": "out = x.sqrt()",
    "exp_half": "out = x.to(torch.float16).exp(), x.to(torch.bfloat16).tanh()",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_elementwise(name: str) -> None:
    check(SETUP + PROGRAMS[name])


@pytest.mark.parametrize("name", sorted(TOLERANT))
def test_elementwise_transcendental(name: str) -> None:
    # float16/bfloat16 results are rounded from float: 1 ulp of half is ~1e-3 relative
    tol = 2e-3 if "half" in name else 2e-6
    check(SETUP + TOLERANT[name], rtol=tol, atol=1e-7)
