"""The argument checks and sizes of torch.nn.utils.prune's methods.

Mirrors the private helpers at the end of `torch/nn/utils/prune.py` (_validate_pruning_amount*,
_validate_structured_pruning, _compute_nparams_toprune, _validate_pruning_dim, _compute_norm),
with torch's messages. Kept apart from prune.py only for length.
"""

from __future__ import annotations

import numbers
from typing import Any

import tensortrace as torch


def _validate_pruning_amount_init(amount: Any) -> None:
    """An int counts parameters (>= 0), a float is a fraction in [0, 1]."""
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and int(amount) < 0) or (
        not isinstance(amount, numbers.Integral) and (float(amount) > 1.0 or float(amount) < 0.0)
    ):
        raise ValueError(
            f"amount={amount} should either be a float in the range [0, 1] or a non-negative "
            "integer"
        )


def _validate_pruning_amount(amount: Any, tensor_size: int) -> None:
    if isinstance(amount, numbers.Integral) and int(amount) > tensor_size:
        raise ValueError(
            f"amount={amount} should be smaller than the number of parameters to "
            f"prune={tensor_size}"
        )


def _validate_structured_pruning(t: torch.Tensor) -> None:
    shape = t.shape
    if len(shape) <= 1:
        raise ValueError(
            "Structured pruning can only be applied to multidimensional tensors. Found tensor "
            f"of shape {shape} with {len(shape)} dims"
        )


def _compute_nparams_toprune(amount: Any, tensor_size: int) -> int:
    if isinstance(amount, numbers.Integral):
        return int(amount)
    return round(amount * tensor_size)  # Python's round: half to even, as torch's


def _validate_pruning_dim(t: torch.Tensor, dim: int) -> None:
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _compute_norm(t: torch.Tensor, n: Any, dim: int) -> torch.Tensor:
    """The L-n norm of each slice along `dim` (over every other dim)."""
    dims = list(range(t.dim()))
    if dim < 0:
        dim = dims[dim]
    dims.remove(dim)
    return torch.norm(t, p=n, dim=dims)
