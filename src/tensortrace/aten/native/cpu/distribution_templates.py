"""PyTorch's CPU random kernels (uniform_, normal_, random_), bit for bit, vectorized with NumPy.

Mirrors `aten/src/ATen/native/cpu/DistributionTemplates.h` (the kernels),
`aten/src/ATen/core/DistributionsHelper.h` (the distributions),
`aten/src/ATen/core/TransformationHelper.h` (engine bits -> values) and the stub registration
in `aten/src/ATen/native/cpu/DistributionKernels.cpp`, as compiled into the x86-64 PyTorch 2.13
wheels. `random_(from, to)`'s bounds become the kernel's (range, base) in
`aten/native/distribution_templates.py` (`native/DistributionTemplates.h`).

Every `*_fill` writes a 1-D contiguous NumPy array `out` (elements in the order the kernel
visits them) from a `CPUGeneratorImpl`, drawing exactly the engine words PyTorch draws, in the
same order, so the generator ends in the same state. Whole arrays are drawn in one NumPy call
and transformed with array arithmetic; only the libm calls of the double-precision normal
paths go element by element (see below).

What the C++ source alone does not tell, but the shipped binary does (checked against torch):

* Fused multiply-add. The kernels are compiled per CPU capability with FMA enabled, and GCC
  contracts `x * (to - from) + from` (uniform) and `val * std + mean` (normal) into one
  fused multiply-add, i.e. a single rounding. We reproduce that rounding exactly.
* `normal_` on float (and on the float opmath of half/bfloat16) with >= 16 contiguous
  elements runs the AVX2 `NormalFill16<float>` specialization (`normal_stub` registers no
  AVX512 kernel), whose log/sin/cos are the Cephes polynomials of `avx_mathfun.h`, again with
  GCC's mul+add contraction. They are re-run operation by operation in float32
  (avx_mathfun.py; the fused multiply-adds in fma.py).
* The double paths call libm's `log` / `log1p`. NumPy's SIMD float64 log/log1p disagree with
  glibc in the last bit for ~0.3% / ~7% of inputs, so those go through `math.log` /
  `math.log1p` (the same libm torch calls); NumPy's float64 sin/cos already are libm's.

The casts to each element type (static_cast<scalar_t>) are in distribution_casts.py.
bfloat16 needs `ml_dtypes` (its `bfloat16` dtype holds the same 16 bits as c10::BFloat16);
without it bfloat16 arrays cannot exist and only the other dtypes are served.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from tensortrace.aten.cpu_generator_impl import CPUGeneratorImpl
from tensortrace.aten.native.cpu.avx_mathfun import log256_ps, sincos256_ps
from tensortrace.aten.native.cpu.distribution_casts import (
    _BOOL,
    _CAST_BOUNDS,
    _F16,
    _F32,
    _F64,
    _I64,
    _INT64_MIN,
    _MAX_VALUES,
    BFLOAT16,
    _cast_bound,
    _cast_from_double,
    _cast_from_int64,
    _is_reduced_float,
    _max_value,
)
from tensortrace.aten.native.cpu.fma import fma_float32, fma_float64
from tensortrace.c10.exception import TORCH_CHECK, torchCheckFail

__all__ = [
    "BFLOAT16",
    "normal_fill",
    "random_fill",
    "random_from_to_fill",
    "random_full_64_bits_range_fill",
    "uniform_fill",
]

_U64 = np.dtype(np.uint64)

# AT_INTEGRAL_TYPES + Bool, and AT_BAREBONES_UNSIGNED_TYPES (only random_from_to takes those).
_INTEGRAL_AND_BOOL = tuple(
    np.dtype(t) for t in (np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64)
)
_BAREBONES_UNSIGNED = tuple(np.dtype(t) for t in (np.uint16, np.uint32, np.uint64))

_INT64_MAX = (1 << 63) - 1
_UINT64_MASK = (1 << 64) - 1

# uniform_int_from_to_distribution switches to random64() from this range on (non-fbcode builds:
# "allow approx 5% skew in uniform int generation using %").
_RANDOM64_RANGE_THRESHOLD = 1 << 28

_TYPE_NAMES = {
    np.dtype(np.bool_): "Bool",
    np.dtype(np.uint8): "Byte",
    np.dtype(np.int8): "Char",
    np.dtype(np.int16): "Short",
    np.dtype(np.int32): "Int",
    np.dtype(np.int64): "Long",
    np.dtype(np.uint16): "UInt16",
    np.dtype(np.uint32): "UInt32",
    np.dtype(np.uint64): "UInt64",
    _F16: "Half",
    _F32: "Float",
    _F64: "Double",
}
if BFLOAT16 is not None:
    _TYPE_NAMES[BFLOAT16] = "BFloat16"


def _type_name(dtype: np.dtype) -> str:
    name = _TYPE_NAMES.get(dtype)
    return name if name is not None else str(dtype)  # str(dtype) is slow: only when needed


def _floating_dtypes() -> tuple[np.dtype, ...]:
    """AT_DISPATCH_FLOATING_TYPES_AND2(Half, BFloat16)."""
    return (_F32, _F64, _F16) + ((BFLOAT16,) if BFLOAT16 is not None else ())


_FLOATING_DTYPES = _floating_dtypes()  # the same tuple for every draw


def _digits(dtype: np.dtype) -> int:
    """std::numeric_limits<T>::digits of a floating type (mantissa bits, hidden bit included)."""
    if dtype == _F64:
        return 53
    if dtype == _F32:
        return 24
    if dtype == _F16:
        return 11
    return 8  # bfloat16


def _check_out(out: np.ndarray, allowed: tuple[np.dtype, ...], kernel: str) -> np.dtype:
    # Note [TORCH_CHECK tests first]: every draw passes here; the messages only on failure
    if not isinstance(out, np.ndarray):
        torchCheckFail(kernel, ": out must be a NumPy array")
    if not (out.ndim == 1 and out.flags.c_contiguous):
        torchCheckFail(kernel, ": out must be 1-D contiguous")
    if out.dtype not in allowed:
        torchCheckFail('"', kernel, "\" not implemented for '", _type_name(out.dtype), "'")
    return out.dtype


# ================================ TransformationHelper: bits -> real ==============================

# uniform_real<float>'s 24 random bits and their scale to [0, 1)
_LOW_24_BITS = np.uint32((1 << 24) - 1)
_TWO_TO_MINUS_24 = np.float32(2.0**-24)


def _uniform_real_float(words: np.ndarray, from_: np.float32, to: np.float32) -> np.ndarray:
    """transformation::uniform_real<float>: 24 random bits -> [0, 1) -> fma(x, to - from, from)."""
    words &= _LOW_24_BITS
    x = words.astype(np.float32)
    x *= _TWO_TO_MINUS_24
    if from_ == 0 and to == 1:  # fma(x, 1, 0) == x: skip the exact-FMA work for torch.rand
        return x
    return fma_float32(x, np.float32(to - from_), from_)


def _uniform_real_double(words: np.ndarray, from_: float, to: float) -> np.ndarray:
    """transformation::uniform_real<double>: 53 bits of random64() -> fma(x, to - from, from)."""
    words &= np.uint64((1 << 53) - 1)
    x = words.astype(np.float64)
    x *= 2.0**-53
    if from_ == 0 and to == 1:
        return x
    return fma_float64(x, to - from_, from_)


def _uniform01(gen: CPUGeneratorImpl, n: int, opmath: np.dtype) -> np.ndarray:
    """n draws of at::uniform_real_distribution<opmath_t>(0, 1)."""
    if opmath == _F64:
        return _uniform_real_double(gen.random_uint64(n), 0.0, 1.0)
    return _uniform_real_float(gen.random_uint32(n), np.float32(0), np.float32(1))


def _libm(fn: Callable[[float], float], x: np.ndarray) -> np.ndarray:
    """Apply a libm function (math.log / math.log1p) elementwise: the same libm torch calls."""
    return np.fromiter(map(fn, x.ravel().tolist()), dtype=np.float64, count=x.size).reshape(x.shape)


# ====================================== Random ===================================================


def random_from_to_fill(
    gen: CPUGeneratorImpl, out: np.ndarray, base: int, range_: int
) -> np.ndarray:
    """random_from_to_kernel: uniform integers in [base, base + range_), cast to out's dtype.

    `(word % range_) + base` in uint64 arithmetic, then static_cast<int64_t>, then
    static_cast<scalar_t>. The word is random() (32 bits) for range_ < 2**28, else random64().
    `range_` and `base` are what random_from_to_impl computes (see there for floating dtypes).
    """
    allowed = _floating_dtypes() + _INTEGRAL_AND_BOOL + _BAREBONES_UNSIGNED
    dtype = _check_out(out, allowed, "random_from_to_kernel_cpu")
    range_, base = int(range_), int(base)
    TORCH_CHECK(0 < range_ <= _UINT64_MASK, "random_from_to_fill: range must be in [1, 2**64)")
    TORCH_CHECK(_INT64_MIN <= base <= _INT64_MAX, "random_from_to_fill: base must fit int64")
    n = out.size
    with gen.mutex_:
        if range_ >= _RANDOM64_RANGE_THRESHOLD:
            words = gen.random_uint64(n)
            words %= np.uint64(range_)
            words += np.uint64(base & _UINT64_MASK)  # wraps mod 2**64, as uint64_t does
            values = words.view(np.int64)
        else:
            small = gen.random_uint32(n)
            small %= np.uint32(range_)
            values = small.astype(np.int64)
            values += np.int64(base)  # wraps like the uint64 sum (result < 2**28 + base)
    out[...] = _cast_from_int64(values, dtype)
    return out


def random_full_64_bits_range_fill(gen: CPUGeneratorImpl, out: np.ndarray) -> np.ndarray:
    """random_full_64_bits_range_kernel: random_(from=INT64_MIN, to=None), all 2**64 values.

    Only int64, double, float and bfloat16 (anything else errors, as in PyTorch).
    """
    allowed = (_I64, _F64, _F32) + ((BFLOAT16,) if BFLOAT16 is not None else ())
    dtype = _check_out(out, allowed, "random_full_64_bits_range_kernel_cpu")
    with gen.mutex_:
        values = gen.random_uint64(out.size).view(np.int64)
    out[...] = _cast_from_int64(values, dtype)
    return out


def random_fill(gen: CPUGeneratorImpl, out: np.ndarray) -> np.ndarray:
    """random_kernel: `Tensor.random_()` with no bounds (transformation::uniform_int).

    bool: random() & 1; int64: random64() % 2**63; other integers: random() % (max + 1);
    float: random() % (2**24 + 1); double: random64() % (2**53 + 1); half/bfloat16:
    random() % (2**digits + 1). uint16/32/64 are not dispatched by PyTorch's kernel either.
    """
    dtype = _check_out(out, _floating_dtypes() + _INTEGRAL_AND_BOOL, "random_kernel_cpu")
    n = out.size
    with gen.mutex_:
        if dtype == _BOOL:
            out[...] = (gen.random_uint32(n) & np.uint32(1)).astype(np.bool_)
        elif dtype == _I64:
            out[...] = (gen.random_uint64(n) % np.uint64(1 << 63)).astype(np.int64)
        elif dtype == _F64:
            out[...] = (gen.random_uint64(n) % np.uint64((1 << 53) + 1)).astype(np.float64)
        elif dtype.kind == "f" or _is_reduced_float(dtype):
            modulus = (1 << _digits(dtype)) + 1
            words = gen.random_uint32(n) % np.uint32(modulus)
            # uint32 -> (float ->) scalar_t; values <= 2**digits so every step is exact
            out[...] = words.astype(np.float32).astype(dtype)
        else:
            modulus = int(np.iinfo(dtype).max) + 1
            out[...] = (gen.random_uint32(n) % np.uint32(modulus)).astype(dtype)
    return out


# ====================================== Uniform ==================================================

# Note [torch.rand's draws]
# torch.rand fills float32 with uniform_real<float>(0, 1): 24 random bits times 2**-24, then
# fma(x, 1, 0), which is x. Each k * 2**-24 (k < 2**24) is exact in float32 and below 1, so the
# cast to the output does not round and never reaches `to`: the clamp finds nothing. The common
# case therefore writes the products straight into `out` (the multiply casts the 24-bit words to
# float32, exactly), with the same bits as the general path below.


def uniform_fill(
    gen: CPUGeneratorImpl, out: np.ndarray, from_: float = 0.0, to: float = 1.0
) -> np.ndarray:
    """uniform_kernel (`torch.rand`, `Tensor.uniform_(from, to)`), with uniform_impl_'s checks.

    Draws in opmath: float (24 bits of random()) for float/half/bfloat16, double (53 bits of
    random64()) for double; then casts, and a value that rounded up to `to` becomes `from`.
    """
    dtype = _check_out(out, _FLOATING_DTYPES, "uniform_kernel_cpu")
    from_, to = float(from_), float(to)
    max_ = _MAX_VALUES.get(dtype) or _max_value(dtype)
    # Note [TORCH_CHECK tests first]: _type_name only when a check fails
    if not -max_ <= from_ <= max_:
        torchCheckFail("from is out of bounds for ", _type_name(dtype))
    if not -max_ <= to <= max_:
        torchCheckFail("to is out of bounds for ", _type_name(dtype))
    if not from_ <= to:
        torchCheckFail(
            "uniform_ expects to return a [from, to) range, but found from=", from_, " > to=", to
        )
    if not to - from_ <= max_:
        torchCheckFail(
            "uniform_ expects to-from <= std::numeric_limits<",
            _type_name(dtype),
            ">::max(), but found to=",
            to,
            " and from=",
            from_,
            " which result in to-from to exceed the limit",
        )
    n = out.size
    if n == 0:
        return out
    if dtype == _F32 and from_ == 0.0 and to == 1.0:  # torch.rand: Note [torch.rand's draws]
        with gen.mutex_:
            words = gen.random_uint32(n)
        words &= _LOW_24_BITS
        np.multiply(words, _TWO_TO_MINUS_24, out=out, dtype=_F32)
        return out
    with gen.mutex_:
        if dtype == _F64:
            value = _uniform_real_double(gen.random_uint64(n), from_, to)
        else:
            value = _uniform_real_float(gen.random_uint32(n), np.float32(from_), np.float32(to))
    out[...] = value  # static_cast<scalar_t>: round to nearest even
    hit = out == (_CAST_BOUNDS.get((to, dtype)) or _cast_bound(to, dtype))
    # "Clamp if the float->scalar_t cast rounded up to the upper bound"; hit.any() as the ufunc
    # reduction it runs, without ndarray.any's Python-level dispatch
    if np.logical_or.reduce(hit, axis=None):
        out[hit] = _cast_bound(from_, dtype)
    return out


# ====================================== Normal ===================================================

_ONE = np.float32(1.0)
_TWO_PI_F = np.float32(2.0 * math.pi)  # _mm256_set1_ps(2.0f * c10::pi<double>)
_MINUS_TWO_F = np.float32(-2.0)


def _normal_fill_16_float(blocks: np.ndarray, mean: np.float32, std: np.float32) -> np.ndarray:
    """NormalFill16<float, true> (AVX2) on a (k, 16) array of uniforms, all blocks at once.

    Lanes 0-7 hold u1, lanes 8-15 u2; out lanes 0-7 = r*cos, 8-15 = r*sin (Box-Muller).
    """
    u1 = _ONE - blocks[:, :8]  # [0, 1) -> (0, 1] for log
    u2 = blocks[:, 8:]
    radius = np.sqrt(_MINUS_TWO_F * log256_ps(u1))
    theta = _TWO_PI_F * u2
    sintheta, costheta = sincos256_ps(theta)
    result = np.empty_like(blocks)
    result[:, :8] = fma_float32(radius * costheta, std, mean)
    result[:, 8:] = fma_float32(radius * sintheta, std, mean)
    return result


def _normal_fill_16_double(blocks: np.ndarray, mean: float, std: float) -> np.ndarray:
    """The scalar NormalFill16<double> (std::log/cos/sin + std::fma) on a (k, 16) array."""
    u1 = 1.0 - blocks[:, :8]
    u2 = blocks[:, 8:]
    radius = np.sqrt(-2.0 * _libm(math.log, u1))
    theta = (2.0 * math.pi) * u2  # 2.0f * c10::pi<double> is folded to one double constant
    result = np.empty_like(blocks)
    result[:, :8] = fma_float64(radius * np.cos(theta), std, mean)
    result[:, 8:] = fma_float64(radius * np.sin(theta), std, mean)
    return result


_NORMAL_CHUNK_BLOCKS = 4096  # 64K elements per chunk


def _normal_fill(gen: CPUGeneratorImpl, out: np.ndarray, mean: float, std: float) -> None:
    """templates::cpu::normal_fill: the contiguous, numel >= 16 path (Box-Muller on blocks of 16).

    float/double: draw all `size` uniforms first, transform each full block of 16 in place, and
    if size % 16 != 0 draw 16 fresh uniforms and recompute the last 16 outputs from them.
    half/bfloat16: per block, draw 16 float uniforms, transform, cast; the tail likewise.
    """
    dtype = out.dtype
    size = out.size
    full = size // 16 * 16
    has_tail = size % 16 != 0
    opmath = _F64 if dtype == _F64 else _F32  # at::opmath_type<scalar_t>

    def fill16(blocks: np.ndarray) -> np.ndarray:
        if opmath == _F64:
            return _normal_fill_16_double(blocks, mean, std)
        return _normal_fill_16_float(blocks, np.float32(mean), np.float32(std))

    with gen.mutex_:
        if dtype == opmath:
            data = _uniform01(gen, size, opmath)
            tail = _uniform01(gen, 16, opmath) if has_tail else None
        else:  # same draw order as block-by-block: one contiguous run of 16-word groups
            both = _uniform01(gen, full + (16 if has_tail else 0), opmath)
            data, tail = both[:full], (both[full:] if has_tail else None)
    # Blocks are independent, so go chunk by chunk: the ~100 temporaries per chunk stay in
    # cache, which is ~3x faster than one pass over the whole array.
    blocks = data[:full].reshape(-1, 16)
    dst = out[:full].reshape(-1, 16)
    for i in range(0, blocks.shape[0], _NORMAL_CHUNK_BLOCKS):
        dst[i : i + _NORMAL_CHUNK_BLOCKS] = fill16(blocks[i : i + _NORMAL_CHUNK_BLOCKS])
    if tail is not None:  # recompute the last 16 values
        out[size - 16 :] = fill16(tail.reshape(1, 16)).reshape(-1)


def _normal_distribution_fill(
    gen: CPUGeneratorImpl, out: np.ndarray, mean: float, std: float
) -> None:
    """The serial path: at::normal_distribution<double> per element, with the cached sample.

    Each fresh Box-Muller pair draws u1, u2 (random64 each), returns r*cos(theta) and caches
    r*sin(theta) in gen.next_double_normal_sample for the next element (even across calls).
    Only the cache hand-off is sequential; the pairs are computed as arrays.
    """
    n = out.size
    if n == 0:
        return
    normals = np.empty(n, dtype=np.float64)
    with gen.mutex_:
        start = 0
        cached = gen.next_double_normal_sample
        if cached is not None:
            gen.set_next_double_normal_sample(None)
            normals[0] = cached
            start = 1
        pairs = (n - start + 1) // 2
        u = _uniform01(gen, 2 * pairs, _F64).reshape(pairs, 2)
        u1, u2 = u[:, 0], u[:, 1]
        r = np.sqrt(-2.0 * _libm(math.log1p, -u2))
        theta = (2.0 * math.pi) * u1
        sin_half = r * np.sin(theta)
        fresh = np.empty(2 * pairs, dtype=np.float64)
        fresh[0::2] = r * np.cos(theta)
        fresh[1::2] = sin_half
        normals[start:] = fresh[: n - start]
        if (n - start) % 2 == 1:  # the last pair's sine is left for the next draw
            gen.set_next_double_normal_sample(float(sin_half[-1]))
    # transformation::normal: val * std + mean, contracted to one fma
    out[...] = _cast_from_double(fma_float64(normals, std, mean), out.dtype)


def normal_fill(
    gen: CPUGeneratorImpl,
    out: np.ndarray,
    mean: float = 0.0,
    std: float = 1.0,
    *,
    is_contiguous: bool = True,
) -> np.ndarray:
    """normal_kernel (`torch.randn`, `Tensor.normal_(mean, std)`), with normal_impl_'s check.

    numel >= 16 and contiguous: the blocked Box-Muller normal_fill; otherwise the serial
    normal_distribution<double> path (pass is_contiguous=False for a strided tensor, with
    `out` holding its elements in iteration order).
    """
    _check_out(out, _floating_dtypes(), "normal_kernel_cpu")
    mean, std = float(mean), float(std)
    TORCH_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std)
    if out.size >= 16 and is_contiguous:
        _normal_fill(gen, out, mean, std)
    else:
        _normal_distribution_fill(gen, out, mean, std)
    return out
