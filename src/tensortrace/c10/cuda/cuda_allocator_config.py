"""PYTORCH_CUDA_ALLOC_CONF: the options that change how the caching allocator behaves.

Mirrors `c10/cuda/CUDAAllocatorConfig.cpp` and `c10/core/AllocatorConfig.cpp` (lexArgs,
consumeToken, parseMaxSplitSize, parseRoundUpPower2Divisions, parseGarbageCollectionThreshold,
roundup_power2_divisions(size)). The option string is lexed into tokens split at `,` `:` `[` `]`
and parsed with PyTorch's error messages. `expandable_segments:True` needs the CUDA driver's
virtual-memory API, which the emulated device does not have: as on a platform without it, torch
warns "expandable_segments not supported on this platform" and keeps ordinary segments.
"""

from __future__ import annotations

import os
import warnings

from tensortrace.c10.exception import TORCH_CHECK_VALUE

kMB = 1024 * 1024
kLargeBuffer = 20971520  # "large" allocations may be packed in 20 MiB blocks
kRoundUpPowerOfTwoIntervals = 16  # intervals from 1 MiB to 64 GiB
kRoundUpPowerOfTwoStart = 1 * kMB
SIZE_MAX = (1 << 64) - 1  # std::numeric_limits<size_t>::max(): "no limit"


def _is_power_of_2(v: int) -> bool:
    return v > 0 and v & (v - 1) == 0


def _stoi(token: str) -> int:
    try:
        return int(token)
    except ValueError:
        raise ValueError("stoull") from None  # std::invalid_argument's what(), as torch shows it


# ConfigTokenizer::operator[] when the option string ends early
_OUT_OF_BOUNDS = (
    'i < config_.size() INTERNAL ASSERT FAILED at "c10/core/AllocatorConfig.h":124, '
    "please report a bug to PyTorch. Index out of bounds in ConfigTokenizer"
)


def _token(config: list[str], i: int) -> str:
    if i >= len(config):
        raise RuntimeError(_OUT_OF_BOUNDS)
    return config[i]


class CUDAAllocatorConfig:
    """The parsed settings; `instance()` is the process-wide one read by the allocator."""

    _instance: CUDAAllocatorConfig | None = None

    def __init__(self) -> None:
        self.max_split_size = SIZE_MAX
        self.max_non_split_rounding_size = kLargeBuffer
        self.garbage_collection_threshold = 0.0
        self.roundup_power2_divisions_ = [0] * kRoundUpPowerOfTwoIntervals
        self.expandable_segments = False
        self.release_lock_on_cudamalloc = False
        self.pinned_use_cuda_host_register = False
        self.pinned_num_register_threads = 1
        self.last_allocator_settings = ""

    @classmethod
    def instance(cls) -> CUDAAllocatorConfig:
        if cls._instance is None:
            cls._instance = CUDAAllocatorConfig()
            cls._instance.parseArgs(os.environ.get("PYTORCH_CUDA_ALLOC_CONF"))
        return cls._instance

    def roundup_power2_divisions(self, size: int) -> int:
        """The divisions for the power-of-two interval `size` falls in (1 MiB .. 64 GiB)."""
        log_size = size.bit_length() - 1
        index = log_size - (kRoundUpPowerOfTwoStart.bit_length() - 1)
        index = min(max(0, index), kRoundUpPowerOfTwoIntervals - 1)
        return self.roundup_power2_divisions_[index]

    @staticmethod
    def lexArgs(env: str) -> list[str]:
        config: list[str] = []
        buf: list[str] = []
        for ch in env:
            if ch in ",:[]":
                if buf:
                    config.append("".join(buf))
                    buf.clear()
                config.append(ch)
            elif ch != " ":
                buf.append(ch)
        if buf:
            config.append("".join(buf))
        return config

    @staticmethod
    def consumeToken(config: list[str], i: int, c: str) -> None:
        """ConfigTokenizer::checkToken."""
        token = _token(config, i)
        TORCH_CHECK_VALUE(
            token == c,
            "Expected '",
            c,
            "' at index ",
            i,
            " in ConfigTokenizer but got '",
            token,
            "'",
        )

    @staticmethod
    def toBool(config: list[str], i: int) -> bool:
        token = _token(config, i)
        TORCH_CHECK_VALUE(
            token in ("True", "False"),
            "Expected 'True' or 'False' at index ",
            i,
            " in ConfigTokenizer but got '",
            token,
            "'",
        )
        return token == "True"

    def parseArgs(self, env: str | None) -> None:
        """Reset to the defaults, then apply each `option:value` of `env`."""
        self.__init__()  # type: ignore[misc]
        if env is None:
            return
        self.last_allocator_settings = env
        config = self.lexArgs(env)
        i = 0
        while i < len(config):
            item = config[i]
            if item == "max_split_size_mb":
                i = self._parse_mb(config, i, "max_split_size_mb", "max_split_size")
            elif item == "max_non_split_rounding_mb":
                i = self._parse_mb(
                    config, i, "max_non_split_rounding_mb", "max_non_split_rounding_size"
                )
            elif item == "garbage_collection_threshold":
                i = self._parse_gc_threshold(config, i)
            elif item == "roundup_power2_divisions":
                i = self._parse_roundup(config, i)
            elif item == "backend":
                self.consumeToken(config, i + 1, ":")
                i += 2
                TORCH_CHECK_VALUE(
                    _token(config, i) in ("native", "cudaMallocAsync"),
                    "Unknown allocator backend, options are native and cudaMallocAsync",
                )
                TORCH_CHECK_VALUE(
                    config[i] == "native",
                    "backend:cudaMallocAsync needs the "
                    "CUDA driver's stream-ordered allocator, which the emulated "
                    "device does not have; use backend:native",
                )
            elif item in (
                "expandable_segments",
                "release_lock_on_cudamalloc",
                "pinned_use_cuda_host_register",
                "pinned_use_background_threads",
            ):
                self.consumeToken(config, i + 1, ":")
                i += 2
                value = self.toBool(config, i)
                if item == "expandable_segments" and value:
                    # what CUDAAllocatorConfig does without PYTORCH_C10_DRIVER_API_SUPPORTED
                    warnings.warn(
                        "expandable_segments not supported on this platform", stacklevel=2
                    )
                    value = False
                setattr(self, item, value)
            elif item == "pinned_num_register_threads":
                self.consumeToken(config, i + 1, ":")
                i += 2
                val = _stoi(_token(config, i))
                TORCH_CHECK_VALUE(
                    _is_power_of_2(val), "Number of register threads has to be power of 2 ", ""
                )
                TORCH_CHECK_VALUE(
                    val <= 128, "Number of register threads should be less than or equal to 128"
                )
                self.pinned_num_register_threads = val
            else:
                TORCH_CHECK_VALUE(
                    False, "Unrecognized key '", item, "' in Accelerator allocator config."
                )
            if i + 1 < len(config):
                i += 1
                self.consumeToken(config, i, ",")
            i += 1

    def _parse_mb(self, config: list[str], i: int, option: str, attr: str) -> int:
        self.consumeToken(config, i + 1, ":")
        i += 2
        val = _stoi(_token(config, i))
        floor = kLargeBuffer // kMB
        TORCH_CHECK_VALUE(
            val >= floor, "CachingAllocator option ", option, " too small, must be >= ", floor, ""
        )
        setattr(self, attr, min(val, SIZE_MAX // kMB) * kMB)
        return i

    def _parse_gc_threshold(self, config: list[str], i: int) -> int:
        self.consumeToken(config, i + 1, ":")
        i += 2
        try:
            val = float(_token(config, i))
        except ValueError:
            raise ValueError("stod") from None
        TORCH_CHECK_VALUE(
            0 < val < 1.0, "garbage_collect_threshold is invalid, set it in (0.0, 1.0)", ""
        )
        self.garbage_collection_threshold = val
        return i

    def _parse_roundup(self, config: list[str], i: int) -> int:
        self.consumeToken(config, i + 1, ":")
        i += 2
        divisions = self.roundup_power2_divisions_
        if _token(config, i) != "[":  # one value for every interval (the older syntax)
            val = _stoi(config[i])
            TORCH_CHECK_VALUE(
                _is_power_of_2(val), "For roundups, the divisions has to be power of 2 ", ""
            )
            divisions[:] = [val] * kRoundUpPowerOfTwoIntervals
            return i
        first_value, last_index = True, 0
        i += 1
        while i < len(config) and config[i] != "]":
            interval = config[i]
            self.consumeToken(config, i + 1, ":")
            i += 2
            val = _stoi(_token(config, i))
            TORCH_CHECK_VALUE(
                val == 0 or _is_power_of_2(val),
                "For roundups, the divisions has to be power of 2 or 0 to disable roundup ",
                "",
            )
            if interval == ">":
                divisions[last_index:] = [val] * (len(divisions) - last_index)
            else:
                mb = _stoi(interval)
                TORCH_CHECK_VALUE(
                    _is_power_of_2(mb), "For roundups, the intervals have to be power of 2 ", ""
                )
                index = min(max(mb.bit_length() - 1, 0), len(divisions) - 1)
                if first_value:
                    divisions[:index] = [val] * index
                    first_value = False
                divisions[index] = val
                last_index = index
            if i + 1 < len(config) and config[i + 1] != "]":
                i += 1
                self.consumeToken(config, i, ",")
            i += 1
        return i


def set_allocator_settings(env: str) -> None:
    """torch.cuda.memory._set_allocator_settings: parse `env` as if it were the variable."""
    CUDAAllocatorConfig.instance().parseArgs(env)
