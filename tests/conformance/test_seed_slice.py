"""Conformance of the seed slice (rand, select, as_strided, add, empty, empty_strided)."""

from __future__ import annotations

import pytest

from .harness import check

PROGRAMS = {
    "rand_float32": "out = torch.rand(3, 4)",
    "rand_float64": "out = torch.rand(2, 5, dtype=torch.float64)",
    "rand_tuple_size": "out = torch.rand((2, 3))",
    "rand_size_kw": "out = torch.rand(size=(2, 3))",
    "rand_empty": "out = torch.rand(0, 3)",
    "rand_scalar": "out = torch.rand(())",
    "rand_generator": "g = torch.Generator().manual_seed(7); out = torch.rand(4, generator=g)",
    "rand_int_dtype": "out = torch.rand(3, dtype=torch.int64)",
    "rand_bad_size": "out = torch.rand('a')",
    "rand_bad_element": "out = torch.rand(3, 'a')",
    "rand_size_int_kw": "out = torch.rand(size=3)",
    "rand_negative": "out = torch.rand(-1)",
    "rand_unknown_kw": "out = torch.rand(3, foo=1)",
    "rand_two_tuples": "out = torch.rand((3, 4), (4,))",
    "rand_float_size": "out = torch.rand(2, 3.0)",
    "rand_bad_generator": "out = torch.rand(2, generator=3)",
    "seed_expression": "out = torch.rand(3, 4)[0] + torch.rand(3, 4)",
    "getitem_int": "x = torch.rand(3, 4); out = x[1]",
    "getitem_negative": "x = torch.rand(3, 4); out = x[-1]",
    "getitem_out_of_range": "x = torch.rand(3, 4); out = x[3]",
    "getitem_negative_out_of_range": "x = torch.rand(3, 4); out = x[-4]",
    "getitem_0dim": "x = torch.rand(3); out = x[0][0]",
    "getitem_float": "x = torch.rand(3); out = x[1.5]",
    "select_dim1": "x = torch.rand(3, 4); out = x.select(1, 2)",
    "select_negative_dim": "x = torch.rand(3, 4); out = x.select(-1, -1)",
    "select_bad_dim": "x = torch.rand(3, 4); out = x.select(2, 0)",
    "select_bad_index": "x = torch.rand(3, 4); out = x.select(1, 4)",
    "as_strided": "x = torch.rand(3, 4); out = x.as_strided((2, 2), (1, 2), 1)",
    "as_strided_out_of_bounds": "x = torch.rand(3, 4); out = x.as_strided((3, 5), (4, 1))",
    "as_strided_negative_stride": "x = torch.rand(3, 4); out = x.as_strided((3, 4), (4, -1))",
    "as_strided_length_mismatch": "x = torch.rand(3, 4); out = x.as_strided((3, 4), (4,))",
    "add_broadcast": "out = torch.rand(3, 4) + torch.rand(4)",
    "add_mismatch": "out = torch.rand(3, 4) + torch.rand(3)",
    "add_alpha": "out = torch.rand(3, 4).add(torch.rand(3, 4), alpha=2)",
    "add_scalar": "out = torch.rand(3, 4) + 1",
    "add_scalar_reflected": "out = 2.5 + torch.rand(3, 4)",
    "add_int_float_promotion": "out = torch.rand(3).to(torch.int64) + torch.rand(3)",
    "add_int_scalar_keeps_int": "out = torch.rand(3).to(torch.int32) + 2",
    "add_int_float_scalar": "out = torch.rand(3).to(torch.int32) + 2.5",
    "add_bool_bool": "b = torch.rand(3).to(torch.bool); out = b + b",
    "add_int_alpha_float": "x = torch.rand(3).to(torch.int64); out = x.add(x, alpha=0.5)",
    "add_complex_alpha": "x = torch.rand(3); out = x.add(x, alpha=1.5j)",
    "add_inplace": "x = torch.rand(3, 4); x.add_(torch.rand(4)); out = x",
    "add_inplace_broadcast_error": "x = torch.rand(4); out = x.add_(torch.rand(3, 4))",
    "add_inplace_unsafe_cast": "x = torch.rand(3).to(torch.int64); out = x.add_(torch.rand(3))",
    "iadd": "x = torch.rand(2, 2); y = x; x += 1; out = (x, y)",
    "add_out": "o = torch.empty(3, 4); torch.add(torch.rand(3, 4), torch.rand(4), out=o); out = o",
    "add_no_args": "out = torch.rand(3).add()",
    "add_three_ints": "out = torch.rand(3).add(1, 2, 3)",
    "add_two_positional": "x = torch.rand(3); out = x.add(x, x)",
    "add_transposed_operands": "x = torch.rand(3, 4).as_strided((4, 3), (1, 4)); "
    "out = x + torch.rand(4, 3)",
    "add_half": "out = torch.rand(5).to(torch.float16) + torch.rand(5).to(torch.float16)",
    "add_bfloat16": "out = torch.rand(5).to(torch.bfloat16) + 1",
    "add_uint8_overflow": "x = torch.rand(4).to(torch.uint8) + 250; out = x + 10",
    "empty_strided_meta": "e = torch.empty_strided((2, 3), (1, 2)); "
    "out = (tuple(e.shape), e.stride())",
    "empty_strided_mismatch": "out = torch.empty_strided((2, 3), (1,))",
    "view_keeps_base_version": "x = torch.rand(3); v = x[0]; x.add_(1); "
    "out = (x._version, v._version)",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_conformance(name: str) -> None:
    check(PROGRAMS[name])
