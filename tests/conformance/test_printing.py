"""Conformance of printing: repr(tensor) is character for character torch's.

The reference is torch/_tensor_str.py.
"""

from __future__ import annotations

import pytest

from .harness import check

CASES = {
    "float_matrix": "torch.rand(3, 4)",
    "randn_matrix": "torch.randn(4, 5)",
    "float_vector": "torch.tensor([0.5, -1.25, 3.0])",
    "integer_valued_floats": "torch.tensor([1., 2., -3.])",
    "integer_valued_large": "torch.tensor([1., 20000.])",
    "sci_small": "torch.tensor([1e-5, 1.0])",
    "sci_large": "torch.tensor([1e9, 1.5])",
    "sci_ratio": "torch.tensor([0.001, 1.5, 2000.5])",
    "int_valued_sci": "torch.tensor([1., 1e10])",
    "nan_inf": "torch.tensor([float('nan'), float('inf'), -float('inf'), 1.5])",
    "nan_inf_int_mode": "torch.tensor([float('nan'), 2., float('-inf')])",
    "all_nan": "torch.tensor([float('nan'), float('nan')])",
    "zeros_float": "torch.zeros(2, 3)",
    "negative_zero": "torch.tensor([-0.0, 0.0, 1.0])",
    "float64_suffix": "torch.rand(2, 2, dtype=torch.float64)",
    "float16": "torch.tensor([1.5, -2.25, 1000.0], dtype=torch.float16)",
    "bfloat16": "torch.tensor([1.5, -2.25, 3.0], dtype=torch.bfloat16)",
    "int64": "torch.arange(12).reshape(3, 4)",
    "int32_suffix": "torch.tensor([1, -20, 300], dtype=torch.int32)",
    "uint8": "torch.tensor([0, 255, 7], dtype=torch.uint8)",
    "int8_negative": "torch.tensor([-128, 5], dtype=torch.int8)",
    "bool": "torch.tensor([True, False, True])",
    "bool_matrix": "torch.eye(3, dtype=torch.bool)",
    "scalar_float": "torch.tensor(3.14159)",
    "scalar_int": "torch.tensor(-7)",
    "scalar_bool": "torch.tensor(True)",
    "scalar_float64": "torch.tensor(2.5, dtype=torch.float64)",
    "scalar_int_valued_float": "torch.tensor(2.)",
    "empty_1d": "torch.tensor([])",
    "empty_2d": "torch.zeros(0, 3)",
    "empty_int": "torch.zeros(0, dtype=torch.int64)",
    "empty_3d_float64": "torch.ones(2, 0, 4, dtype=torch.float64)",
    "rank3": "torch.arange(24.).reshape(2, 3, 4)",
    "rank4": "torch.arange(16).reshape(2, 2, 2, 2)",
    "summarized_vector": "torch.arange(2000)",
    "summarized_matrix": "torch.rand(100, 100)",
    "summarized_rank3": "torch.arange(3000.).reshape(10, 10, 30)",
    "summarized_wide_rows": "torch.rand(2, 1001)",
    "wrapped_line": "torch.rand(30)",
    "wrapped_ints": "torch.arange(100) * 1000",
    "wrapped_matrix_rows": "torch.randn(3, 20)",
    "transposed": "torch.arange(6.).reshape(2, 3).t()",
    "requires_grad": "torch.ones(2, requires_grad=True)",
    "requires_grad_float64": "torch.zeros(2, dtype=torch.float64, requires_grad=True)",
    "negative_floats": "-torch.rand(2, 3)",
    "mixed_magnitudes": "torch.tensor([123.456, 0.001234, -5.5])",
    "large_ints": "torch.tensor([10**12, -3])",
    "precision_2": "torch.set_printoptions(precision=2); _s = repr(torch.rand(3)); "
    "torch.set_printoptions(profile='default'); _s",
    "threshold_5": "torch.set_printoptions(threshold=5); _s = repr(torch.arange(10)); "
    "torch.set_printoptions(profile='default'); _s",
    "edgeitems_1": "torch.set_printoptions(threshold=5, edgeitems=1); "
    "_s = repr(torch.arange(20.).reshape(4, 5)); "
    "torch.set_printoptions(profile='default'); _s",
    "edgeitems_0": "torch.set_printoptions(threshold=5, edgeitems=0); "
    "_s = repr(torch.arange(20)); torch.set_printoptions(profile='default'); _s",
    "sci_mode_forced": "torch.set_printoptions(sci_mode=True); _s = repr(torch.tensor([1.5, 2.])); "
    "torch.set_printoptions(profile='default'); _s",
    "sci_mode_off": "torch.set_printoptions(sci_mode=False); _s = repr(torch.tensor([1e-8, 1.])); "
    "torch.set_printoptions(profile='default'); _s",
    "linewidth_40": "torch.set_printoptions(linewidth=40); _s = repr(torch.rand(12)); "
    "torch.set_printoptions(profile='default'); _s",
    "profile_short": "torch.set_printoptions(profile='short'); _s = repr(torch.rand(3, 3)); "
    "torch.set_printoptions(profile='default'); _s",
    "profile_full": "torch.set_printoptions(profile='full'); _s = repr(torch.arange(1200)); "
    "torch.set_printoptions(profile='default'); _s",
    "str_equals_repr": "str(torch.rand(2, 2))",
    "suffix_wraps": "torch.rand(2, 9, dtype=torch.float64, requires_grad=True)",
}


@pytest.mark.parametrize("name", list(CASES))
def test_repr(name: str) -> None:
    expr = CASES[name]
    if ";" in expr:
        *stmts, last = expr.split("; ")
        check("; ".join(stmts) + f"; out = {last}")
    else:
        check(f"out = repr({expr})" if not expr.startswith("str(") else f"out = {expr}")
