"""Conformance of the everyday APIs of issue #15, part B, against torch 2.13: values, dtypes,
shapes, strides and errors, on contiguous and non-contiguous inputs."""

from __future__ import annotations

import pytest

from .harness import check

X = "x = torch.arange(12.).reshape(3, 4); "  # contiguous float
XT = "x = torch.arange(12.).reshape(4, 3).t(); "  # transposed, not contiguous
XI = "x = torch.tensor([[3, 1, 2, 1], [0, 5, 5, 2], [7, 1, 0, 3]]); "  # int64 with ties

PROGRAMS = {
    # ---- TensorTransformations.cpp: flip, fliplr, flipud, roll, rot90 ------------------------
    "flip_0": X + "out = x.flip(0)",
    "flip_both": X + "out = torch.flip(x, [0, 1])",
    "flip_noncontig": XT + "out = x.flip(1)",
    "flip_3d": "x = torch.arange(24).reshape(2, 3, 4); out = x.flip(0, 2)",
    "flip_dup": X + "out = x.flip(0, 0)",
    "flip_range": X + "out = x.flip(2)",
    "fliplr": X + "out = torch.fliplr(x)",
    "fliplr_1d": "out = torch.fliplr(torch.ones(3))",
    "flipud": XT + "out = torch.flipud(x)",
    "flipud_0d": "out = torch.flipud(torch.tensor(1.))",
    "roll_flat": X + "out = x.roll(1)",
    "roll_dim": X + "out = torch.roll(x, -1, 0)",
    "roll_dims": X + "out = torch.roll(x, (1, 2), (0, 1))",
    "roll_noncontig": XT + "out = torch.roll(x, 1, 0)",
    "roll_big_shift": X + "out = x.roll(7, 1)",
    "roll_misaligned": X + "out = x.roll(1, (0, 1))",
    "roll_empty_shifts": X + "out = x.roll([])",
    "rot90": X + "out = [x.rot90(k) for k in range(-1, 5)]",
    "rot90_dims": "x = torch.arange(24).reshape(2, 3, 4); out = torch.rot90(x, 1, [2, 0])",
    "rot90_bad_dims": X + "out = x.rot90(1, [0])",
    "rot90_same_dims": X + "out = x.rot90(1, [1, -1])",
    "rot90_1d": "out = torch.ones(2).rot90()",
    # ---- Sorting.cpp: sort, argsort, msort, topk ----------------------------------------------
    "sort": XI + "out = x.sort()",
    "sort_desc_dim0": XI + "out = torch.sort(x, 0, descending=True)",
    "sort_stable": XI + "out = x.sort(stable=True, dim=1, descending=True)",
    "sort_noncontig": XT + "out = x.sort(0)",
    "sort_nan": "out = torch.tensor([1., float('nan'), 3., -1.]).sort(descending=True)",
    "sort_bool": "out = torch.tensor([True, False, True]).sort()",
    "sort_0d": "out = torch.tensor(3.).sort()",
    "sort_dim_range": XI + "out = x.sort(2)",
    "argsort": XI + "out = (x.argsort(), torch.argsort(x, dim=0, descending=True))",
    "argsort_stable": XI + "out = x.argsort(stable=True, dim=0)",
    "msort": XT + "out = torch.msort(x)",
    "topk": XI + "out = x.topk(2)",
    # ties: torch's nth_element order is libstdc++'s, not reproduced (see sorting_kernel.py)
    "topk_smallest": X + "out = torch.topk(x, 3, largest=False)",
    "topk_dim0": XI + "out = x.topk(2, dim=0)",
    "topk_noncontig": XT + "out = x.topk(2, 0)",
    "topk_nan": "out = torch.tensor([1., float('nan'), 3., 1.]).topk(2)",
    "topk_k_range": XI + "out = x.topk(5)",
    "topk_k_negative": XI + "out = x.topk(-1)",
    "topk_zero": XI + "out = x.topk(0)",
    "topk_0d": "out = (torch.tensor(3.).topk(1), torch.tensor(3.).topk(0))",
    "topk_0d_range": "out = torch.tensor(3.).topk(2)",
    "topk_bool": "out = torch.ones(2, dtype=torch.bool).topk(1)",
    "topk_float16": "out = torch.tensor([1., 4., 2.], dtype=torch.float16).topk(2)",
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_everyday_b(name: str) -> None:
    check(PROGRAMS[name])
