"""The torch.linalg.<op> functions, generated from native_functions.yaml.

Mirrors `tools/autograd/templates/python_linalg_functions.cpp` (`torch._C._linalg`): one
THPVariable_linalg_<op> per operator with `python_module: linalg`, which `torch/linalg/__init__.py`
exposes without the prefix (linalg_vector_norm -> torch.linalg.vector_norm).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tensortrace.aten.dispatcher import OperatorHandle
from tensortrace.csrc.python_bindings import collect_overloads, make_binding

LinalgFunctions: dict[str, Callable[..., Any]] = {}


def install(ops: Sequence[OperatorHandle]) -> None:
    for name, overloads in collect_overloads(ops, is_method=False, python_module="linalg").items():
        binding = make_binding(name, overloads, is_method=False)
        LinalgFunctions[name.removeprefix("linalg_")] = binding
