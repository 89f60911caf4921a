"""The torch.special.<op> functions, generated from native_functions.yaml.

Mirrors `tools/autograd/templates/python_special_functions.cpp` (`torch._C._special`): one
THPVariable_special_<op> per operator with `python_module: special` (written by
`python -m tensortrace.torchgen` to csrc/generated/python_special_functions.py), which
`torch/special/__init__.py` exposes without the prefix (special_erf -> torch.special.erf).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

SpecialFunctions: dict[str, Callable[..., Any]] = {}


def install(generated: dict[str, Callable[..., Any]]) -> None:
    """Fill SpecialFunctions from csrc/generated/python_special_functions.py's FUNCTIONS."""
    for name, binding in generated.items():
        SpecialFunctions[name.removeprefix("special_")] = binding
