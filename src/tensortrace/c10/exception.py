"""TORCH_CHECK and its siblings: PyTorch's error macros, raising PyTorch's Python exception types.

Mirrors `c10/util/Exception.h`. A c10::Error reaches Python as RuntimeError, c10::IndexError as
IndexError, and so on (`torch/csrc/Exceptions.h` does that translation). Messages are built by
streaming the parts, as the C++ macros do; sequences print like IntArrayRef: `[3, 4]`, and
doubles as an ostream prints them (`2`, `0.5`, `1e-07`).
"""

from __future__ import annotations

from typing import Any


def _stream(part: Any) -> str:
    if isinstance(part, (list, tuple)):
        return "[" + ", ".join(_stream(p) for p in part) + "]"
    if isinstance(part, bool):
        return "true" if part else "false"
    if isinstance(part, float):
        return f"{part:g}"  # std::ostream << double: 6 significant digits, 2.0 prints as 2
    return str(part)


def str_cat(*parts: Any) -> str:
    """c10::str: concatenate the streamed parts."""
    return "".join(_stream(p) for p in parts)


def TORCH_CHECK(cond: Any, *msg: Any) -> None:  # PyTorch's name
    if not cond:
        raise RuntimeError(str_cat(*msg))


def TORCH_CHECK_INDEX(cond: Any, *msg: Any) -> None:
    if not cond:
        raise IndexError(str_cat(*msg))


def TORCH_CHECK_VALUE(cond: Any, *msg: Any) -> None:
    if not cond:
        raise ValueError(str_cat(*msg))


def TORCH_CHECK_TYPE(cond: Any, *msg: Any) -> None:
    if not cond:
        raise TypeError(str_cat(*msg))


def TORCH_CHECK_NOT_IMPLEMENTED(cond: Any, *msg: Any) -> None:
    if not cond:
        raise NotImplementedError(str_cat(*msg))


def TORCH_INTERNAL_ASSERT(cond: Any, *msg: Any) -> None:
    if not cond:
        raise RuntimeError("INTERNAL ASSERT FAILED: " + str_cat(*msg))


class OutOfMemoryError(RuntimeError):
    """c10::OutOfMemoryError, raised by the CUDA caching allocator (torch.OutOfMemoryError)."""
