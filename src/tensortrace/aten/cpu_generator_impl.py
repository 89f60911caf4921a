"""PyTorch's CPU random number generator (mt19937 + CPUGeneratorImpl), bit for bit.

Mirrors `aten/src/ATen/CPUGeneratorImpl.cpp` / `CPUGeneratorImpl.h` and
`aten/src/ATen/core/MT19937RNGEngine.h` (PyTorch 2.13). After
`gen.set_current_seed(s)` the engine yields exactly the 32-bit words that
`torch.manual_seed(s)` makes the default CPU generator yield, and `get_state()` /
`set_state()` use PyTorch's 5056-byte `CPUGeneratorImplState` layout, so a state
from `torch.Generator.get_state()` loads here and vice versa.

The Mersenne Twister itself is NumPy's `np.random.MT19937`: it runs the same mt19937
algorithm (same twist, same tempering), so we only translate state. PyTorch seeds with
the classic `init_genrand(seed & 0xffffffff)` and counts down `left_`; NumPy keeps the
same 624-word key plus a read position `pos`, with `pos == 624` meaning "twist before
the next word". The two agree when `pos == 625 - left_`. Bulk draws go through NumPy's
C loop, so drawing millions of words costs about what NumPy itself costs.
"""

from __future__ import annotations

import copy
import os
import struct
import threading
from typing import Any

import numpy as np

from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.frozen import Record

__all__ = [
    "MERSENNE_STATE_M",
    "MERSENNE_STATE_N",
    "CPUGeneratorImpl",
    "createCPUGenerator",
    "default_rng_seed_val",
    "getDefaultCPUGenerator",
    "getNonDeterministicRandom",
    "mt19937",
    "mt19937_data_pod",
    "mt19937_engine",
]

MERSENNE_STATE_N = 624
MERSENNE_STATE_M = 397
MATRIX_A = 0x9908B0DF
UMASK = 0x80000000
LMASK = 0x7FFFFFFF

# c10/core/GeneratorImpl.h: the seed a CPUGeneratorImpl gets when none is given.
default_rng_seed_val = 67280421310721

_UINT64_MOD = 1 << 64
_UINT32_MASK = 0xFFFFFFFF

# sizeof(CPUGeneratorImplState) on every 64-bit platform PyTorch ships for. Layout
# (little endian, natural alignment), from CPUGeneratorImpl.cpp:
#   CPUGeneratorImplStateLegacy legacy_pod:
#     uint64 the_initial_seed; int left; int seeded; uint64 next;
#     uint64 state[624];                       (32-bit words widened to 64 bits)
#     double normal_x, normal_y, normal_rho;   (only normal_y is used: cached double)
#     int normal_is_valid; <4 bytes padding>
#   float next_float_normal_sample; bool is_next_float_normal_sample_valid; <3 bytes padding>
_LEGACY_HEAD = struct.Struct("<QiiQ")
_LEGACY_TAIL = struct.Struct("<dddi4x")
_STATE_TAIL = struct.Struct("<f?3x")
_STATE_WORDS_OFFSET = _LEGACY_HEAD.size
_LEGACY_TAIL_OFFSET = _STATE_WORDS_OFFSET + 8 * MERSENNE_STATE_N
_STATE_TAIL_OFFSET = _LEGACY_TAIL_OFFSET + _LEGACY_TAIL.size
CPU_GENERATOR_STATE_SIZE = _STATE_TAIL_OFFSET + _STATE_TAIL.size
assert CPU_GENERATOR_STATE_SIZE == 5056


def _to_uint64_seed(seed: int) -> int:
    """The uint64_t a Python int becomes in `Generator.manual_seed` (negatives wrap)."""
    seed = int(seed)
    if not -(1 << 63) <= seed < _UINT64_MOD:
        raise ValueError("Overflow when unpacking long long")
    return seed % _UINT64_MOD


def getNonDeterministicRandom() -> int:  # PyTorch's name
    """c10::detail::getNonDeterministicRandom: 64 bits from /dev/urandom on CPU."""
    return int.from_bytes(os.urandom(8), "little")


class mt19937_data_pod(Record):  # PyTorch's name
    """The engine's plain-old-data state, used by get_rng_state / set_rng_state."""

    # Note [Records written out, not made by dataclass] in c10/frozen.py: a Record, as
    # @dataclass made it (eq, and so no hash), with state_ left out of its repr
    __match_args__ = ("seed_", "left_", "seeded_", "next_", "state_")

    def __init__(
        self, seed_: int, left_: int, seeded_: bool, next_: int, state_: np.ndarray
    ) -> None:
        self.seed_ = seed_
        self.left_ = left_
        self.seeded_ = seeded_
        self.next_ = next_
        self.state_ = state_  # uint32[624]

    def __repr__(self) -> str:
        return (
            f"{type(self).__qualname__}(seed_={self.seed_!r}, left_={self.left_!r}, "
            f"seeded_={self.seeded_!r}, next_={self.next_!r})"
        )


def _init_genrand(seed: int) -> np.ndarray:
    """mt19937_engine::init_with_uint32: Knuth's initializer on the low 32 bits.

    Sequential by nature (each word depends on the previous one); 623 steps.
    """
    key = np.empty(MERSENNE_STATE_N, dtype=np.uint32)
    s = seed & _UINT32_MASK
    key[0] = s
    for j in range(1, MERSENNE_STATE_N):
        s = (1812433253 * (s ^ (s >> 30)) + j) & _UINT32_MASK
        key[j] = s
    return key


class mt19937_engine:  # PyTorch's name
    """at::mt19937: the 32-bit Mersenne Twister with PyTorch's seeding and state fields.

    Backed by `np.random.MT19937`, whose `random_raw(n)` returns the next `n` raw engine words
    (mt19937's tempered 32-bit outputs, widened to uint64) in one C loop: the same words that
    `Generator.integers(0, 2**32, dtype=uint32)` returns, without its argument handling (about
    6x cheaper for a small draw). That is how bulk draws stay in C.
    """

    _unset_state: tuple[np.ndarray, int]

    def __init__(self, seed: int = 5489) -> None:
        self._init_with_uint32(seed)

    # Note [The bit generator made on the first draw]
    # `np.random` costs ~13 ms to import (its bit generators, SeedSequence, hashlib), a
    # fifteenth of `import tensortrace`, and the default generator is built at import. So an
    # engine keeps its key and position in `_unset_state` until something reads `_bitgen`:
    # __getattr__ runs only for an attribute not yet set, so once made, the bit generator is a
    # plain attribute read on the draw path. The words drawn are the same either way.
    def __getattr__(self, name: str) -> Any:
        if name != "_bitgen":
            raise AttributeError(f"'mt19937_engine' object has no attribute '{name}'")
        key, pos = self.__dict__.pop("_unset_state")
        bitgen = self._bitgen = np.random.MT19937(0)  # a fixed seed: its state is replaced
        bitgen.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}
        return bitgen

    # -- state ------------------------------------------------------------------------------
    def _init_with_uint32(self, seed: int) -> None:
        self._seed = int(seed)
        self._seeded = True
        self._set_key_pos(_init_genrand(seed), MERSENNE_STATE_N)
        # A fresh engine has left_ = 1, next_ = 0; after exactly 624 words since a twist it
        # has left_ = 1, next_ = 624. NumPy's pos is 624 in both cases, so remember which.
        self._next_when_exhausted = 0

    def _set_key_pos(self, key: np.ndarray, pos: int) -> None:
        words, position = np.asarray(key, dtype=np.uint32), int(pos)
        if "_bitgen" in self.__dict__:
            self._bitgen.state = {
                "bit_generator": "MT19937",
                "state": {"key": words, "pos": position},
            }
        else:  # Note [The bit generator made on the first draw]
            self._unset_state = (words, position)

    def _after_draw(self, n: int) -> None:
        if n > 0:
            self._next_when_exhausted = MERSENNE_STATE_N

    def data(self) -> mt19937_data_pod:
        st = self._bitgen.state["state"]
        pos = int(st["pos"])
        left = MERSENNE_STATE_N + 1 - pos
        nxt = pos if pos < MERSENNE_STATE_N else self._next_when_exhausted
        return mt19937_data_pod(
            seed_=self._seed,
            left_=left,
            seeded_=self._seeded,
            next_=nxt,
            state_=np.array(st["key"], dtype=np.uint32),
        )

    def set_data(self, data: mt19937_data_pod) -> None:
        left, nxt = int(data.left_), int(data.next_)
        # With left_ > 1 the C++ engine reads state_[next_] next; NumPy reads key[625 - left_].
        # Engines only ever produce states where those agree (or left_ == 1, where next_ is
        # reset by the twist before use), so other combinations cannot be represented.
        TORCH_CHECK(
            left == 1 or nxt == MERSENNE_STATE_N + 1 - left,
            "Unsupported mt19937 state: next_ (",
            nxt,
            ") must equal 625 - left_ (",
            left,
            ")",
        )
        self._seed = int(data.seed_)
        self._seeded = bool(data.seeded_)
        self._set_key_pos(np.asarray(data.state_, dtype=np.uint32), MERSENNE_STATE_N + 1 - left)
        self._next_when_exhausted = nxt if left == 1 else MERSENNE_STATE_N

    def seed(self) -> int:
        return self._seed

    def is_valid(self) -> bool:
        d = self.data()
        return d.seeded_ and 0 < d.left_ <= MERSENNE_STATE_N and d.next_ <= MERSENNE_STATE_N

    # -- draws --------------------------------------------------------------------------------
    def __call__(self) -> int:
        """One tempered 32-bit word, as `mt19937_engine::operator()`."""
        self._after_draw(1)
        return int(self._bitgen.random_raw())

    def random_uint32(self, n: int) -> np.ndarray:
        """The next `n` words, in order, as a uint32 array (one C loop, no Python per word)."""
        return self.random_raw(n).astype(np.uint32)

    def random_raw(self, n: int) -> np.ndarray:
        """The next `n` words, in order, each in a uint64 (as the bit generator hands them)."""
        if n > 0:
            self._next_when_exhausted = MERSENNE_STATE_N  # _after_draw, inlined: hot
        return self._bitgen.random_raw(n)

    def __copy__(self) -> mt19937_engine:
        other = mt19937_engine.__new__(mt19937_engine)
        if "_bitgen" in self.__dict__:
            other._bitgen = np.random.MT19937(0)
            other._bitgen.state = self._bitgen.state
        else:
            key, pos = self._unset_state
            other._unset_state = (key.copy(), pos)
        other._seed = self._seed
        other._seeded = self._seeded
        other._next_when_exhausted = self._next_when_exhausted
        return other


mt19937 = mt19937_engine


class CPUGeneratorImpl:
    """at::CPUGeneratorImpl: an mt19937 engine plus the cached Box-Muller second samples.

    `next_float_normal_sample` / `next_double_normal_sample` are the optional caches that
    `at::normal_distribution` fills with the sine half of a Box-Muller pair (None when empty).
    Kernels take `mutex_` while drawing, as PyTorch's do
    (Note [Acquire lock when using random generators]).
    """

    device_type = "cpu"

    def __init__(self, seed_in: int = default_rng_seed_val) -> None:
        self.engine_ = mt19937(_to_uint64_seed(seed_in))
        self.next_float_normal_sample: float | None = None
        self.next_double_normal_sample: float | None = None
        self.mutex_ = threading.Lock()

    # -- seeding ------------------------------------------------------------------------------
    def set_current_seed(self, seed: int) -> None:
        """Reseed (what `torch.manual_seed` does); also drops the cached normal samples."""
        self.next_float_normal_sample = None
        self.next_double_normal_sample = None
        self.engine_ = mt19937(_to_uint64_seed(seed))

    def current_seed(self) -> int:
        return self.engine_.seed()

    def seed(self) -> int:
        """Reseed from a nondeterministic source and return the new seed."""
        random = getNonDeterministicRandom()
        self.set_current_seed(random)
        return random

    def set_offset(self, offset: int) -> None:
        TORCH_CHECK(False, "CPU Generator does not use offset")

    def get_offset(self) -> int:
        TORCH_CHECK(False, "CPU Generator does not use offset")
        return 0  # unreachable

    # -- draws --------------------------------------------------------------------------------
    def random(self) -> int:
        """One uint32 from the engine."""
        return self.engine_()

    def random64(self) -> int:
        """Two engine words joined as (first << 32) | second (make64BitsFrom32Bits)."""
        hi = self.engine_()
        lo = self.engine_()
        return (hi << 32) | lo

    def random_uint32(self, n: int) -> np.ndarray:
        """`n` consecutive random() values as a uint32 array."""
        return self.engine_.random_raw(n).astype(np.uint32)  # engine_.random_uint32(n)

    def random_uint64(self, n: int) -> np.ndarray:
        """`n` consecutive random64() values as a uint64 array (2n engine words)."""
        words = self.engine_.random_raw(2 * int(n))  # already uint64: no widening copy
        return (words[0::2] << np.uint64(32)) | words[1::2]

    def set_next_float_normal_sample(self, randn: float | None) -> None:
        # Stored as a C++ float: round through float32.
        self.next_float_normal_sample = None if randn is None else float(np.float32(randn))

    def set_next_double_normal_sample(self, randn: float | None) -> None:
        self.next_double_normal_sample = None if randn is None else float(randn)

    # -- engine / clone -----------------------------------------------------------------------
    def engine(self) -> mt19937_engine:
        return copy.copy(self.engine_)

    def set_engine(self, engine: mt19937_engine) -> None:
        self.engine_ = copy.copy(engine)

    def clone(self) -> CPUGeneratorImpl:
        gen = CPUGeneratorImpl()
        gen.set_engine(self.engine_)
        gen.next_float_normal_sample = self.next_float_normal_sample
        gen.next_double_normal_sample = self.next_double_normal_sample
        return gen

    # -- get_rng_state / set_rng_state ----------------------------------------------------------
    def get_state(self) -> bytes:
        """The 5056-byte CPUGeneratorImplState, identical to `torch.Generator.get_state()`."""
        d = self.engine_.data()
        buf = bytearray(CPU_GENERATOR_STATE_SIZE)  # zero padding, as PyTorch's value-init
        _LEGACY_HEAD.pack_into(buf, 0, d.seed_, d.left_, int(d.seeded_), d.next_)
        words = d.state_.astype("<u8").tobytes()
        buf[_STATE_WORDS_OFFSET:_LEGACY_TAIL_OFFSET] = words
        double_valid = self.next_double_normal_sample is not None
        normal_y = self.next_double_normal_sample if double_valid else 0.0
        _LEGACY_TAIL.pack_into(buf, _LEGACY_TAIL_OFFSET, 0.0, normal_y, 0.0, int(double_valid))
        float_valid = self.next_float_normal_sample is not None
        float_sample = self.next_float_normal_sample if float_valid else 0.0
        _STATE_TAIL.pack_into(buf, _STATE_TAIL_OFFSET, float_sample, float_valid)
        return bytes(buf)

    def set_state(self, new_state: bytes | bytearray | memoryview | np.ndarray) -> None:
        """Load a CPUGeneratorImplState (e.g. `bytes(torch_gen.get_state().numpy())`)."""
        raw = (
            np.ascontiguousarray(new_state, dtype=np.uint8).tobytes()
            if isinstance(new_state, np.ndarray)
            else bytes(new_state)
        )
        TORCH_CHECK(
            len(raw) == CPU_GENERATOR_STATE_SIZE,
            "Expected a CPUGeneratorImplState of size ",
            CPU_GENERATOR_STATE_SIZE,
            " but found the input RNG state size to be ",
            len(raw),
        )
        seed, left, seeded, nxt = _LEGACY_HEAD.unpack_from(raw, 0)
        # The legacy pod widened the 32-bit words to uint64; PyTorch's std::copy narrows back.
        words = np.frombuffer(raw, dtype="<u8", count=MERSENNE_STATE_N, offset=_STATE_WORDS_OFFSET)
        _, normal_y, _, normal_is_valid = _LEGACY_TAIL.unpack_from(raw, _LEGACY_TAIL_OFFSET)
        float_sample, float_valid = _STATE_TAIL.unpack_from(raw, _STATE_TAIL_OFFSET)
        nxt &= _UINT32_MASK  # static_cast<uint32_t>(legacy_pod->next)
        pod = mt19937_data_pod(
            seed_=seed,
            left_=left,
            seeded_=bool(seeded),
            next_=nxt,
            state_=(words & np.uint64(_UINT32_MASK)).astype(np.uint32),
        )
        TORCH_CHECK(
            pod.seeded_ and 0 < pod.left_ <= MERSENNE_STATE_N and pod.next_ <= MERSENNE_STATE_N,
            "Invalid mt19937 state",
        )
        engine = mt19937()
        engine.set_data(pod)
        self.engine_ = engine
        self.next_float_normal_sample = float(float_sample) if float_valid else None
        self.next_double_normal_sample = float(normal_y) if normal_is_valid else None


def createCPUGenerator(seed_val: int = default_rng_seed_val) -> CPUGeneratorImpl:
    """at::detail::createCPUGenerator."""
    return CPUGeneratorImpl(seed_val)


_default_cpu_generator: CPUGeneratorImpl | None = None
_default_cpu_generator_lock = threading.Lock()


def getDefaultCPUGenerator() -> CPUGeneratorImpl:  # PyTorch's name
    """The process-wide default CPU generator, created once with a nondeterministic seed."""
    global _default_cpu_generator
    if _default_cpu_generator is None:
        with _default_cpu_generator_lock:
            if _default_cpu_generator is None:
                _default_cpu_generator = createCPUGenerator(getNonDeterministicRandom())
    return _default_cpu_generator
