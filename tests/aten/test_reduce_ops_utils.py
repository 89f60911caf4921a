"""The reductions' dim checks (aten/native/reduce_ops_utils.py): torch's errors, raised by
checks that test first (Note [TORCH_CHECK tests first])."""

from __future__ import annotations

import pytest

import tensortrace as torch


@pytest.mark.parametrize("dims", [(0, 0), (0, -2), (1, 0, 1)])
def test_a_dim_named_twice_is_refused(dims: tuple[int, ...]) -> None:
    repeated = dims[-1] % 2
    with pytest.raises(RuntimeError, match=rf"^dim {repeated} appears multiple times in the list"):
        torch.rand(4, 4).sum(dims)


def test_more_than_64_dims_are_refused() -> None:
    with pytest.raises(RuntimeError, match="^only tensors with up to 64 dims are supported$"):
        torch.rand([1] * 65).sum((0,))


def test_distinct_dims_reduce() -> None:
    assert torch.ones(2, 3, 4).sum((0, -1)).tolist() == [8.0, 8.0, 8.0]
