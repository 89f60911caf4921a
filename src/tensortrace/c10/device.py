"""Device and DeviceType.

Mirrors `c10/core/Device.h` and `c10/core/DeviceType.h`. The CPU and the emulated CUDA device
(Note [The emulated CUDA device] in c10/cuda/cuda_functions.py) hold memory; Meta parses.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from enum import IntEnum
from typing import Any

from tensortrace.c10.exception import TORCH_CHECK


class DeviceType(IntEnum):
    CPU = 0
    CUDA = 1
    Meta = 9

    def lower(self) -> str:
        return self.name.lower()


# Note [Enum members read once]
# In Python 3.11 every read of a member through its class (`DeviceType.CPU`) goes through
# EnumType's __getattr__ hook, a method-wrapper call each time: ~13x the cost of reading a global.
# Hot paths read the members bound once at import, under c10's own names (DeviceType.h:
# `constexpr DeviceType kCPU = DeviceType::CPU;`, ScalarType.h: `kFloat`, `kBool`, ...).
kCPU = DeviceType.CPU  # noqa: N816 - c10's name
kCUDA = DeviceType.CUDA  # noqa: N816 - c10's name
kMeta = DeviceType.Meta  # noqa: N816 - c10's name

_BY_NAME = {t.lower(): t for t in DeviceType}


# parse_type's list in c10/core/Device.cpp: every device type torch knows by name
TORCH_DEVICE_TYPES = (
    "cpu",
    "cuda",
    "ipu",
    "xpu",
    "mkldnn",
    "opengl",
    "opencl",
    "ideep",
    "hip",
    "ve",
    "fpga",
    "maia",
    "xla",
    "lazy",
    "vulkan",
    "mps",
    "meta",
    "hpu",
    "mtia",
    "privateuseone",
)
_DEVICE_STRING = re.compile(r"([a-zA-Z_]+)(?::([1-9][0-9]*|0))?")


def _parse_device_string(text: str) -> tuple[str, str]:
    """Device(const std::string&): match ([a-zA-Z_]+)(?::([1-9]\\d*|0))?, then parse_type."""
    TORCH_CHECK(text != "", "Device string must not be empty")
    match = _DEVICE_STRING.fullmatch(text)
    TORCH_CHECK(match is not None, "Invalid device string: '", text, "'")
    assert match is not None
    name, idx = match.group(1), match.group(2) or ""
    TORCH_CHECK(
        name in TORCH_DEVICE_TYPES,
        "Expected one of ",
        ", ".join(TORCH_DEVICE_TYPES),
        " device type at start of device string: ",
        text,
    )
    TORCH_CHECK(
        name in _BY_NAME,
        "tensortrace has no ",
        name,
        " device: only ",
        ", ".join(_BY_NAME),
        " exist here",
    )
    return name, idx


def _parse_with_index(text: str, index: int | None) -> tuple[DeviceType, int | None]:
    if index is not None:
        TORCH_CHECK(index >= 0, "Device index must not be negative")
    name, idx = _parse_device_string(text)
    if idx:
        TORCH_CHECK(
            index is None,
            "type (string) must not include an index because index was passed explicitly: ",
            text,
        )
        index = int(idx)
    return _BY_NAME[name], index


class Device:
    """A (type, index) pair; `Device("cpu")`, `Device("cuda:1")`, `Device("cpu", 0)`."""

    __slots__ = ("type_", "index_")
    type_: DeviceType
    index_: int | None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if not kwargs and 1 <= len(args) <= 2:
            type, index = args if len(args) == 2 else (args[0], None)
            if isinstance(type, DeviceType):  # c10's own Device(type, index)
                if index is not None:
                    TORCH_CHECK(index >= 0, "Device index must not be negative")
                self.type_, self.index_ = type, index
                return
            # what c10 and the common Python calls pass: a string (and an int index), a device
            if isinstance(type, str) and (
                index is None or (isinstance(index, int) and not isinstance(index, bool))
            ):
                self.type_, self.index_ = _parse_with_index(type, index)
                return
            if isinstance(type, Device) and index is None:
                self.type_, self.index_ = type.type_, type.index_
                return
        # anything else is torch.device(...) from Python: THPDevice_pynew's argument parser
        # (csrc/device.py sets it) accepts it or raises torch's TypeError
        assert THPDevice_pynew is not None
        parsed = THPDevice_pynew(args, kwargs)
        self.type_, self.index_ = parsed.type_, parsed.index_

    @property
    def type(self) -> str:
        return self.type_.lower()

    @property
    def index(self) -> int | None:
        return self.index_

    def is_cpu(self) -> bool:
        return self.type_ == kCPU  # Note [Enum members read once]

    def is_cuda(self) -> bool:
        return self.type_ == kCUDA

    def has_index(self) -> bool:
        return self.index_ is not None

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            other = Device(other)
        return (
            isinstance(other, Device) and self.type_ == other.type_ and self.index_ == other.index_
        )

    def __hash__(self) -> int:
        return hash((self.type_, self.index_))

    def __str__(self) -> str:
        return self.type if self.index_ is None else f"{self.type}:{self.index_}"

    def __repr__(self) -> str:
        if self.index_ is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index_})"


# torch.device(...) with arguments c10 does not take (Device.__init__'s slow path): the Python
# binding's THPDevice_pynew, set by csrc/device.py (c10 imports no binding code)
THPDevice_pynew: Callable[[tuple[Any, ...], dict[str, Any]], Device] | None = None

CPU = Device(DeviceType.CPU)
