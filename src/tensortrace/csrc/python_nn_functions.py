"""torch._C._nn: the bindings of the ops declared with `python_module: nn`.

Mirrors `tools/autograd/templates/python_nn_functions.cpp`: linear, mse_loss, nll_loss_nd,
cross_entropy_loss, log_sigmoid ... are not torch.<op> functions but torch._C._nn.<op>, which
torch.nn.functional calls. They are generated from native_functions.yaml like the others.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any

from tensortrace.aten.dispatcher import OperatorHandle
from tensortrace.csrc.python_bindings import collect_overloads, make_binding

NNFunctions: dict[str, Callable[..., Any]] = {}
_nn = SimpleNamespace()  # torch._C._nn


def is_nn(op: OperatorHandle) -> bool:
    return op.entry.get("python_module") == "nn"


def install(ops: Sequence[OperatorHandle]) -> None:
    nn_ops = [op for op in ops if is_nn(op)]
    for name, overloads in collect_overloads(nn_ops, is_method=False,
                                               python_module="nn").items():
        NNFunctions[name] = make_binding(name, overloads, is_method=False)
        setattr(_nn, name, NNFunctions[name])
