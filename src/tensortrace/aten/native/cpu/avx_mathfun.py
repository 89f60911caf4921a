"""The Cephes log and sin/cos of `avx_mathfun.h`, in float32, operation by operation.

Mirrors `aten/src/ATen/native/cpu/avx_mathfun.h` (`log256_ps`, `sincos256_ps`), which the
AVX2 `normal_fill_16_AVX2` kernel of DistributionTemplates.h calls, as GCC compiles it for the
x86-64 wheels: each multiply followed by an add that GCC fused is one `fma_float32` here, so
`torch.randn` on float32 is bit-exact.
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten.native.cpu.fma import fma_float32

# avx_mathfun.h constants (float32, as the _PS256_CONST tables hold them).
_f = np.float32


_ONE, _HALF = _f(1.0), _f(0.5)


_MIN_NORM_POS_BITS = np.int32(0x00800000)


_INV_MANT_MASK = np.int32(~0x7F800000)


_CEPHES_SQRTHF = _f(0.707106781186547524)


_CEPHES_LOG_P = [
    _f(v)
    for v in (
        7.0376836292e-2,
        -1.1514610310e-1,
        1.1676998740e-1,
        -1.2420140846e-1,
        1.4249322787e-1,
        -1.6668057665e-1,
        2.0000714765e-1,
        -2.4999993993e-1,
        3.3333331174e-1,
    )
]


_CEPHES_LOG_Q1, _CEPHES_LOG_Q2 = _f(-2.12194440e-4), _f(0.693359375)


_MINUS_CEPHES_DP = (_f(-0.78515625), _f(-2.4187564849853515625e-4), _f(-3.77489497744594108e-8))


_SINCOF_P = (_f(-1.9515295891e-4), _f(8.3321608736e-3), _f(-1.6666654611e-1))


_COSCOF_P = (_f(2.443315711809948e-005), _f(-1.388731625493765e-003), _f(4.166664568298827e-002))


_CEPHES_FOPI = _f(1.27323954473516)  # 4 / pi


def log256_ps(x: np.ndarray) -> np.ndarray:
    """avx_mathfun.h log256_ps, as GCC compiles it (mul+add pairs fused where GCC fuses them)."""
    invalid = x <= 0
    x = np.maximum(x, _MIN_NORM_POS_BITS.view(np.float32))  # cut off denormals
    imm0 = (x.view(np.uint32) >> np.uint32(23)).view(np.int32)
    # keep only the fractional part, exponent forced to that of 0.5
    x = ((x.view(np.int32) & _INV_MANT_MASK) | _HALF.view(np.int32)).view(np.float32)
    imm0 = imm0 - np.int32(0x7F)
    e = imm0.astype(np.float32) + _ONE
    mask = x < _CEPHES_SQRTHF
    tmp = np.where(mask, x, _f(0))
    x = x - _ONE
    e = e - np.where(mask, _ONE, _f(0))
    x = x + tmp
    z = x * x
    y = np.full_like(x, _CEPHES_LOG_P[0])
    for p in _CEPHES_LOG_P[1:]:  # y = y * x + p: each pair became one vfmadd
        y = fma_float32(y, x, p)
    y = y * x
    # y*z + e*q1: GCC fused the first multiply it met (y*z); e*q1 is rounded on its own.
    y = fma_float32(y, z, e * _CEPHES_LOG_Q1)
    y = fma_float32(z, -_HALF, y)  # y - z*0.5
    x = x + y
    x = fma_float32(e, _CEPHES_LOG_Q2, x)  # x + e*q2
    return (x.view(np.int32) | np.where(invalid, np.int32(-1), np.int32(0))).view(np.float32)


def sincos256_ps(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """avx_mathfun.h sincos256_ps (Cephes sinf/cosf), with GCC's FMA contraction."""
    sign_bit_sin = x.view(np.int32) & np.int32(-(1 << 31))
    x = np.abs(x)
    y = x * _CEPHES_FOPI
    imm2 = y.astype(np.int32)  # cvttps: truncate
    imm2 = (imm2 + 1) & ~np.int32(1)  # j = (j + 1) & ~1
    y = imm2.astype(np.float32)
    imm4 = imm2
    swap_sign_bit_sin = (imm2 & 4) << 29
    poly_mask = (imm2 & 2) == 0
    # extended precision modular arithmetic: x = ((x - y*DP1) - y*DP2) - y*DP3, each an fma
    for dp in _MINUS_CEPHES_DP:
        x = fma_float32(y, dp, x)
    sign_bit_cos = (~(imm4 - 2) & 4) << 29
    sign_bit_sin = sign_bit_sin ^ swap_sign_bit_sin
    z = x * x
    # cosine polynomial, 0 <= x <= pi/4
    yc = fma_float32(np.full_like(z, _COSCOF_P[0]), z, _COSCOF_P[1])
    yc = fma_float32(yc, z, _COSCOF_P[2])
    yc = yc * z
    yc = fma_float32(yc, z, -(z * _HALF))  # y*z - z*0.5: the y*z multiply got fused
    yc = yc + _ONE
    # sine polynomial
    ys = fma_float32(np.full_like(z, _SINCOF_P[0]), z, _SINCOF_P[1])
    ys = fma_float32(ys, z, _SINCOF_P[2])
    ys = ys * z
    ys = fma_float32(ys, x, x)
    ysin2 = np.where(poly_mask, ys, _f(0))
    ysin1 = np.where(poly_mask, _f(0), yc)
    ys = ys - ysin2
    yc = yc - ysin1
    sin = ((ysin1 + ysin2).view(np.int32) ^ sign_bit_sin).view(np.float32)
    cos = ((yc + ys).view(np.int32) ^ sign_bit_cos).view(np.float32)
    return sin, cos
