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
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_everyday_b(name: str) -> None:
    check(PROGRAMS[name])
