"""torch.load(weights_only=True): an unpickler that knows only the globals a checkpoint needs.

Mirrors `torch/_weights_only_unpickler.py`: the allowed globals (OrderedDict, Counter, the
tensor rebuild functions, torch.nn.parameter.Parameter, storage types, dtypes, torch.Size,
torch.device, set, complex, bytearray, _codecs.encode), the user's safe globals
(torch.serialization.add_safe_globals / safe_globals) and torch's error messages, word for word.
torch parses the opcodes itself; here pickle's Unpickler runs them and `find_class`, the only
way a pickle reaches a global, refuses every other name before anything is imported or called:
NEWOBJ, REDUCE and BUILD can then only meet the objects the allowlist handed out.

Names are torch's (`torch._utils._rebuild_tensor_v2`), whichever library wrote the file; an
allowlisted tensortrace object is keyed by its torch name (tensortrace.nn... -> torch.nn...).
"""

from __future__ import annotations

import pickle
from _compat_pickle import IMPORT_MAPPING, NAME_MAPPING
from codecs import encode
from collections import Counter, OrderedDict
from typing import Any

import tensortrace as torch
from tensortrace._serialization_pickler import STORAGE_TYPES, StorageType, torch_name
from tensortrace.csrc.dtype import DTYPES

_blocklisted_modules = ["sys", "os", "posix", "nt"]

_marked_safe_globals_set: set[Any] = set()


def _add_safe_globals(safe_globals: list[Any]) -> None:
    global _marked_safe_globals_set
    _marked_safe_globals_set = _marked_safe_globals_set.union(set(safe_globals))


def _get_safe_globals() -> list[Any]:
    return list(_marked_safe_globals_set)


def _clear_safe_globals() -> None:
    global _marked_safe_globals_set
    _marked_safe_globals_set = set()


def _remove_safe_globals(globals_to_remove: list[Any]) -> None:
    global _marked_safe_globals_set
    _marked_safe_globals_set = _marked_safe_globals_set - set(globals_to_remove)


class _safe_globals:
    def __init__(self, safe_globals: list[Any]) -> None:
        self.safe_globals = safe_globals

    def __enter__(self) -> None:
        _add_safe_globals(self.safe_globals)

    def __exit__(self, type: Any, value: Any, tb: Any) -> None:  # noqa: A002
        _remove_safe_globals(self.safe_globals)


def _get_user_allowed_globals() -> dict[str, Any]:
    rc: dict[str, Any] = {}
    for f in _marked_safe_globals_set:
        if isinstance(f, tuple):
            if len(f) != 2:
                raise ValueError(
                    "Expected tuple of length 2 (global, str of callable full path), but got "
                    f"tuple of length: {len(f)}"
                )
            if type(f[1]) is not str:
                raise TypeError(
                    "Expected second item in tuple to be str of callable full path, but got: "
                    f"{type(f[1])}"
                )
            f, name = f
            rc[name] = f
        else:
            rc[f"{torch_name(f.__module__)}.{f.__qualname__}"] = f
    return rc


_REBUILD_FUNCTIONS = ("_rebuild_parameter", "_rebuild_parameter_with_state", "_rebuild_tensor_v2")


def _get_allowed_globals() -> dict[str, Any]:
    """torch's table, less what tensortrace has no counterpart for (quantized, sparse, nested
    tensors and their rebuild functions): a file that names one of those is refused."""
    from tensortrace import _utils

    rc: dict[str, Any] = {
        "collections.OrderedDict": OrderedDict,
        "collections.Counter": Counter,
        "torch.Size": torch.Size,
        "torch.device": torch.device,
        "_codecs.encode": encode,  # for bytes
        "builtins.bytearray": bytearray,  # for bytearray
        "builtins.set": set,  # for set
        "builtins.complex": complex,  # for complex
    }
    for dtype in DTYPES.values():  # torch.float32 ...
        rc[repr(dtype)] = dtype
    for name in STORAGE_TYPES.values():
        rc[f"torch.{name}"] = StorageType(name)
    for fn in _REBUILD_FUNCTIONS:
        rc[f"torch._utils.{fn}"] = getattr(_utils, fn)
    return rc


_LAZY_ALLOWED = {
    # tensortrace.nn loads on first use: resolved only when a file names it
    "torch.nn.parameter.Parameter": ("tensortrace.nn.parameter", "Parameter"),
    "torch.Tensor": ("tensortrace", "Tensor"),
}


def _fix_import(module: str, name: str) -> tuple[str, str]:
    """torch's _read_global_instruction: protocol 2 names Python 2's modules (__builtin__.set)."""
    if (module, name) in NAME_MAPPING:
        return NAME_MAPPING[(module, name)]
    return IMPORT_MAPPING.get(module, module), name


class Unpickler(pickle.Unpickler):
    """pickle's Unpickler restricted to the allowed globals; the caller's persistent_load
    turns each ('storage', type, key, location, numel) id into a storage."""

    def find_class(self, module: str, name: str) -> Any:
        module, name = _fix_import(module, name)
        full_path = f"{module}.{name}"
        if module in _blocklisted_modules:
            raise pickle.UnpicklingError(
                f"Trying to load unsupported GLOBAL {full_path} whose module {module} is blocked."
            )
        allowed = _get_allowed_globals()
        if full_path in allowed:
            return allowed[full_path]
        if full_path in _LAZY_ALLOWED:
            import importlib

            mod, attr = _LAZY_ALLOWED[full_path]
            return getattr(importlib.import_module(mod), attr)
        user_allowed = _get_user_allowed_globals()
        if full_path in user_allowed:
            return user_allowed[full_path]
        if full_path.startswith("builtins"):  # torch names builtins.print `print`
            rest = full_path[len("builtins") :]
            full_path = rest[1:] if rest.startswith(".") else "builtins" + rest
        raise pickle.UnpicklingError(
            f"Unsupported global: GLOBAL {full_path} was not an allowed global by default. "
            f"Please use `torch.serialization.add_safe_globals([{full_path}])` or the "
            f"`torch.serialization.safe_globals([{full_path}])` context manager to allowlist "
            "this global if you trust this class/function."
        )


__all__: list[str] = []
