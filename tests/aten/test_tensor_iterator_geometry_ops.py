"""Ops on every layout give the same results whether their builds miss or hit TensorIterator's
geometry cache (Note [TensorIterator's geometry cache]; the key's cases are in
test_tensor_iterator_geometry.py)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import tensortrace as torch
from tensortrace.aten import tensor_iterator_geometry as geometry_cache

LAYOUTS: dict[str, Callable[[], torch.Tensor]] = {
    "contiguous": lambda: torch.rand(3, 4),
    "transposed": lambda: torch.rand(4, 3).t(),
    "sliced": lambda: torch.rand(3, 8)[:, 1::2],
    "expanded": lambda: torch.rand(3, 1).expand(3, 4),
    "zero-size": lambda: torch.rand(0, 4),
    "0-dim": lambda: torch.rand(()),
    "int64": lambda: torch.arange(12).reshape(3, 4),
    "cuda": lambda: torch.rand(3, 4, device="cuda"),
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_ops_give_the_same_results_on_a_miss_and_a_hit(layout: str) -> None:
    """Every op twice on each layout (a miss, then a hit): equal values, dtypes and strides."""
    x = LAYOUTS[layout]()
    dims = [0] if x.dim() else None
    ops: list[Callable[[], torch.Tensor]] = [
        lambda: x.sum(),
        lambda: x.sum(dims) if dims else x.sum(),
        lambda: x.sum(dims, keepdim=True) if dims else x.sum(),
        lambda: x.mean(dtype=torch.float64),
        lambda: x + x,
        lambda: x * 2,
        lambda: x + 1.5,
        lambda: x > 0.5,
        lambda: x.neg(),
        lambda: x.exp(),
        lambda: x.clone().add_(x),
    ]
    for op in ops:
        geometry_cache.CACHE.clear()
        first, second = op(), op()
        assert first.dtype == second.dtype
        assert first.shape == second.shape
        assert first.stride() == second.stride()
        assert first.device == second.device
        np.testing.assert_array_equal(first.cpu().numpy(), second.cpu().numpy())
