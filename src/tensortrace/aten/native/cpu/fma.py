"""Fused multiply-add with one rounding, as the x86-64 PyTorch wheels compute it.

Mirrors `std::fma` and `vec::fmadd` (`aten/src/ATen/cpu/vec/vec256/vec256_float.h`,
`_mm256_fmadd_ps`): the CPU kernels are compiled with FMA enabled, and GCC contracts a
multiply followed by an add (`x * (to - from) + from`, `val * std + mean`) into one fused
instruction. NumPy has no fma, so these reproduce its single rounding exactly from error-free
transformations (TwoSum, TwoProduct) and round-to-odd. Used by the random kernels
(distribution_templates.py, avx_mathfun.py) and by linspace (range_factories_kernel.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Knuth's TwoSum: s + e == a + b exactly, s = fl(a + b)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


_VELTKAMP = 134217729.0  # 2**27 + 1


def _two_prod(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dekker's TwoProduct via Veltkamp splitting: p + e == a * b exactly (no over/underflow)."""
    p = a * b
    t = _VELTKAMP * a
    ah = t - (t - a)
    al = a - ah
    t = _VELTKAMP * b
    bh = t - (t - b)
    bl = b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e


def _add_round_to_odd(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a + b in double, rounded to odd: inexact results get an odd last bit.

    Rounding to odd first and to nearest afterwards equals one rounding to nearest whenever
    the first format has >= 2 more bits than the second (Boldo & Melquiond).
    """
    s, e = _two_sum(a, b)
    bits = s.view(np.int64)
    inexact_even = (e != 0) & ((bits & 1) == 0)
    step = np.where((e > 0) == (s > 0), 1, -1)  # one ulp toward the discarded part
    return np.where(inexact_even, bits + step, bits).view(np.float64)


def fma_float32(
    a: np.ndarray, b: np.ndarray | np.float32, c: np.ndarray | np.float32
) -> np.ndarray:
    """fmaf(a, b, c) with a single rounding, as vfmadd*ps computes it.

    The product of two floats is exact in double, so only the sum rounds twice (to double,
    then to float). That goes wrong only when the double sum sits exactly halfway between two
    floats, or lands in the float subnormal range; those lanes are redone with round-to-odd.
    """
    p = np.multiply(a, b, dtype=np.float64)
    c64 = np.broadcast_to(np.asarray(c, dtype=np.float64), p.shape)
    s = p + c64
    out = s.astype(np.float32)
    halfway = (s.view(np.uint64) & np.uint64(0x1FFFFFFF)) == np.uint64(0x10000000)
    redo = halfway | (np.abs(s) < 2.0**-126)
    if redo.any():
        out[redo] = _add_round_to_odd(p[redo], c64[redo]).astype(np.float32)
    return out


def fma_float64(
    a: np.ndarray,
    b: float | np.floating[Any] | np.ndarray,
    c: float | np.floating[Any] | np.ndarray,
) -> np.ndarray:
    """fma(a, b, c) for doubles with a single rounding.

    Exact product a*b = ph + pl, then the correctly rounded sum of the three terms
    ph + pl + c (Boldo & Melquiond: two TwoSums and a round-to-odd addition).
    """
    a, b, c = np.broadcast_arrays(
        np.asarray(a, np.float64), np.asarray(b, np.float64), np.asarray(c, np.float64)
    )
    ph, pl = _two_prod(a, b)
    uh, ul = _two_sum(pl, c)
    th, tl = _two_sum(ph, uh)
    return th + _add_round_to_odd(tl, ul)
