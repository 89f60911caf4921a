"""torch._C._nn: the bindings of the ops declared with `python_module: nn`.

Mirrors `tools/autograd/templates/python_nn_functions.cpp`: linear, mse_loss, nll_loss_nd,
cross_entropy_loss, log_sigmoid ... are not torch.<op> functions but torch._C._nn.<op>, which
torch.nn.functional calls. `python -m tensortrace.torchgen` writes them from
native_functions.yaml to csrc/generated/python_nn_functions.py.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

NNFunctions: dict[str, Callable[..., Any]] = {}
_nn = SimpleNamespace()  # torch._C._nn


def install(generated: dict[str, Callable[..., Any]]) -> None:
    """Fill torch._C._nn from csrc/generated/python_nn_functions.py's FUNCTIONS."""
    NNFunctions.update(generated)
    for name, binding in generated.items():
        setattr(_nn, name, binding)
