"""Conformance of factories, conversions and torch.tensor: values, shapes, strides, dtypes and
errors, against torch (randn / randint / rand_like must match bit for bit after manual_seed)."""

from __future__ import annotations

import pytest

from .harness import check

PROGRAMS = {
    # ---- messages stream doubles as C++ does: from=2, not from=2.0 -----------------------------
    "uniform_reversed_range": "out = torch.rand(3).uniform_(2.0, 1.0)",
    "uniform_reversed_fraction": "out = torch.rand(3).uniform_(1.5, 1.25)",
    # ---- empty_like, zeros, ones, full ----------------------------------------------------------
    "empty_like_strides": "x = torch.rand(3, 4).t(); out = torch.empty_like(x).stride()",
    "empty_like_non_dense": "x = torch.rand(4, 6)[:, ::2]; out = torch.empty_like(x).stride()",
    "empty_like_dtype": "out = torch.empty_like(torch.rand(2, 3), dtype=torch.int32).dtype",
    "empty_like_contiguous": (
        "x = torch.rand(3, 4).t(); "
        "out = torch.empty_like(x, memory_format=torch.contiguous_format)"
        ".stride()"
    ),
    "zeros": "out = torch.zeros(2, 3)",
    "zeros_tuple_dtype": "out = torch.zeros((2, 3), dtype=torch.int16)",
    "zeros_out": "o = torch.empty(0); torch.zeros(2, 2, out=o); out = o",
    "zeros_like_transposed": "out = torch.zeros_like(torch.rand(3, 4).t())",
    "ones": "out = torch.ones(4, dtype=torch.float64)",
    "ones_bool": "out = torch.ones(3, dtype=torch.bool)",
    "ones_like": "out = torch.ones_like(torch.rand(2, 5), dtype=torch.int64)",
    "ones_out": "o = torch.empty(2, dtype=torch.int32); torch.ones(3, 2, out=o); out = o",
    "full_int": "out = torch.full((2, 3), 7)",
    "full_float": "out = torch.full((2,), 1.5)",
    "full_bool": "out = torch.full((2,), True)",
    "full_dtype": "out = torch.full((2,), 1, dtype=torch.float64)",
    "full_uint8_wrap": "out = torch.full((2,), -1, dtype=torch.uint8)",
    "full_uint8_overflow": "out = torch.full((2,), 300, dtype=torch.uint8)",
    "full_float_overflow": "out = torch.full((2,), 1e39)",
    "full_half_overflow": "out = torch.full((2,), 1e39, dtype=torch.float16)",
    "full_nan_to_int": "out = torch.full((2,), float('nan'), dtype=torch.int32)",
    "full_truncates": "out = torch.full((3,), -2.5, dtype=torch.int32)",
    "full_like": "out = torch.full_like(torch.rand(2, 2), 3)",
    "full_out": "o = torch.empty(1); torch.full((2, 2), 4.0, out=o); out = o",
    # ---- fill_, zero_ --------------------------------------------------------------------------
    "fill_scalar": "x = torch.rand(2, 3); x.fill_(2.5); out = x",
    "fill_strided": "x = torch.zeros(4, 4); x[:, 1].fill_(7); out = x",
    "fill_tensor": "x = torch.zeros(3); x.fill_(torch.tensor(5)); out = x",
    "fill_tensor_dim_error": "out = torch.zeros(2).fill_(torch.ones(2))",
    "fill_function": "out = torch.fill(torch.zeros(3, dtype=torch.int64), 9)",
    "fill_bool": "out = torch.zeros(3, dtype=torch.bool).fill_(2)",
    "zero_": "x = torch.rand(5); x.zero_(); out = x",
    "zero_view": "x = torch.ones(3, 4); x.t()[1].zero_(); out = x",
    # ---- random factories, bit for bit ---------------------------------------------------------
    "randn_small": "out = torch.randn(5)",
    "randn_blocked": "out = torch.randn(4, 9)",
    "randn_double": "out = torch.randn(37, dtype=torch.float64)",
    "randn_generator": "g = torch.Generator().manual_seed(3); out = torch.randn(20, generator=g)",
    "randn_out": "o = torch.empty(0); torch.randn(2, 10, out=o); out = o",
    "randn_like": "out = torch.randn_like(torch.zeros(3, 7))",
    "randn_twice": "a = torch.randn(3); b = torch.randn(17); out = (a, b)",
    "normal_noncontiguous": "x = torch.zeros(6, 6); x.t().normal_(); out = x",
    "normal_mean_std": "out = torch.zeros(20).normal_(2.0, 0.5)",
    "normal_negative_std": "out = torch.zeros(2).normal_(0, -1)",
    "normal_int": "out = torch.zeros(2, dtype=torch.int64).normal_()",
    "rand_like": "out = torch.rand_like(torch.zeros(2, 3, dtype=torch.float64))",
    "randint_high": "out = torch.randint(10, (3, 4))",
    "randint_low_high": "out = torch.randint(-5, 5, (8,))",
    "randint_dtype": "out = torch.randint(0, 100, (5,), dtype=torch.float32)",
    "randint_generator": (
        "g = torch.Generator().manual_seed(1); out = torch.randint(3, 9, (6,), generator=g)"
    ),
    "randint_bad_range": "out = torch.randint(5, 2, (3,))",
    "randint_bool_bound": "out = torch.randint(5, (3,), dtype=torch.bool)",
    "randint_out": "o = torch.empty(0, dtype=torch.int64); torch.randint(7, (4,), out=o); out = o",
    "randint_like": "out = torch.randint_like(torch.zeros(2, 3), 4)",
    "randint_like_low": "out = torch.randint_like(torch.zeros(5, dtype=torch.int32), 2, 6)",
    "random_from_to_uint8": "out = torch.zeros(2, dtype=torch.uint8).random_(0, 300)",
    "random_to": "out = torch.zeros(6, dtype=torch.int64).random_(4)",
    "random_default": "out = torch.zeros(5).random_()",
    # ---- arange, linspace, eye -----------------------------------------------------------------
    "arange_end": "out = torch.arange(5)",
    "arange_float_end": "out = torch.arange(5.)",
    "arange_start_end_step": "out = torch.arange(-1.5, 3, 0.7)",
    "arange_fraction_double": "out = torch.arange(0, 1, 0.1, dtype=torch.float64)",
    "arange_long_float_step": "out = torch.arange(0.5, 3, dtype=torch.int64)",
    "arange_negative_step": "out = torch.arange(10, 0, -3)",
    "arange_zero_step": "out = torch.arange(0, 1, 0)",
    "arange_inconsistent": "out = torch.arange(0, 10, -1)",
    "arange_inf": "out = torch.arange(0, float('inf'))",
    "arange_out": "o = torch.empty(0, dtype=torch.int32); torch.arange(2, 7, out=o); out = o",
    "arange_bool": "out = torch.arange(10, dtype=torch.bool)",
    "linspace": "out = torch.linspace(0, 1, 5)",
    "linspace_int": "out = torch.linspace(0, 10, 5, dtype=torch.int64)",
    "linspace_one": "out = torch.linspace(3, 7, 1)",
    "linspace_negative": "out = torch.linspace(0, 1, -1)",
    "linspace_many": "out = torch.linspace(-3.7, 11.2, 57)",
    "eye": "out = torch.eye(3)",
    "eye_rect": "out = torch.eye(2, 4, dtype=torch.int64)",
    "eye_negative": "out = torch.eye(-1)",
    # ---- torch.tensor, as_tensor -----------------------------------------------------------------
    "tensor_ints": "out = torch.tensor([[1, 2], [3, 4]])",
    "tensor_floats": "out = torch.tensor([1, 2.5])",
    "tensor_bools": "out = torch.tensor([True, False])",
    "tensor_bool_int": "out = torch.tensor([True, 2])",
    "tensor_scalar": "out = torch.tensor(3.5)",
    "tensor_empty": "out = torch.tensor([])",
    "tensor_empty_nested": "out = torch.tensor([[], []])",
    "tensor_ragged": "out = torch.tensor([[1, 2, 3], [4, 5]])",
    "tensor_not_sequence": "out = torch.tensor([[1, 2], 3])",
    "tensor_str": "out = torch.tensor('abc')",
    "tensor_none": "out = torch.tensor([None])",
    "tensor_dtype": "out = torch.tensor([1.7, -1.7], dtype=torch.int64)",
    "tensor_uint8_overflow": "out = torch.tensor([300], dtype=torch.uint8)",
    "tensor_of_tensors": "out = torch.tensor([torch.tensor(1.5), torch.tensor(2)])",
    "tensor_int_overflow": "out = torch.tensor([1, 2**63])",
    "tensor_numpy_scalar": "out = torch.tensor(np.float64(1.5))",
    "tensor_from_ndarray": "out = torch.tensor(np.arange(6, dtype=np.int32).reshape(2, 3))",
    "tensor_requires_grad_int": "out = torch.tensor([1], requires_grad=True)",
    "tensor_copy_of_tensor": "x = torch.rand(3); y = torch.tensor(x); x.zero_(); out = y",
    "as_tensor_list": "out = torch.as_tensor([1, 2], dtype=torch.float64)",
    "as_tensor_shares": "x = torch.rand(3); out = torch.as_tensor(x) is x",
    "from_numpy_strides": "out = torch.from_numpy(np.zeros((2, 3)).T)",
    "from_numpy_negative_stride": "out = torch.from_numpy(np.arange(3)[::-1])",
    "from_numpy_not_array": "out = torch.from_numpy([1, 2])",
    "from_numpy_str": "out = torch.from_numpy(np.array(['a']))",
    "from_numpy_byteorder": "out = torch.from_numpy(np.zeros(3, dtype='>f4'))",
    # ---- item, tolist, numbers, iteration --------------------------------------------------------
    "item": "out = torch.tensor([5]).item()",
    "item_float16": "out = torch.tensor([1.5], dtype=torch.float16).item()",
    "item_many": "out = torch.ones(2, 3).item()",
    "item_bool": "out = torch.tensor(True).item()",
    "tolist": "out = torch.tensor([[1.5, 2], [3, 4]]).tolist()",
    "tolist_scalar": "out = torch.tensor(7).tolist()",
    "tolist_transposed": "out = torch.arange(6).reshape(2, 3).t().tolist()",
    "bool_many": "out = bool(torch.ones(2))",
    "bool_empty": "out = bool(torch.ones(0))",
    "bool_zero": "out = bool(torch.tensor([0.0]))",
    "float_of_int": "out = float(torch.tensor(3))",
    "float_many": "out = float(torch.ones(2))",
    "int_truncates": "out = (int(torch.tensor(2.7)), int(torch.tensor(-2.7)))",
    "index": "out = [10, 20, 30][torch.tensor(1)]",
    "index_float": "out = torch.tensor(2.).__index__()",
    "len_0d": "out = len(torch.tensor(3))",
    "iter_rows": "out = list(torch.arange(6).reshape(3, 2))",
    "iter_0d": "out = list(torch.tensor(3))",
    "format_0d": "out = f'{torch.tensor(2.5):.2f}'",
    # ---- to and the dtype shortcuts ----------------------------------------------------------
    "to_dtype": "out = torch.rand(3).to(torch.float64)",
    "to_same_is_self": "x = torch.rand(3); out = x.to(torch.float32) is x",
    "to_copy_true": "x = torch.rand(3); y = x.to(torch.float32, copy=True); out = (y is x, y)",
    "to_other": "out = torch.rand(3).to(torch.ones(1, dtype=torch.int64))",
    # made on the CPU: torch's device oracle (its run on the meta device) cannot copy a meta
    # tensor to the CPU
    "to_device_dtype": "out = torch.rand(2, device='cpu').to('cpu', torch.int64)",
    "to_device_without_index": "x = torch.rand(2); d = torch.empty(0).device\n"
    "out = (x.to(d.type) is x, torch.as_tensor(x) is x, x.to(d.type, torch.float64))",
    "to_noop": "x = torch.rand(2); out = x.to() is x",
    "to_keeps_strides": "out = torch.rand(3, 4).t().to(torch.float64)",
    "to_bad_args": "out = torch.zeros(2).to(torch.float32, 'cpu')",
    "double_long_int": "x = torch.rand(3) * 10; out = (x.double(), x.long(), x.int(), x.half())",
    "bool_method": "out = torch.tensor([0, 2, -1]).bool()",
    "float_same_is_self": "x = torch.rand(2); out = x.float() is x",
    # ---- cat, stack ----------------------------------------------------------------------------
    "cat_dim0": "out = torch.cat([torch.rand(2, 3), torch.rand(1, 3)])",
    "cat_dim1": "out = torch.cat((torch.rand(2, 3), torch.rand(2, 1)), 1)",
    "cat_promotes": "out = torch.cat([torch.ones(2, dtype=torch.int32), torch.rand(2)])",
    "cat_skip_empty": "out = torch.cat([torch.rand(2, 3), torch.ones(0)])",
    "cat_non_contiguous": "out = torch.cat([torch.rand(3, 2).t(), torch.rand(2, 2)], 1)",
    "cat_empty_list": "out = torch.cat([])",
    "cat_zero_dim": "out = torch.cat([torch.tensor(1.)])",
    "cat_size_mismatch": "out = torch.cat([torch.ones(2, 3), torch.ones(3, 3)], 1)",
    "cat_ndim_mismatch": "out = torch.cat([torch.ones(2, 3), torch.ones(3)])",
    "cat_bad_dim": "out = torch.cat([torch.ones(2, 3), torch.ones(2, 3)], 2)",
    "cat_bad_element": "out = torch.cat([torch.ones(2), 1])",
    "cat_not_list": "out = torch.cat(torch.ones(2))",
    "cat_out": "o = torch.empty(0); torch.cat([torch.ones(2), torch.zeros(3)], out=o); out = o",
    "cat_out_cast_error": (
        "out = torch.cat([torch.ones(2), torch.ones(2)], out=torch.empty(4, dtype=torch.int32))"
    ),
    "stack_dim0": "out = torch.stack([torch.rand(2, 3), torch.rand(2, 3)])",
    "stack_last": "out = torch.stack([torch.rand(2), torch.rand(2)], 1)",
    "stack_negative": "out = torch.stack([torch.rand(2, 3), torch.rand(2, 3)], -2)",
    "stack_mismatch": "out = torch.stack([torch.ones(2), torch.ones(3)])",
    "stack_empty": "out = torch.stack([])",
    "stack_out": "o = torch.empty(0); torch.stack([torch.ones(2), torch.zeros(2)], out=o); out = o",
    # ---- Generator state -----------------------------------------------------------------------
    "generator_state_roundtrip": (
        "g = torch.Generator().manual_seed(5); s = g.get_state(); "
        "a = torch.randn(4, generator=g); g.set_state(s); "
        "out = (a, torch.randn(4, generator=g), s.dtype, s.shape)"
    ),
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_factories_conversion(name: str) -> None:
    check(PROGRAMS[name])
