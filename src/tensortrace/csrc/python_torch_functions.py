"""The torch.<op> functions: the generated ones and the hand-written ones.

Mirrors `tools/autograd/templates/python_torch_functions.cpp` (`torch._C._VariableFunctions`):
one THPVariable_<op> per operator name with `variants: function` (written by
`python -m tensortrace.torchgen` to csrc/generated/python_torch_functions_0.py), which
`torch/__init__.py` copies into the torch namespace.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tensortrace.csrc.python_torch_functions_manual import MANUAL_FUNCTIONS

VariableFunctions: dict[str, Callable[..., Any]] = {}
GENERATED: dict[str, Callable[..., Any]] = {}  # the generated bindings a manual one replaces


def install(generated: dict[str, Any]) -> None:
    """Fill VariableFunctions from csrc/generated/python_torch_functions_0.py's FUNCTIONS (the
    `python_module: nn` ops are in python_nn_functions.py's torch._C._nn instead)."""
    VariableFunctions.update(generated)
    # the hand-written ones (python_torch_functions_manual.cpp): tensor, as_tensor, from_numpy
    GENERATED.update({n: VariableFunctions[n] for n in MANUAL_FUNCTIONS if n in VariableFunctions})
    VariableFunctions.update(MANUAL_FUNCTIONS)
