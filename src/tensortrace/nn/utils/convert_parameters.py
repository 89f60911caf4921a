"""parameters_to_vector and vector_to_parameters: a model's parameters as one flat vector.

Mirrors `torch/nn/utils/convert_parameters.py`: the vector is torch.cat of each parameter's
view(-1) (so it is a copy), and writing it back sets each parameter's .data to a view of the
vector's slice, as torch does.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import tensortrace as torch


def parameters_to_vector(parameters: Iterable[torch.Tensor]) -> torch.Tensor:
    """Flatten the parameters into one vector (all on one device)."""
    param_device = None
    vec = []
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        vec.append(param.view(-1))
    return torch.cat(vec)


def vector_to_parameters(vec: Any, parameters: Iterable[Any]) -> None:
    """Point each parameter's data at its slice of `vec`."""
    if not isinstance(vec, torch.Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {torch.typename(vec)}")
    flat: Any = vec  # Tensor's indexing is bound at runtime (csrc), unseen by mypy
    param_device = None
    pointer = 0
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        num_param = param.numel()
        param.data = flat[pointer : pointer + num_param].view_as(param).data
        pointer += num_param


def _check_param_device(param: torch.Tensor, old_param_device: int | None) -> int:
    """The first parameter's CUDA index (-1 for the CPU); raise if a later one is elsewhere."""
    support_device_types = ["cuda"]
    if old_param_device is None:
        old_param_device = param.get_device() if param.device.type in support_device_types else -1
    else:
        if param.device.type in support_device_types:  # the same GPU?
            warn = param.get_device() != old_param_device
        else:  # the CPU?
            warn = old_param_device != -1
        if warn:
            raise TypeError(
                "Found two parameters on different devices, this is currently not supported."
            )
    return old_param_device
