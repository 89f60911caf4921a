"""instance_norm, layer_norm, rms_norm, group_norm and local_response_norm of torch.nn.functional
(torch/nn/functional.py keeps them there): the checks torch makes in Python, then
aten::instance_norm / aten::layer_norm / aten::rms_norm / aten::group_norm; local_response_norm
is torch's Python composite (a zero-padded average of the squares over neighbouring channels,
by avg_pool2d or avg_pool3d)."""

from __future__ import annotations

from typing import Any

import tensortrace as torch
from tensortrace.nn.functional import _CUDNN_ENABLED, _verify_batch_size

Tensor = torch.Tensor


def _verify_spatial_size(size: Any) -> None:
    # Verify that there is > 1 spatial element for instance norm calculation.
    size_prods = 1
    for i in range(2, len(size)):
        size_prods *= size[i]
    if size_prods == 1:
        raise ValueError(
            f"Expected more than 1 spatial element when training, got input size {size}"
        )


def instance_norm(
    input: Tensor,
    running_mean: Tensor | None = None,
    running_var: Tensor | None = None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    use_input_stats: bool = True,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """torch.instance_norm (aten::instance_norm > aten::batch_norm of the (1, N * C, ...) view)."""
    if use_input_stats:
        _verify_spatial_size(input.size())
    return torch.instance_norm(
        input,
        weight,
        bias,
        running_mean,
        running_var,
        use_input_stats,
        momentum,
        eps,
        _CUDNN_ENABLED,
    )


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


def rms_norm(
    input: Tensor,
    normalized_shape: Any,
    weight: Tensor | None = None,
    eps: float | None = None,
) -> Tensor:
    """torch.rms_norm (aten::rms_norm > aten::_fused_rms_norm, the composite on the CPU)."""
    return torch.rms_norm(input, normalized_shape, weight, eps)


def local_response_norm(
    input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0
) -> Tensor:
    from tensortrace.nn.functional import avg_pool2d, avg_pool3d, pad

    dim = input.dim()
    if dim < 3:
        raise ValueError(
            # torch's message keeps the spaces of its source's line continuation
            f"Expected 3D or higher dimensionality                          input (got {dim} "
            "dimensions)"
        )
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        div = div.unsqueeze(1)
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.size()
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1)
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div
