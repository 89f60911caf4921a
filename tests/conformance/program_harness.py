"""Run a tutorial-shaped program in tensortrace and in torch 2.13.0 and compare what it did.

`check(program)` in harness.py compares one `out` variable; tutorial code prints as it goes and
leaves many variables behind. `check_program(source)` runs the source with `torch` bound to each
library (both after manual_seed(0)), captures what it printed, and compares:
- stdout, character for character (tensor printing included);
- the error, if any: same exception type and message (stdout up to the error is compared too);
- every final variable that holds a tensor, a number, a string, a bool, a dtype, a torch.Size,
  or a list / tuple / dict of those (tensors: shape, strides, offset, dtype and values).
Warnings are silenced on both sides: the comparison is about results, not warning text.
`import torch...` inside a program resolves to tensortrace's modules on the tensortrace side.
"""

from __future__ import annotations

import contextlib
import io
import math
import sys
import time
import types
import warnings
from typing import Any

import numpy as np
import pytest

import tensortrace

try:
    from .harness import assert_same
except ImportError:  # imported as a top-level module (bench/bench_tutorial_programs.py)
    from harness import assert_same  # type: ignore[no-redef]

torch = pytest.importorskip("torch")

_SCALARS = (int, float, bool, str, complex, type(None))


class ProgramOutcome:
    def __init__(
        self, stdout: str, namespace: dict[str, Any], error: BaseException | None, seconds: float
    ) -> None:
        self.stdout = stdout
        self.namespace = namespace
        self.error = error
        self.seconds = seconds


@contextlib.contextmanager
def _imports_resolve_to(module: Any) -> Any:
    """While tensortrace runs, `import torch.distributions` / `from torch.linalg import norm`
    resolve to tensortrace's modules (torch's own entries of sys.modules are put back after)."""
    if module is torch:
        yield
        return
    saved = {
        name: mod
        for name, mod in sys.modules.items()
        if name == "torch" or name.startswith("torch.")
    }
    for name in saved:
        del sys.modules[name]
    sys.modules["torch"] = module
    for attr in dir(module):
        value = getattr(module, attr)
        if isinstance(value, types.ModuleType) and value.__name__.startswith("tensortrace."):
            sys.modules[f"torch.{attr}"] = value
    try:
        yield
    finally:
        for name in [n for n in sys.modules if n == "torch" or n.startswith("torch.")]:
            del sys.modules[name]
        sys.modules.update(saved)


def run_program(module: Any, source: str) -> ProgramOutcome:
    """exec `source` with `torch` = module; capture stdout, the error and the namespace."""
    module.manual_seed(0)
    namespace: dict[str, Any] = {
        "torch": module,
        "np": np,
        "math": math,
        "__name__": "__tutorial__",
    }
    buffer = io.StringIO()
    error: BaseException | None = None
    code = compile(source, "<tutorial>", "exec")
    with contextlib.redirect_stdout(buffer), warnings.catch_warnings(), _imports_resolve_to(module):
        warnings.simplefilter("ignore")
        start = time.perf_counter()  # the program only, not the harness's sys.modules swap
        try:
            exec(code, namespace)
        except Exception as exc:  # the error itself is what gets compared
            error = exc
        seconds = time.perf_counter() - start
    return ProgramOutcome(buffer.getvalue(), namespace, error, seconds)


def _comparable(value: Any, is_torch: bool, depth: int = 0) -> bool:
    """A final variable worth comparing: tensors, numbers, strings, and containers of them."""
    tensor_type = torch.Tensor if is_torch else tensortrace.Tensor
    dtype_type = torch.dtype if is_torch else tensortrace.dtype
    if isinstance(value, (tensor_type, dtype_type)) or type(value) in _SCALARS:
        return True
    if depth < 3 and isinstance(value, (list, tuple)):
        return all(_comparable(v, is_torch, depth + 1) for v in value)
    if depth < 3 and isinstance(value, dict):
        return all(
            type(k) in _SCALARS and _comparable(v, is_torch, depth + 1) for k, v in value.items()
        )
    return False


def _assert_same_value(ours: Any, theirs: Any, path: str, rtol: float, atol: float) -> None:
    if isinstance(theirs, dict):
        assert isinstance(ours, dict) and list(ours) == list(theirs), (
            f"{path}: keys {list(ours) if isinstance(ours, dict) else ours!r} != {list(theirs)}"
        )
        for key in theirs:
            _assert_same_value(ours[key], theirs[key], f"{path}[{key!r}]", rtol, atol)
        return
    if isinstance(theirs, torch.Size):
        assert isinstance(ours, tensortrace.Size) and tuple(ours) == tuple(theirs), (
            f"{path}: {ours!r} != {theirs!r}"
        )
        return
    if isinstance(theirs, (list, tuple)) and not isinstance(theirs, torch.Tensor):
        assert type(ours).__name__ == type(theirs).__name__ or (
            isinstance(ours, tuple) and isinstance(theirs, tuple)
        ), f"{path}: {type(ours).__name__} != {type(theirs).__name__}"
        assert len(ours) == len(theirs), f"{path}: {ours!r} != {theirs!r}"
        for i, (o, t) in enumerate(zip(ours, theirs)):
            _assert_same_value(o, t, f"{path}[{i}]", rtol, atol)
        return
    if isinstance(theirs, float) and (rtol or atol) and not math.isnan(theirs):
        assert isinstance(ours, float), f"{path}: {ours!r} != {theirs!r}"
        assert math.isclose(ours, theirs, rel_tol=rtol, abs_tol=atol), f"{path}: {ours} != {theirs}"
        return
    assert_same(ours, theirs, path, rtol, atol)


def check_program(
    source: str, rtol: float = 0.0, atol: float = 0.0, compare_stdout: bool = True
) -> tuple[float, float]:
    """Same stdout, same error (type and message), same final variables, in both libraries.

    Returns (tensortrace seconds, torch seconds) for the speed comparison in bench/.
    """
    ours, theirs = run_program(tensortrace, source), run_program(torch, source)
    if theirs.error is not None:
        assert ours.error is not None, (
            f"torch raised {type(theirs.error).__name__}: {theirs.error}; tensortrace did not"
            f"\n--- stdout ---\n{ours.stdout}"
        )
        assert type(ours.error).__name__ == type(theirs.error).__name__, (
            f"{type(ours.error).__name__}: {ours.error} != "
            f"{type(theirs.error).__name__}: {theirs.error}"
        )
        assert str(ours.error) == str(theirs.error)
    elif ours.error is not None:
        raise AssertionError(
            f"tensortrace raised {type(ours.error).__name__}: {ours.error}"
            f"\n--- torch stdout ---\n{theirs.stdout}"
        ) from ours.error
    if compare_stdout:
        assert ours.stdout == theirs.stdout, (
            f"stdout differs\n--- tensortrace ---\n{ours.stdout}\n--- torch ---\n{theirs.stdout}"
        )
    names = [
        name
        for name, value in theirs.namespace.items()
        if not name.startswith("__")
        and name not in ("torch", "np", "math")
        and _comparable(value, True)
    ]
    for name in names:
        assert name in ours.namespace, f"variable {name} missing in tensortrace"
        _assert_same_value(ours.namespace[name], theirs.namespace[name], name, rtol, atol)
    return ours.seconds, theirs.seconds
