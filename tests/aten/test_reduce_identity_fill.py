"""A reduction's identity fill while no trace records leaves what the traced aten::fill_ leaves
(Note [The identity fill while no trace records] in aten/native/cpu/reduce.py): the same values,
dtypes, strides and version counters, in every dtype and layout, and for empty inputs, whose
result is the identity alone."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import tensortrace as torch
from tensortrace.trace import record

INPUTS: dict[str, Callable[[], torch.Tensor]] = {
    "float32": lambda: torch.rand(4, 4),
    "transposed float64": lambda: torch.rand(3, 5, dtype=torch.float64).t(),
    "sliced": lambda: torch.rand(3, 8)[:, 1::2],
    "int64": lambda: torch.arange(12).reshape(3, 4),
    "uint8": lambda: torch.arange(12, dtype=torch.uint8).reshape(3, 4),
    "bool": lambda: torch.rand(3, 4) > 0.3,
    "float16": lambda: torch.rand(2, 3).to(torch.float16),
    "complex64": lambda: torch.rand(2, 3).to(torch.complex64),
    "empty": lambda: torch.rand(0, 3),
    "empty int64": lambda: torch.ones(2, 0, dtype=torch.int64),
    "0-dim": lambda: torch.rand(()),
}

OPS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "sum": lambda x: x.sum(),
    "sum(0)": lambda x: x.sum(0) if x.dim() else x.sum(),
    "sum(-1, keepdim)": lambda x: x.sum(-1, keepdim=True) if x.dim() else x.sum(),
    "prod": lambda x: x.prod(),
    "prod(0)": lambda x: x.prod(0) if x.dim() else x.prod(),
    "all(0)": lambda x: x.all(0) if x.dim() else x.all(),
    "any": lambda x: x.any(),
}


@pytest.mark.parametrize("op_name", list(OPS))
@pytest.mark.parametrize("input_name", list(INPUTS))
def test_idle_and_traced_reductions_leave_the_same_result(input_name: str, op_name: str) -> None:
    x, op = INPUTS[input_name](), OPS[op_name]
    start = torch.memory_allocated("cpu")
    idle = op(x)
    with record():
        traced = op(x)
    assert idle.dtype == traced.dtype
    assert idle.shape == traced.shape
    assert idle.stride() == traced.stride()
    assert idle._version == traced._version
    np.testing.assert_array_equal(idle.numpy(), traced.numpy())
    del idle, traced
    assert torch.memory_allocated("cpu") == start


@pytest.mark.parametrize(
    ("op", "expected"),
    [
        (lambda: torch.rand(0, 3).sum(0), np.zeros(3, np.float32)),
        (lambda: torch.rand(0, 3).prod(0), np.ones(3, np.float32)),
        (lambda: torch.ones(0, 2, dtype=torch.int64).sum(0), np.zeros(2, np.int64)),
        (lambda: torch.zeros(2, 0, dtype=torch.bool).all(1), np.ones(2, np.bool_)),
        (lambda: torch.ones(2, 0, dtype=torch.bool).any(1), np.zeros(2, np.bool_)),
        (lambda: torch.rand(3, 0).to(torch.complex64).sum(1), np.zeros(3, np.complex64)),
    ],
)
def test_an_empty_reduction_is_its_identity(
    op: Callable[[], torch.Tensor], expected: np.ndarray
) -> None:
    """Nothing is folded in: every element of the result is the identity the fill wrote (over
    fresh, unfilled memory)."""
    for _ in range(3):  # the blocks the allocator hands back hold the last results' bytes
        result = op()
        assert result.numpy().dtype == expected.dtype
        np.testing.assert_array_equal(result.numpy(), expected)
