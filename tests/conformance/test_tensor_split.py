"""Conformance of tensor_split, hsplit, vsplit and dsplit (issue #15) against torch 2.13.0:
the views' shapes, strides and offsets, uneven sections, indices past the end, errors."""

from __future__ import annotations

import pytest

from .harness import check

X = "x = torch.arange(24.).reshape(2, 3, 4); "

PROGRAMS = {
    "tensor_split_sections": X + "out = torch.tensor_split(x, 3, dim=2)",
    "tensor_split_uneven": "out = torch.tensor_split(torch.arange(7), 3)",
    "tensor_split_more_sections": "out = torch.tensor_split(torch.arange(2), 4)",
    "tensor_split_indices": X + "out = x.tensor_split([1, 3], dim=-1)",
    "tensor_split_indices_past_end": "out = torch.tensor_split(torch.arange(5), [2, 9, 1])",
    "tensor_split_zero_sections": "out = torch.tensor_split(torch.arange(5), 0)",
    "tensor_split_0d_error": "out = torch.tensor_split(torch.tensor(1.), 2)",
    "tensor_split_grad": "g = torch.arange(6., requires_grad=True); a, b = g.tensor_split(2); "
    "(a * 2 + b).sum().backward(); out = g.grad",
    "hsplit": X + "out = (torch.hsplit(x, 3), x.hsplit([1]), torch.hsplit(torch.arange(6), 2))",
    "vsplit": X + "out = (torch.vsplit(x, 2), x.vsplit([1, 5]))",
    "dsplit": X + "out = (torch.dsplit(x, 2), x.dsplit([3]))",
    "hsplit_not_divisible": X + "out = torch.hsplit(x, 2)",
    "hsplit_zero": X + "out = torch.hsplit(x, 0)",
    "vsplit_1d_error": "out = torch.vsplit(torch.arange(4), 2)",
    "dsplit_2d_error": "out = torch.dsplit(torch.ones(2, 2), [1])",
    "hsplit_0d_error": "out = torch.hsplit(torch.tensor(1.), 1)",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_tensor_split(name: str) -> None:
    check(PROGRAMS[name])
