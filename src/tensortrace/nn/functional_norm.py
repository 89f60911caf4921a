"""layer_norm and group_norm of torch.nn.functional (torch/nn/functional.py keeps them there):
the checks torch makes in Python, then aten::layer_norm / aten::group_norm."""

from __future__ import annotations

from typing import Any

import tensortrace as torch
from tensortrace.nn.functional import _CUDNN_ENABLED, _verify_batch_size

Tensor = torch.Tensor


def layer_norm(
    input: Tensor,
    normalized_shape: Any,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """torch.layer_norm (aten::layer_norm > aten::native_layer_norm)."""
    return torch.layer_norm(input, normalized_shape, weight, bias, eps, _CUDNN_ENABLED)


def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """torch.group_norm (aten::group_norm > aten::native_group_norm)."""
    if input.dim() < 2:
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {input.dim()}"
        )
    _verify_batch_size(
        [input.size(0) * input.size(1) // num_groups, num_groups] + list(input.size()[2:])
    )
    return torch.group_norm(input, num_groups, weight, bias, eps, _CUDNN_ENABLED)
