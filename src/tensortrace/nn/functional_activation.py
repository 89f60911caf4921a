"""The activations of torch.nn.functional added with nn-act-loss3: threshold, selu, celu, prelu,
rrelu, hardshrink, softshrink, hardsigmoid, hardswish and softmin (with their in-place forms).

Mirrors those functions of `torch/nn/functional.py` (split from functional.py, which re-exports
them, to keep modules short). As in torch, threshold is `_VF.threshold` (torch.threshold here),
selu, celu and rrelu the torch functions, prelu, hardshrink, softshrink and the in-place forms
the bound ops themselves (torch's `_add_docstr(torch.prelu, ...)`), hardsigmoid and hardswish
the torch._C._nn bindings, and softmin is composed in Python: softmax of the negated input.
"""

from __future__ import annotations

from typing import Any

import tensortrace as torch
from tensortrace.csrc.python_nn_functions import _nn

Tensor = torch.Tensor

__all__ = [
    "celu",
    "celu_",
    "hardshrink",
    "hardsigmoid",
    "hardswish",
    "prelu",
    "rrelu",
    "rrelu_",
    "selu",
    "selu_",
    "softmin",
    "softshrink",
    "threshold",
    "threshold_",
]


def _threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    if inplace:
        return torch.threshold_(input, threshold, value)
    return torch.threshold(input, threshold, value)


# torch.nn.functional.threshold is _threshold; threshold_ is _VF.threshold_ itself
threshold = _threshold
threshold_ = torch.threshold_


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    return torch.selu_(input) if inplace else torch.selu(input)


selu_ = torch.selu_


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    return torch.celu_(input, alpha) if inplace else torch.celu(input, alpha)


celu_ = torch.celu_


def rrelu(
    input: Tensor,
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    inplace: bool = False,
) -> Tensor:
    if inplace:
        return torch.rrelu_(input, lower, upper, training)
    return torch.rrelu(input, lower, upper, training)


rrelu_ = torch.rrelu_
prelu = torch.prelu
hardshrink = torch.hardshrink
softshrink = _nn.softshrink  # torch._C._nn.softshrink


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    if inplace:
        return torch._C._nn.hardsigmoid_(input)
    return torch._C._nn.hardsigmoid(input)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    if inplace:
        return torch._C._nn.hardswish_(input)
    return torch._C._nn.hardswish(input)


def softmin(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
) -> Tensor:
    from tensortrace.nn.functional import _get_softmax_dim

    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    if dtype is None:
        return input.neg().softmax(dim)  # (-input).softmax(dim)
    return input.neg().softmax(dim, dtype=dtype)
