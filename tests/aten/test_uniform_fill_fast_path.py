"""torch.rand's float32 draws are written straight into the output (Note [torch.rand's draws]
in distribution_templates.py): the same bits and the same generator state as the general path,
which draws, converts, casts and clamps. Checked without torch (test_cpu_generator_impl.py
compares both with torch where it is installed)."""

from __future__ import annotations

import numpy as np
import pytest

from tensortrace.aten.cpu_generator_impl import CPUGeneratorImpl
from tensortrace.aten.native.cpu.distribution_templates import _uniform_real_float, uniform_fill


@pytest.mark.parametrize("seed", [0, 1, 42, 2**40 + 3])
@pytest.mark.parametrize("n", [1, 5, 12, 16, 17, 1000, 4099])
def test_the_fast_path_draws_the_general_paths_bits(seed: int, n: int) -> None:
    fast, general = CPUGeneratorImpl(seed), CPUGeneratorImpl(seed)
    got = uniform_fill(fast, np.empty(n, np.float32), 0.0, 1.0)
    want = _uniform_real_float(general.random_uint32(n), np.float32(0), np.float32(1))
    assert got.dtype == np.float32
    assert np.array_equal(got.view(np.uint32), want.astype(np.float32).view(np.uint32))
    assert (got < 1).all() and (got >= 0).all()
    assert fast.get_state() == general.get_state()


def test_other_bounds_and_dtypes_take_the_general_path() -> None:
    # the same words through from=0, to=1 as float64 differ (53 bits of random64): not the fast path
    a = uniform_fill(CPUGeneratorImpl(3), np.empty(8, np.float64), 0.0, 1.0)
    b = uniform_fill(CPUGeneratorImpl(3), np.empty(8, np.float32), 0.0, 1.0)
    assert not np.array_equal(a.astype(np.float32), b)
    c = uniform_fill(CPUGeneratorImpl(3), np.empty(8, np.float32), 2.0, 5.0)
    assert ((c >= 2) & (c < 5)).all()
