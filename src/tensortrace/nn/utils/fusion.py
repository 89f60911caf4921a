"""torch.nn.utils.fusion: fold an eval-mode BatchNorm into the conv or linear layer before it.

Mirrors `torch/nn/utils/fusion.py`. BatchNorm in eval mode is the affine map
y = (x - running_mean) * rsqrt(running_var + eps) * weight + bias, so it folds into the
previous layer's weight (scaled per output channel; per input channel for a transposed conv)
and bias. The *_eval functions deep-copy the layer and give it the fused Parameters.
"""

from __future__ import annotations

import copy
from typing import Any, TypeVar

import tensortrace as torch

__all__ = [
    "fuse_conv_bn_eval",
    "fuse_conv_bn_weights",
    "fuse_linear_bn_eval",
    "fuse_linear_bn_weights",
]

ConvT = TypeVar("ConvT", bound=Any)
LinearT = TypeVar("LinearT", bound=Any)


def fuse_conv_bn_eval(conv: ConvT, bn: Any, transpose: bool = False) -> ConvT:
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused_conv = copy.deepcopy(conv)
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused_conv.weight, fused_conv.bias = fuse_conv_bn_weights(
        fused_conv.weight,
        fused_conv.bias,
        bn.running_mean,
        bn.running_var,
        bn.eps,
        bn.weight,
        bn.bias,
        transpose,
    )
    return fused_conv


def fuse_conv_bn_weights(
    conv_w: Any,
    conv_b: Any,
    bn_rm: Any,
    bn_rv: Any,
    bn_eps: float,
    bn_w: Any,
    bn_b: Any,
    transpose: bool = False,
) -> tuple[torch.nn.Parameter, torch.nn.Parameter]:
    conv_weight_dtype = conv_w.dtype
    conv_bias_dtype = conv_b.dtype if conv_b is not None else conv_weight_dtype
    if conv_b is None:
        conv_b = torch.zeros_like(bn_rm)
    if bn_w is None:
        bn_w = torch.ones_like(bn_rm)
    if bn_b is None:
        bn_b = torch.zeros_like(bn_rm)
    bn_var_rsqrt = torch.rsqrt(bn_rv + bn_eps)
    # a conv weight is (out, in, *k), a transposed conv's (in, out, *k): scale the out dim
    if transpose:
        shape = [1, -1] + [1] * (len(conv_w.shape) - 2)
    else:
        shape = [-1, 1] + [1] * (len(conv_w.shape) - 2)
    fused_conv_w = (conv_w * (bn_w * bn_var_rsqrt).reshape(shape)).to(dtype=conv_weight_dtype)
    fused_conv_b = ((conv_b - bn_rm) * bn_var_rsqrt * bn_w + bn_b).to(dtype=conv_bias_dtype)
    return (
        torch.nn.Parameter(fused_conv_w, conv_w.requires_grad),
        torch.nn.Parameter(fused_conv_b, conv_b.requires_grad),
    )


def fuse_linear_bn_eval(linear: LinearT, bn: Any) -> LinearT:
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused_linear = copy.deepcopy(linear)
    # bn's features must broadcast against the linear's last dim: equal, or bn has one
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError(
            "To fuse, linear.out_features == bn.num_features or bn.num_features == 1, "
            f"got linear.out_features={linear.out_features} and "
            f"bn.num_features={bn.num_features}"
        )
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused_linear.weight, fused_linear.bias = fuse_linear_bn_weights(
        fused_linear.weight,
        fused_linear.bias,
        bn.running_mean,
        bn.running_var,
        bn.eps,
        bn.weight,
        bn.bias,
    )
    return fused_linear


def fuse_linear_bn_weights(
    linear_w: Any,
    linear_b: Any,
    bn_rm: Any,
    bn_rv: Any,
    bn_eps: float,
    bn_w: Any,
    bn_b: Any,
) -> tuple[torch.nn.Parameter, torch.nn.Parameter]:
    linear_weight_dtype = linear_w.dtype
    linear_bias_dtype = linear_b.dtype if linear_b is not None else linear_weight_dtype
    if linear_b is None:
        linear_b = torch.zeros_like(bn_rm)
    bn_scale = bn_w * torch.rsqrt(bn_rv + bn_eps)
    fused_w = linear_w * bn_scale.unsqueeze(-1).to(dtype=linear_weight_dtype)
    fused_b = ((linear_b - bn_rm) * bn_scale + bn_b).to(dtype=linear_bias_dtype)
    return (
        torch.nn.Parameter(fused_w, linear_w.requires_grad),
        torch.nn.Parameter(fused_b, linear_b.requires_grad),
    )
