"""torch.testing.assert_close against torch 2.13: what passes, and each failure's type and
message ("Tensor-likes are not close!" with the mismatch statistics, attribute mismatches,
containers, numbers, msg=).

Each program runs in tensortrace and in torch (harness.py); a failing assert_close is the
error compared.
"""

from __future__ import annotations

import pytest

from .harness import check

PROGRAMS = {
    "equal": "torch.testing.assert_close(torch.arange(6.).view(2, 3), torch.arange(6.).view(2, 3))"
    "\nout = True",
    "close_default_tolerance": "a = torch.tensor([1.0, 2.0, 3.0])\n"
    "torch.testing.assert_close(a, a + 1e-6)\nout = True",
    "not_close": "a = torch.arange(6.).view(2, 3)\n"
    "b = a.clone(); b[1, 2] += 0.5; b[0, 1] -= 1e-3\n"
    "torch.testing.assert_close(a, b)",
    "not_close_float64": "a = torch.arange(1., 4., dtype=torch.float64)\n"
    "torch.testing.assert_close(a, a * 1.001)",
    "not_equal_ints": "torch.testing.assert_close(torch.tensor([1, 2, 3]), "
    "torch.tensor([1, 5, 3]))",
    "not_equal_uint8": "torch.testing.assert_close(torch.tensor([1, 200], dtype=torch.uint8), "
    "torch.tensor([3, 1], dtype=torch.uint8))",
    "not_close_zero_expected": "torch.testing.assert_close(torch.tensor([1., 0.]), "
    "torch.tensor([1., 0.]) * torch.tensor([1., 0.]) + torch.tensor([0., 0.5]))",
    "scalar_tensor": "torch.testing.assert_close(torch.tensor(1.5), torch.tensor(2.0))",
    "explicit_tolerances": "torch.testing.assert_close(torch.tensor([1., 2.]), "
    "torch.tensor([1.1, 2.]), rtol=0.2, atol=0.0)\n"
    "torch.testing.assert_close(torch.tensor([1., 2.]), torch.tensor([1.1, 2.]), rtol=0.01, "
    "atol=0.01)",
    "only_rtol": "torch.testing.assert_close(torch.ones(2), torch.ones(2), rtol=0.1)",
    "nan": "a = torch.tensor([1., float('nan')])\n"
    "torch.testing.assert_close(a, a.clone(), equal_nan=True)\n"
    "torch.testing.assert_close(a, a.clone())",
    "inf": "a = torch.tensor([1., float('inf')])\n"
    "torch.testing.assert_close(a, a.clone())\n"
    "torch.testing.assert_close(a, -a)",
    "shape_mismatch": "torch.testing.assert_close(torch.ones(2, 3), torch.ones(3, 2))",
    "dtype_mismatch": "torch.testing.assert_close(torch.ones(2), torch.ones(2).double())",
    "dtype_not_checked": "torch.testing.assert_close(torch.ones(2), "
    "torch.ones(2, dtype=torch.float64), check_dtype=False)\n"
    "torch.testing.assert_close(torch.ones(2), torch.full((2,), 1.1, dtype=torch.float64), "
    "check_dtype=False)",
    "stride_mismatch": "a = torch.arange(6.).view(2, 3)\n"
    "torch.testing.assert_close(a.t(), a.t().contiguous())\n"
    "torch.testing.assert_close(a.t(), a.t().contiguous(), check_stride=True)",
    "sequences": "torch.testing.assert_close([torch.ones(2), (1, 2.0)], "
    "[torch.ones(2), (1, 2.0)])\n"
    "torch.testing.assert_close([torch.ones(2), (1, 2.5)], [torch.ones(2), (1, 2.0)])",
    "sequence_item_tensor": "torch.testing.assert_close((torch.ones(2), torch.zeros(3)), "
    "(torch.ones(2), torch.tensor([0., 1., 0.])))",
    "sequence_lengths": "torch.testing.assert_close([1, 2], [1, 2, 3])",
    "mappings": "torch.testing.assert_close({'a': torch.ones(2), 'b': 1}, "
    "{'b': 1, 'a': torch.ones(2)})\n"
    "torch.testing.assert_close({'a': torch.ones(2)}, {'a': torch.zeros(2)})",
    "mapping_keys": "torch.testing.assert_close({'a': 1, 'b': 2}, {'a': 1, 'c': 2})",
    "numbers": "torch.testing.assert_close(1.0, 1.0 + 1e-9)\ntorch.testing.assert_close(3, 4)",
    "number_vs_float": "torch.testing.assert_close(1.0, 1.5)",
    "bools": "torch.testing.assert_close(True, True)\ntorch.testing.assert_close(True, False)",
    "none": "torch.testing.assert_close(None, None)\ntorch.testing.assert_close(None, 1)",
    # the message names the classes: tensortrace's Tensor class is tensortrace._tensor.Tensor
    "unsupported_types": "try:\n"
    "    torch.testing.assert_close(torch.ones(1), 1.0)\n"
    "except TypeError as e:\n"
    "    out = str(e).replace('tensortrace._tensor.Tensor', 'torch.Tensor')",
    "tensor_vs_list": "try:\n"
    "    torch.testing.assert_close([1.0, 2.0], torch.tensor([1.0, 2.0]))\n"
    "except TypeError as e:\n"
    "    out = str(e).replace('tensortrace._tensor.Tensor', 'torch.Tensor')",
    "numpy_number": "torch.testing.assert_close(np.float64(1.0), 1.0)\n"
    "torch.testing.assert_close(np.float32(1.0), 2.0)",
    "msg_string": "torch.testing.assert_close(torch.ones(2), torch.zeros(2), msg='custom')",
    "msg_callable": "torch.testing.assert_close(torch.ones(2), torch.zeros(2), "
    "msg=lambda m: 'prefix\\n' + m)",
    "complex": "torch.testing.assert_close(torch.tensor([1 + 1j]), torch.tensor([1 + 2j]))",
    "bool_tensors": "torch.testing.assert_close(torch.tensor([True, False]), "
    "torch.tensor([True, True]))",
    "assert_allclose_deprecated": "import warnings\n"
    "with warnings.catch_warnings(record=True) as w:\n"
    "    warnings.simplefilter('always')\n"
    "    torch.testing.assert_allclose(torch.ones(2), [1.0, 1.00001])\n"
    "out = [(x.category.__name__, str(x.message)) for x in w]",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_assert_close(name: str) -> None:
    check(PROGRAMS[name])
