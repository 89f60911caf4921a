"""The losses of torch.nn.functional added with nn-activations: l1_loss, binary_cross_entropy,
smooth_l1_loss, huber_loss, kl_div.

Mirrors those functions of `torch/nn/functional.py` (split from functional.py, which re-exports
them, to keep modules short): torch's size warnings and errors, the legacy size_average/reduce
arguments, the broadcast of input and target, and kl_div's 'batchmean'.
"""

from __future__ import annotations

import warnings

import tensortrace as torch
from tensortrace.nn import _reduction as _Reduction

Tensor = torch.Tensor


def _warn_size(input: Tensor, target: Tensor) -> None:
    if target.size() != input.size():
        warnings.warn(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            stacklevel=3,
        )


def _weighted_reduction(weighted: Tensor, weight: Tensor, reduction: str) -> Tensor:
    """The reduction of a loss given per-element weights (mse_loss and l1_loss's weight=):
    'mean' divides by the weights' sum, not by the number of elements."""
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return torch.sum(weighted)
    if reduction == "mean":
        return torch.sum(weighted) / torch.sum(weight)
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    _warn_size(input, target)
    if size_average is not None or reduce is not None:
        reduction = _Reduction.legacy_get_string(size_average, reduce)
    expanded_input, expanded_target = torch.broadcast_tensors(input, target)
    if weight is not None:
        if weight.size() != input.size():
            raise ValueError("Weights and input must have the same size.")
        return _weighted_reduction(
            torch.abs(expanded_input - expanded_target) * weight, weight, reduction
        )
    return torch._C._nn.l1_loss(expanded_input, expanded_target, _Reduction.get_enum(reduction))


def binary_cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    if size_average is not None or reduce is not None:
        reduction_enum = _Reduction.legacy_get_enum(size_average, reduce)
    else:
        reduction_enum = _Reduction.get_enum(reduction)
    if target.size() != input.size():
        raise ValueError(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}) is deprecated. Please ensure they have the same size."
        )
    if weight is not None:
        # torch.broadcast_shapes(target.size(), weight.size()), which tensortrace lacks
        new_size = torch.broadcast_tensors(torch.empty(target.size()), torch.empty(weight.size()))
        weight = weight.expand(new_size[0].size())
    return torch._C._nn.binary_cross_entropy(input, target, weight, reduction_enum)


def smooth_l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    beta: float = 1.0,
) -> Tensor:
    _warn_size(input, target)
    if size_average is not None or reduce is not None:
        reduction = _Reduction.legacy_get_string(size_average, reduce)
    expanded_input, expanded_target = torch.broadcast_tensors(input, target)
    if beta == 0.0:
        return torch._C._nn.l1_loss(expanded_input, expanded_target, _Reduction.get_enum(reduction))
    return torch._C._nn.smooth_l1_loss(
        expanded_input, expanded_target, _Reduction.get_enum(reduction), beta
    )


def huber_loss(
    input: Tensor,
    target: Tensor,
    reduction: str = "mean",
    delta: float = 1.0,
    weight: Tensor | None = None,
) -> Tensor:
    _warn_size(input, target)
    expanded_input, expanded_target = torch.broadcast_tensors(input, target)
    if weight is None:
        return torch._C._nn.huber_loss(
            expanded_input, expanded_target, _Reduction.get_enum(reduction), delta
        )
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    unweighted_loss = torch._C._nn.huber_loss(
        expanded_input, expanded_target, _Reduction.get_enum("none"), delta
    )
    weighted_loss = unweighted_loss * weight
    if reduction == "none":
        return weighted_loss
    if reduction == "sum":
        return torch.sum(weighted_loss)
    if reduction == "mean":
        return weighted_loss.mean()  # the mean over the elements, not over the weights
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def kl_div(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    log_target: bool = False,
) -> Tensor:
    if size_average is not None or reduce is not None:
        reduction_enum = _Reduction.legacy_get_enum(size_average, reduce)
    else:
        if reduction == "mean":
            warnings.warn(
                "reduction: 'mean' divides the total loss by both the batch size and the support "
                "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
                "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
                "major release.",
                stacklevel=2,
            )
        # special case for batchmean
        if reduction == "batchmean":
            reduction_enum = _Reduction.get_enum("sum")
        else:
            reduction_enum = _Reduction.get_enum(reduction)
    reduced = torch.kl_div(input, target, reduction_enum, log_target=log_target)
    if reduction == "batchmean" and input.dim() != 0:
        reduced = reduced / input.size()[0]
    return reduced
