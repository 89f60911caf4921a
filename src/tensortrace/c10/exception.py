"""TORCH_CHECK and its siblings: PyTorch's error macros, raising PyTorch's Python exception types.

Mirrors `c10/util/Exception.h`. A c10::Error reaches Python as RuntimeError, c10::IndexError as
IndexError, and so on (`torch/csrc/Exceptions.h` does that translation). Messages are built by
streaming the parts, as the C++ macros do; sequences print like IntArrayRef: `[3, 4]`, and
doubles as an ostream prints them (`2`, `0.5`, `1e-07`).
"""

from __future__ import annotations

from typing import Any, NoReturn


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


# Note [TORCH_CHECK tests first]
# The C++ macro expands to `if (!(cond)) torchCheckFail(..., msg...)`: the condition is tested
# inline and the message parts are not even evaluated unless it fails. A Python function call
# cannot skip evaluating its arguments, so hot call sites (those every op runs) are written as
# the expansion: `if not cond: torchCheckFail(msg...)`, which costs one test when the check
# passes and builds the very message TORCH_CHECK would when it fails. Elsewhere TORCH_CHECK
# reads better and joins its parts only on failure too.
def TORCH_CHECK(cond: Any, *msg: Any) -> None:  # PyTorch's name
    if not cond:
        raise RuntimeError(str_cat(*msg))


def torchCheckFail(*msg: Any) -> NoReturn:  # c10::detail::torchCheckFail
    """What TORCH_CHECK does once its condition failed (Note [TORCH_CHECK tests first])."""
    raise RuntimeError(str_cat(*msg))


def torchCheckFailAt(function: str, location: str, *msg: Any) -> NoReturn:
    """torchCheckFail with the c10::SourceLocation the C++ check has (`infer_size_impl`,
    `aten/src/ATen/InferSize.h:30`): what() reports it (Note [c10::Error::what() backtrace])."""
    error = RuntimeError(str_cat(*msg))
    error.c10_source_location = (function, location)  # type: ignore[attr-defined]
    try:
        raise error
    finally:
        del error  # else this frame, in the error's traceback, keeps the error: a cycle


# Note [c10::Error::what() backtrace]
# Python sees a c10::Error as its message alone (what_without_backtrace), but C++ code that
# catches one and streams e.what() into a new message (unflatten's handle_unflatten_exception)
# embeds the full what(): the message, "Exception raised from <function> at <file>:<line> (most
# recent call first):", then one "frame #i: ..." line per native frame. torch's frames are
# addresses in its shared libraries; here they are the Python frames the error unwound.
def what(error: BaseException) -> str:
    """c10::Error::what() of an error raised by torchCheckFailAt."""
    function, location = getattr(error, "c10_source_location", ("<unknown>", "<unknown>"))
    import traceback  # here: what() is rare, and nothing else at import needs the module

    frames = reversed(traceback.extract_tb(error.__traceback__))
    lines = [f"frame #{i}: {f.name} ({f.filename}:{f.lineno})\n" for i, f in enumerate(frames)]
    return (
        f"{error}\nException raised from {function} at {location} (most recent call first):\n"
        + "".join(lines)
    )


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


class _LinAlgError(RuntimeError):  # noqa: N801 - torch._C._LinAlgError, by its name
    """c10::LinAlgError, raised by TORCH_CHECK_LINALG (torch.linalg.LinAlgError)."""


LinAlgError = _LinAlgError


class OutOfMemoryError(RuntimeError):
    """c10::OutOfMemoryError, raised by the CUDA caching allocator (torch.OutOfMemoryError)."""
