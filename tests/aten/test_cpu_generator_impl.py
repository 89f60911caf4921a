"""Tests for the mt19937 CPU generator and the CPU distribution kernels.

The first half needs only NumPy (known mt19937 outputs, a plain-Python reference engine, state
round trips, exact-FMA helpers). The second half compares bit for bit with PyTorch's own CPU
generator and skips where torch is not installed.
"""

from __future__ import annotations

import struct
import warnings
from fractions import Fraction

import numpy as np
import pytest

from tensortrace.aten.cpu_generator_impl import (
    CPU_GENERATOR_STATE_SIZE,
    CPUGeneratorImpl,
    createCPUGenerator,
    default_rng_seed_val,
    getDefaultCPUGenerator,
    mt19937,
)
from tensortrace.aten.native.cpu import fma
from tensortrace.aten.native.cpu.distribution_templates import (
    BFLOAT16,
    normal_fill,
    random_fill,
    random_from_to_fill,
    random_full_64_bits_range_fill,
    uniform_fill,
)
from tensortrace.aten.native.distribution_templates import random_from_to_impl

FLOAT_DTYPES = [np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.float16)] + (
    [BFLOAT16] if BFLOAT16 is not None else []
)


def gen(seed: int) -> CPUGeneratorImpl:
    g = CPUGeneratorImpl()
    g.set_current_seed(seed)
    return g


def raw_bits(a: np.ndarray) -> np.ndarray:
    """The array's bytes as unsigned integers, so NaNs / signed zeros compare exactly."""
    a = np.ascontiguousarray(a)
    return a.view(np.uint8) if a.dtype == np.bool_ else a.view(f"u{a.dtype.itemsize}")


def bit_equal(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and np.array_equal(raw_bits(a), raw_bits(b))


class ReferenceMT19937:
    """MT19937RNGEngine.h transcribed word by word in plain Python (slow, obviously right)."""

    def __init__(self, seed: int) -> None:
        self.state = [seed & 0xFFFFFFFF]
        for j in range(1, 624):
            prev = self.state[j - 1]
            self.state.append((1812433253 * (prev ^ (prev >> 30)) + j) & 0xFFFFFFFF)
        self.left, self.next = 1, 0

    def _twist(self, u: int, v: int) -> int:
        mixed = (u & 0x80000000) | (v & 0x7FFFFFFF)
        return (mixed >> 1) ^ (0x9908B0DF if v & 1 else 0)

    def _next_state(self) -> None:
        s = self.state
        for k in range(624):
            s[k] = s[(k + 397) % 624] ^ self._twist(s[k], s[(k + 1) % 624])
        self.left, self.next = 624, 0

    def __call__(self) -> int:
        self.left -= 1
        if self.left == 0:
            self._next_state()
        y = self.state[self.next]
        self.next += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        y ^= y >> 18
        return y & 0xFFFFFFFF


# ================================= engine & generator (no torch) =================================


def test_mt19937_known_outputs_for_default_seed() -> None:
    engine = mt19937()  # default seed 5489, as std::mt19937
    assert [engine() for _ in range(5)] == [
        3499211612,
        581869302,
        3890346734,
        3586334585,
        545404204,
    ]
    # The C++ standard's check value: the 10000th output of a default-seeded mt19937.
    engine = mt19937()
    assert int(engine.random_uint32(10000)[-1]) == 4123659995


@pytest.mark.parametrize("seed", [0, 1, 42, 2**32 + 7, default_rng_seed_val])
def test_vectorized_draws_match_reference_engine(seed: int) -> None:
    ref = ReferenceMT19937(seed)
    expected = [ref() for _ in range(2000)]  # crosses three twists
    g = gen(seed)
    got: list[int] = [g.random()]
    got += g.random_uint32(622).tolist()  # ends exactly at a twist boundary
    got.append(g.random())
    got += g.random_uint32(700).tolist()
    while len(got) < 2000:
        got.append(g.random())
    assert got == expected


def test_random64_joins_two_words_high_first() -> None:
    g1, g2 = gen(7), gen(7)
    hi, lo = g1.random(), g1.random()
    assert g2.random64() == (hi << 32) | lo
    words = gen(9).random_uint32(10).astype(np.uint64)
    assert np.array_equal(gen(9).random_uint64(5), (words[0::2] << np.uint64(32)) | words[1::2])


def test_seeding_and_reproducibility() -> None:
    g = createCPUGenerator()
    assert g.current_seed() == default_rng_seed_val == 67280421310721
    g.set_current_seed(2**63 + 5)
    assert g.current_seed() == 2**63 + 5
    g.set_current_seed(-1)  # wraps like torch.manual_seed(-1)
    assert g.current_seed() == 2**64 - 1
    with pytest.raises(ValueError):
        g.set_current_seed(2**64)
    a = gen(123).random_uint32(50)
    assert np.array_equal(a, gen(123).random_uint32(50))
    assert not np.array_equal(a, gen(124).random_uint32(50))
    # Only the low 32 bits reach the engine; the full seed is still reported.
    assert np.array_equal(gen(5).random_uint32(8), gen(5 + 2**32).random_uint32(8))


def test_nondeterministic_seed_and_default_generator() -> None:
    g = CPUGeneratorImpl()
    s = g.seed()
    assert g.current_seed() == s
    assert np.array_equal(g.random_uint32(4), gen(s).random_uint32(4))
    assert getDefaultCPUGenerator() is getDefaultCPUGenerator()


def test_set_current_seed_drops_normal_caches() -> None:
    g = gen(3)
    normal_fill(g, np.empty(1))  # one element: caches the sine half
    assert g.next_double_normal_sample is not None
    g.set_next_float_normal_sample(0.1)
    g.set_current_seed(3)
    assert g.next_double_normal_sample is None and g.next_float_normal_sample is None


def _drawn_states() -> list[CPUGeneratorImpl]:
    fresh = gen(11)
    mid = gen(11)
    mid.random_uint32(100)
    boundary = gen(11)
    boundary.random_uint32(624)  # left_ == 1, next_ == 624
    cached = gen(11)
    normal_fill(cached, np.empty(3))  # leaves a cached double normal
    cached.set_next_float_normal_sample(-1.25)
    return [fresh, mid, boundary, cached]


@pytest.mark.parametrize("g", _drawn_states())
def test_state_roundtrip(g: CPUGeneratorImpl) -> None:
    state = g.get_state()
    assert isinstance(state, bytes) and len(state) == CPU_GENERATOR_STATE_SIZE == 5056
    h = CPUGeneratorImpl()
    h.set_state(state)
    assert h.get_state() == state
    assert h.current_seed() == g.current_seed()
    assert h.next_double_normal_sample == g.next_double_normal_sample
    assert h.next_float_normal_sample == g.next_float_normal_sample
    assert np.array_equal(h.random_uint32(1500), g.random_uint32(1500))
    assert h.get_state() == g.get_state()


def test_state_layout_fields() -> None:
    g = gen(2**40 + 17)
    g.random_uint32(3)
    state = g.get_state()
    seed, left, seeded, nxt = struct.unpack_from("<QiiQ", state, 0)
    assert (seed, left, seeded, nxt) == (2**40 + 17, 622, 1, 3)
    fresh = gen(1).get_state()
    assert struct.unpack_from("<QiiQ", fresh, 0) == (1, 1, 1, 0)
    words = np.frombuffer(fresh, "<u8", 624, 24)
    assert int(words[0]) == 1 and int(words[1]) == (1812433253 * (1 ^ 0) + 1) & 0xFFFFFFFF


def test_set_state_rejects_bad_input() -> None:
    g = CPUGeneratorImpl()
    with pytest.raises(RuntimeError, match="size"):
        g.set_state(b"\0" * 100)
    bad = bytearray(gen(1).get_state())
    struct.pack_into("<i", bad, 8, 0)  # left_ == 0
    with pytest.raises(RuntimeError, match="Invalid mt19937 state"):
        g.set_state(bytes(bad))


def test_clone_is_independent() -> None:
    g = gen(5)
    g.random_uint32(10)
    c = g.clone()
    assert np.array_equal(c.random_uint32(20), g.random_uint32(20))
    c.random()
    assert c.get_state() != g.get_state()


# ======================================= exact FMA helpers =======================================


def _nearest_float32(exact: Fraction) -> np.float32:
    """Round a rational to float32, ties to even, by comparing the neighbours exactly."""
    guess = np.float32(float(exact))  # within one float32 ulp (double rounding at worst)
    cands = [
        np.nextafter(guess, np.float32(-np.inf)),
        guess,
        np.nextafter(guess, np.float32(np.inf)),
    ]
    return min(cands, key=lambda f: (abs(Fraction(float(f)) - exact), int(f.view(np.uint32)) & 1))


def test_fma_helpers_round_once() -> None:
    rng = np.random.default_rng(0)
    n = 4000
    a = rng.standard_normal(n) * 10.0 ** rng.integers(-5, 5, n)
    b = rng.standard_normal(n) * 10.0 ** rng.integers(-5, 5, n)
    c = -(a * b) * (1 + rng.standard_normal(n) * 2.0 ** -rng.integers(20, 60, n))  # cancellation
    exact = [Fraction(x) * Fraction(y) + Fraction(z) for x, y, z in zip(a, b, c, strict=True)]
    assert np.array_equal(fma.fma_float64(a, b, c), np.array([float(e) for e in exact]))

    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    c32 = (-(a32.astype(np.float64) * b32) * (1 + 2.0**-30)).astype(np.float32)
    c32[::3] = rng.standard_normal(c32[::3].size).astype(np.float32)
    want = [
        _nearest_float32(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)))
        for x, y, z in zip(a32, b32, c32, strict=True)
    ]
    assert bit_equal(fma.fma_float32(a32, b32, c32), np.array(want, dtype=np.float32))


def test_fma_float32_avoids_double_rounding() -> None:
    # a*b + c = 1 + 2**-24 + 2**-54: just above a float32 tie. Rounding to double first lands
    # exactly on the tie (which then rounds to even, 1.0); one rounding gives 1 + 2**-23.
    a = np.array([2.0**-24 * (1 + 2.0**-10)], dtype=np.float32)
    b = np.float32(1 - 2.0**-10 + 2.0**-20)
    assert (a.astype(np.float64) * b + 1.0).astype(np.float32)[0] == 1.0
    assert fma.fma_float32(a, b, np.float32(1.0))[0] == np.float32(1 + 2.0**-23)


# ================================ distributions, torch-free properties ============================


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_uniform_fill_range_and_dtype(dtype: np.dtype) -> None:
    out = uniform_fill(gen(1), np.empty(5000, dtype=dtype), -2.0, 3.0)
    vals = out.astype(np.float64)
    assert out.dtype == dtype and vals.min() >= -2.0 and vals.max() < 3.0
    with pytest.raises(RuntimeError):
        uniform_fill(gen(1), np.empty(3, dtype=dtype), 1.0, 0.0)


def test_uniform_fill_draw_counts() -> None:
    g, ref = gen(4), gen(4)
    uniform_fill(g, np.empty(10, np.float32))
    uniform_fill(g, np.empty(10, np.float64))
    ref.random_uint32(10 + 20)  # float: random(), double: random64()
    assert g.get_state() == ref.get_state()


def test_normal_fill_statistics_and_cache() -> None:
    g = gen(0)
    x = normal_fill(g, np.empty(200_000, np.float32), 2.0, 3.0)
    assert abs(x.mean() - 2.0) < 0.05 and abs(x.std() - 3.0) < 0.05
    g = gen(0)
    first = normal_fill(g, np.empty(1))  # fresh pair: returns cos half, caches sin half
    cached = g.next_double_normal_sample
    second = normal_fill(g, np.empty(1))
    assert cached is not None and second[0] == cached and first[0] != second[0]
    assert g.next_double_normal_sample is None
    with pytest.raises(RuntimeError, match=r"std >= 0\.0"):
        normal_fill(g, np.empty(4), 0.0, -1.0)


def test_normal_fill_draw_counts() -> None:
    g, ref = gen(6), gen(6)
    normal_fill(g, np.empty(17, np.float32))  # 17 uniforms, then 16 more for the tail
    ref.random_uint32(33)
    assert g.get_state() == ref.get_state()
    g, ref = gen(6), gen(6)
    normal_fill(g, np.empty(17, np.float16))  # one block, then a fresh block for the tail
    ref.random_uint32(32)
    assert g.get_state() == ref.get_state()


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int16, np.int8, np.uint8, np.float32])
def test_random_from_to_fill_range(dtype: type) -> None:
    out = random_from_to_fill(
        gen(2), np.empty(5000, dtype=dtype), -3 if dtype != np.uint8 else 0, 7
    )
    lo = -3 if dtype != np.uint8 else 0
    assert out.min() >= lo and out.max() < lo + 7 and len(np.unique(out)) == 7


def test_random_word_width_switches_at_2_pow_28() -> None:
    g, ref = gen(8), gen(8)
    random_from_to_fill(g, np.empty(5, np.int64), 0, 2**28 - 1)  # random()
    random_from_to_fill(g, np.empty(5, np.int64), 0, 2**28)  # random64()
    ref.random_uint32(5 + 10)
    assert g.get_state() == ref.get_state()


def test_unsupported_dtypes_raise() -> None:
    with pytest.raises(RuntimeError, match="not implemented for 'UInt16'"):
        random_fill(gen(1), np.empty(3, np.uint16))
    with pytest.raises(RuntimeError, match="not implemented for 'Int'"):
        uniform_fill(gen(1), np.empty(3, np.int32))
    with pytest.raises(RuntimeError):
        random_full_64_bits_range_fill(gen(1), np.empty(3, np.int32))


# ================================== bit-for-bit against PyTorch ===================================


@pytest.fixture(scope="module")
def torch():  # the torch module; tests using it skip where torch is not installed
    return pytest.importorskip("torch")


def _torch_dtype(torch, dtype: np.dtype):
    if BFLOAT16 is not None and dtype == BFLOAT16:
        return torch.bfloat16
    return getattr(torch, np.dtype(dtype).name if dtype != np.bool_ else "bool")


def _to_numpy(torch, t, dtype: np.dtype) -> np.ndarray:
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(np.uint16).view(BFLOAT16)
    return t.numpy()


SEEDS = [0, 42, 2**32 + 5, 2**63 + 7]
SIZES = [1, 2, 7, 15, 16, 17, 31, 33, 1000, 4099]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_rand_matches_torch(torch, seed: int, dtype: np.dtype) -> None:
    torch.manual_seed(seed)
    g = gen(seed)
    for n in SIZES:
        want = _to_numpy(torch, torch.rand(n, dtype=_torch_dtype(torch, dtype)), dtype)
        assert bit_equal(uniform_fill(g, np.empty(n, dtype)), want), n
    assert g.get_state() == bytes(torch.default_generator.get_state().numpy())


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("bounds", [(-3.3, 7.1), (0.1, 0.2), (-1000.0, 5.5), (2.0, 2.0)])
def test_uniform_from_to_matches_torch(torch, dtype: np.dtype, bounds: tuple) -> None:
    torch.manual_seed(7)
    want = torch.empty(20_000, dtype=_torch_dtype(torch, dtype)).uniform_(*bounds)
    got = uniform_fill(gen(7), np.empty(20_000, dtype), *bounds)
    assert bit_equal(got, _to_numpy(torch, want, dtype))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_randn_matches_torch(torch, seed: int, dtype: np.dtype) -> None:
    torch.manual_seed(seed)
    g = gen(seed)
    for n in SIZES:  # < 16: serial Box-Muller with the cached sample; >= 16: blocks of 16
        want = _to_numpy(torch, torch.randn(n, dtype=_torch_dtype(torch, dtype)), dtype)
        assert bit_equal(normal_fill(g, np.empty(n, dtype)), want), n
    assert g.get_state() == bytes(torch.default_generator.get_state().numpy())


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("n", [5, 16, 50, 100_003])
def test_normal_mean_std_matches_torch(torch, dtype: np.dtype, n: int) -> None:
    torch.manual_seed(99)
    g = gen(99)
    for mean, std in [(1.5, 0.3), (-2.0, 7.7)]:
        want = torch.empty(n, dtype=_torch_dtype(torch, dtype)).normal_(mean, std)
        got = normal_fill(g, np.empty(n, dtype), mean, std)
        assert bit_equal(got, _to_numpy(torch, want, dtype))


def test_normal_strided_serial_path_matches_torch(torch) -> None:
    torch.manual_seed(11)
    want = torch.empty(2 * 3001, dtype=torch.float64)[::2].normal_(0.5, 2.0).numpy()
    got = normal_fill(gen(11), np.empty(3001), 0.5, 2.0, is_contiguous=False)
    assert bit_equal(got, np.ascontiguousarray(want))


RANDINT_BOUNDS = [
    (0, 10),
    (-5, 5),
    (0, 2**28 - 1),
    (0, 2**28),
    (3, 2**28 + 10),
    (0, 2**32),
    (-(2**40), 2**40),
    (-(2**62), 2**62),
    (-(2**63), 2**63 - 1),
]
INT_DTYPES = [np.int64, np.int32, np.int16, np.int8, np.uint8, np.float32, np.float64, np.float16]


@pytest.mark.parametrize("dtype", INT_DTYPES + ([BFLOAT16] if BFLOAT16 is not None else []))
@pytest.mark.parametrize("bounds", RANDINT_BOUNDS)
def test_randint_matches_torch(torch, dtype: np.dtype, bounds: tuple) -> None:
    dtype = np.dtype(dtype)
    low, high = bounds
    torch.manual_seed(5)
    try:
        with warnings.catch_warnings():  # torch warns that wide ranges exceed float precision
            warnings.simplefilter("ignore")
            want = torch.randint(low, high, (3000,), dtype=_torch_dtype(torch, dtype))
    except RuntimeError:  # out of bounds for the dtype: we must refuse too
        with pytest.raises(RuntimeError):
            random_from_to_impl(gen(5), np.empty(3000, dtype), low, high)
        return
    got = random_from_to_impl(gen(5), np.empty(3000, dtype), low, high)
    assert bit_equal(got, _to_numpy(torch, want, dtype))


@pytest.mark.parametrize(
    "dtype",
    [np.bool_, np.int64, np.int32, np.int16, np.int8, np.uint8]
    + [np.float32, np.float64, np.float16]
    + ([BFLOAT16] if BFLOAT16 is not None else []),
)
def test_random_no_bounds_matches_torch(torch, dtype: np.dtype) -> None:
    dtype = np.dtype(dtype)
    torch.manual_seed(9)
    g = gen(9)
    want = torch.empty(3000, dtype=_torch_dtype(torch, dtype)).random_()
    assert bit_equal(random_fill(g, np.empty(3000, dtype)), _to_numpy(torch, want, dtype))
    want = torch.empty(500, dtype=_torch_dtype(torch, dtype)).random_(1, None)  # [1, max]
    assert bit_equal(random_from_to_impl(g, np.empty(500, dtype), 1), _to_numpy(torch, want, dtype))
    if dtype in (np.int64, np.float64, np.float32) or (BFLOAT16 is not None and dtype == BFLOAT16):
        want = torch.empty(500, dtype=_torch_dtype(torch, dtype)).random_(-(2**63), None)
        got = random_from_to_impl(g, np.empty(500, dtype), -(2**63))
        assert bit_equal(got, _to_numpy(torch, want, dtype))
    assert g.get_state() == bytes(torch.default_generator.get_state().numpy())


def test_consecutive_draws_advance_like_torch(torch) -> None:
    torch.manual_seed(2024)
    g = gen(2024)
    steps = [
        (lambda: torch.rand(5), lambda: uniform_fill(g, np.empty(5, np.float32))),
        (lambda: torch.randn(3), lambda: normal_fill(g, np.empty(3, np.float32))),  # caches
        (lambda: torch.rand(17), lambda: uniform_fill(g, np.empty(17, np.float32))),
        (lambda: torch.randn(40), lambda: normal_fill(g, np.empty(40, np.float32))),
        (
            lambda: torch.randn(1, dtype=torch.float64),  # consumes the cached sine
            lambda: normal_fill(g, np.empty(1, np.float64)),
        ),
        (
            lambda: torch.randint(0, 2**35, (9,)),
            lambda: random_from_to_impl(g, np.empty(9, np.int64), 0, 2**35),
        ),
        (lambda: torch.rand(3, dtype=torch.float64), lambda: uniform_fill(g, np.empty(3))),
        (lambda: torch.randn(7), lambda: normal_fill(g, np.empty(7, np.float32))),
    ]
    for want, got in steps:
        assert bit_equal(got(), want().numpy())
        assert g.get_state() == bytes(torch.default_generator.get_state().numpy())


def test_torch_state_loads_and_ours_loads_into_torch(torch) -> None:
    tg = torch.Generator().manual_seed(77)
    torch.randn(5, generator=tg, dtype=torch.float64)  # leaves a cached normal in the state
    torch.rand(1000, generator=tg)
    g = CPUGeneratorImpl()
    g.set_state(bytes(tg.get_state().numpy()))
    assert g.get_state() == bytes(tg.get_state().numpy())
    assert bit_equal(
        normal_fill(g, np.empty(3)), torch.randn(3, generator=tg, dtype=torch.float64).numpy()
    )

    ours = gen(31)
    ours.random_uint32(700)
    tg2 = torch.Generator()
    tg2.set_state(torch.from_numpy(np.frombuffer(ours.get_state(), np.uint8).copy()))
    assert bit_equal(
        uniform_fill(ours, np.empty(50, np.float32)), torch.rand(50, generator=tg2).numpy()
    )


def test_default_seed_matches_torch_generator(torch) -> None:
    tg = torch.Generator()
    assert tg.initial_seed() == default_rng_seed_val
    g = CPUGeneratorImpl()
    assert g.get_state() == bytes(tg.get_state().numpy())
    assert bit_equal(
        uniform_fill(g, np.empty(10, np.float32)), torch.rand(10, generator=tg).numpy()
    )
