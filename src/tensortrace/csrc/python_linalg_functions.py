"""The torch.linalg.<op> functions, generated from native_functions.yaml.

Mirrors `tools/autograd/templates/python_linalg_functions.cpp` (`torch._C._linalg`): one
THPVariable_linalg_<op> per operator with `python_module: linalg` (written by
`python -m tensortrace.torchgen` to csrc/generated/python_linalg_functions.py), which
`torch/linalg/__init__.py` exposes without the prefix
(linalg_vector_norm -> torch.linalg.vector_norm).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

LinalgFunctions: dict[str, Callable[..., Any]] = {}


def install(generated: dict[str, Callable[..., Any]]) -> None:
    """Fill LinalgFunctions from csrc/generated/python_linalg_functions.py's FUNCTIONS."""
    for name, binding in generated.items():
        LinalgFunctions[name.removeprefix("linalg_")] = binding
