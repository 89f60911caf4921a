"""The torch.<op> functions, generated from native_functions.yaml.

Mirrors `tools/autograd/templates/python_torch_functions.cpp` (`torch._C._VariableFunctions`):
one THPVariable_<op> per operator name with `variants: function`, which `torch/__init__.py`
copies into the torch namespace.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tensortrace.aten.dispatcher import OperatorHandle
from tensortrace.csrc.python_bindings import collect_overloads, make_binding

VariableFunctions: dict[str, Callable[..., Any]] = {}
GENERATED: dict[str, Callable[..., Any]] = {}  # the generated bindings a manual one replaces


def install(ops: Sequence[OperatorHandle]) -> None:
    from tensortrace.csrc import python_nn_functions

    # `python_module: nn` ops are bound in torch._C._nn instead (python_nn_functions.py)
    python_nn_functions.install(ops)
    ops = [op for op in ops if not python_nn_functions.is_nn(op)]
    for name, overloads in collect_overloads(ops, is_method=False).items():
        VariableFunctions[name] = make_binding(name, overloads, is_method=False)
    # the hand-written ones (python_torch_functions_manual.cpp): tensor, as_tensor, from_numpy
    from tensortrace.csrc.python_torch_functions_manual import MANUAL_FUNCTIONS

    GENERATED.update({n: VariableFunctions[n] for n in MANUAL_FUNCTIONS if n in VariableFunctions})
    VariableFunctions.update(MANUAL_FUNCTIONS)
