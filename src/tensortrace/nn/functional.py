"""torch.nn.functional: the stateless functions the nn modules call.

Mirrors `torch/nn/functional.py`. Each is a thin Python layer over an operator: relu, sigmoid
and tanh are the torch ops; gelu, leaky_relu, elu, silu, mish, softplus, hardtanh, relu6,
logsigmoid and glu the torch._C._nn bindings; softsign and tanhshrink are composed in Python;
softmax / log_softmax are the Tensor methods (with torch's implicit dim for legacy callers);
linear, mse_loss, nll_loss (nll_loss_nd) and cross_entropy (cross_entropy_loss) are
torch._C._nn bindings; the losses turn `reduction='mean'` into at::Reduction's number
(_reduction.get_enum). pad and one_hot are torch._C._nn bindings too, conv1d and the distances
torch ops (the pools are in functional_pooling.py); normalize is torch's Python composition
(norm, clamp_min, expand_as, div). The traces of these calls name the same aten ops
torch.profiler records.
"""

from __future__ import annotations

import warnings
from typing import Any

import tensortrace as torch
from tensortrace.nn import _reduction as _Reduction

Tensor = torch.Tensor


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    return torch.relu_(input) if inplace else torch.relu(input)


def sigmoid(input: Tensor) -> Tensor:
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:
    return input.tanh()


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    return torch._C._nn.gelu(input, approximate=approximate)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    if inplace:
        return torch._C._nn.leaky_relu_(input, negative_slope)
    return torch._C._nn.leaky_relu(input, negative_slope)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    return torch._C._nn.elu_(input, alpha) if inplace else torch._C._nn.elu(input, alpha)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    return torch._C._nn.silu_(input) if inplace else torch._C._nn.silu(input)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    return torch._C._nn.mish_(input) if inplace else torch._C._nn.mish(input)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    return torch._C._nn.softplus(input, beta, threshold)


def hardtanh(
    input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False
) -> Tensor:
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return torch._C._nn.hardtanh_(input, min_val, max_val)
    return torch._C._nn.hardtanh(input, min_val, max_val)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    return torch._C._nn.relu6_(input) if inplace else torch._C._nn.relu6(input)


def logsigmoid(input: Tensor) -> Tensor:
    return torch._C._nn.log_sigmoid(input)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    return torch._C._nn.glu(input, dim)


def softsign(input: Tensor) -> Tensor:
    return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:
    return input - input.tanh()


def _get_softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call "
        "to include dim=X as an argument.",
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
) -> Tensor:
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return input.softmax(dim) if dtype is None else input.softmax(dim, dtype=dtype)


def log_softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
) -> Tensor:
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return input.log_softmax(dim) if dtype is None else input.log_softmax(dim, dtype=dtype)


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """y = x W^T + b (torch._C._nn.linear: aten::linear > aten::t + aten::addmm)."""
    return torch._C._nn.linear(input, weight, bias)


def mse_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    if target.size() != input.size():
        warnings.warn(
            f"Using a target size ({target.size()}) that is different to the input "
            f"size ({input.size()}). This will likely lead to incorrect results due to "
            "broadcasting. Please ensure they have the same size.",
            stacklevel=2,
        )
    if size_average is not None or reduce is not None:
        reduction = _Reduction.legacy_get_string(size_average, reduce)
    expanded_input, expanded_target = torch.broadcast_tensors(input, target)
    if weight is not None:
        if weight.size() != input.size():
            raise ValueError("Weights and input must have the same size.")
        weighted = torch.pow(expanded_input - expanded_target, 2) * weight
        return _weighted_reduction(weighted, weight, reduction)
    return torch._C._nn.mse_loss(expanded_input, expanded_target, _Reduction.get_enum(reduction))


def nll_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    ignore_index: int = -100,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    if size_average is not None or reduce is not None:
        reduction = _Reduction.legacy_get_string(size_average, reduce)
    return torch._C._nn.nll_loss_nd(
        input, target, weight, _Reduction.get_enum(reduction), ignore_index
    )


def cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    ignore_index: int = -100,
    reduce: bool | None = None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """log_softmax over the class dim, then nll_loss (aten::cross_entropy_loss)."""
    if size_average is not None or reduce is not None:
        reduction = _Reduction.legacy_get_string(size_average, reduce)
    return torch._C._nn.cross_entropy_loss(
        input, target, weight, _Reduction.get_enum(reduction), ignore_index, label_smoothing
    )


def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
) -> Tensor:
    if size_average is not None or reduce is not None:
        reduction_enum = _Reduction.legacy_get_enum(size_average, reduce)
    else:
        reduction_enum = _Reduction.get_enum(reduction)
    if not target.size() == input.size():
        raise ValueError(
            f"Target size ({target.size()}) must be the same as input size ({input.size()})"
        )
    return torch.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction_enum)


def conv2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """torch.conv2d (aten::conv2d > aten::convolution > aten::_convolution)."""
    return torch.conv2d(input, weight, bias, stride, padding, dilation, groups)


def conv1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """torch.conv1d (aten::conv1d > aten::convolution > aten::_convolution, viewed as 2-D)."""
    return torch.conv1d(input, weight, bias, stride, padding, dilation, groups)


# torch.nn.functional binds these to the torch functions themselves (_add_docstr)
bilinear = torch.bilinear
conv_transpose1d = torch.conv_transpose1d
conv_transpose2d = torch.conv_transpose2d
conv3d = torch.conv3d
conv_transpose3d = torch.conv_transpose3d
channel_shuffle = torch.channel_shuffle
native_channel_shuffle = torch.native_channel_shuffle


def pad(input: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:
    """torch._C._nn.pad (aten::pad > constant_pad_nd, reflection_pad / replication_pad or
    _pad_circular, by mode)."""
    return torch._C._nn.pad(input, pad, mode, value)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    return torch._C._nn.one_hot(tensor, num_classes)


def normalize(
    input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Tensor | None = None
) -> Tensor:
    """input / max(||input||_p, eps) along dim, composed in Python as torch does."""
    if out is None:
        denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
        return input / denom
    denom = input.norm(p, dim, keepdim=True).clamp_min_(eps).expand_as(input)
    return torch.div(input, denom, out=out)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    return torch.cosine_similarity(x1, x2, dim, eps)


def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False
) -> Tensor:
    return torch.pairwise_distance(x1, x2, p, eps, keepdim)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    return torch.dropout_(input, p, training) if inplace else torch.dropout(input, p, training)


def _no_grad_embedding_renorm_(
    weight: Tensor, input: Tensor, max_norm: float, norm_type: float
) -> Tensor:
    with torch.no_grad():
        return torch.embedding_renorm_(weight, input, max_norm, norm_type)


def embedding(
    input: Tensor,
    weight: Tensor,
    padding_idx: int | None = None,
    max_norm: float | None = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """The rows of weight the indices name (torch.embedding: aten::embedding > index_select)."""
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        # Note [embedding_renorm contiguous] in torch: embedding_renorm_ makes it contiguous
        input = input.contiguous()
        _no_grad_embedding_renorm_(weight, input, max_norm, norm_type)
    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def _verify_batch_size(size: Any) -> None:
    size_prods = size[0]
    for i in range(len(size) - 2):
        size_prods *= size[i + 2]
    if size_prods == 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size {size}"
        )


# torch passes torch.backends.cudnn.enabled (True unless switched off); tensortrace has no cuDNN
# and no torch.backends, so the flag is its default
_CUDNN_ENABLED = True


def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """torch.batch_norm (aten::batch_norm > _batch_norm_impl_index > native_batch_norm)."""
    if training:
        _verify_batch_size(input.size())
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    elif eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    return torch.batch_norm(
        input, weight, bias, running_mean, running_var, training, momentum, eps, _CUDNN_ENABLED
    )


# the losses of functional_loss.py and functional_loss_margin.py, the activations of
# functional_activation.py (torch keeps them in functional.py)
# the norms of functional_norm.py (torch keeps them in functional.py)
# interpolate, the upsample functions and pixel_shuffle of functional_interpolate.py (the same)
# fold / unfold of functional_fold.py, embedding_bag of functional_embedding.py
# the pooling functions of functional_pooling.py and functional_pooling3d.py, dropout1d/2d/3d of
# functional_dropout.py, grid_sample and affine_grid of functional_vision.py
# the attention functions of functional_attention.py (torch keeps them in functional.py)
from tensortrace.nn.functional_activation import *  # noqa: E402, F403
from tensortrace.nn.functional_attention import (  # noqa: E402, F401
    _canonical_mask,
    _in_projection,
    _in_projection_packed,
    _mha_shape_check,
    _none_or_dtype,
    multi_head_attention_forward,
    scaled_dot_product_attention,
)
from tensortrace.nn.functional_dropout import dropout1d, dropout2d, dropout3d  # noqa: E402, F401
from tensortrace.nn.functional_embedding import embedding_bag  # noqa: E402, F401
from tensortrace.nn.functional_fold import fold, unfold  # noqa: E402, F401
from tensortrace.nn.functional_interpolate import (  # noqa: E402, F401
    interpolate,
    pixel_shuffle,
    pixel_unshuffle,
    upsample,
    upsample_bilinear,
    upsample_nearest,
)
from tensortrace.nn.functional_loss import (  # noqa: E402, F401
    _weighted_reduction,
    binary_cross_entropy,
    huber_loss,
    kl_div,
    l1_loss,
    smooth_l1_loss,
)
from tensortrace.nn.functional_loss_margin import *  # noqa: E402, F403
from tensortrace.nn.functional_norm import (  # noqa: E402, F401
    _verify_spatial_size,
    group_norm,
    instance_norm,
    layer_norm,
    local_response_norm,
    rms_norm,
)
from tensortrace.nn.functional_pooling import (  # noqa: E402, F401
    _list_with_default,
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_avg_pool3d,
    adaptive_max_pool1d,
    adaptive_max_pool1d_with_indices,
    adaptive_max_pool2d,
    adaptive_max_pool2d_with_indices,
    avg_pool1d,
    avg_pool2d,
    lp_pool1d,
    lp_pool2d,
    max_pool1d,
    max_pool1d_with_indices,
    max_pool2d,
    max_pool2d_with_indices,
    max_unpool1d,
    max_unpool2d,
)
from tensortrace.nn.functional_pooling3d import (  # noqa: E402, F401
    adaptive_max_pool3d,
    adaptive_max_pool3d_with_indices,
    avg_pool3d,
    max_pool3d,
    max_pool3d_with_indices,
    max_unpool3d,
)
from tensortrace.nn.functional_vision import affine_grid, grid_sample  # noqa: E402, F401
