"""batch_norm, _batch_norm_impl_index, native_batch_norm, native_batch_norm_backward, and
instance_norm (a batch_norm of the input seen as one sample of N * C channels, the per-channel
parameters and running statistics repeated N times, the running statistics averaged back).

Mirrors `aten/src/ATen/native/Normalization.cpp` and the contiguous kernels of
`aten/src/ATen/native/cpu/batch_norm_kernel.cpp`. torch 2.13's batch_norm still goes through
_batch_norm_impl_index to native_batch_norm (torch.profiler shows aten::batch_norm >
aten::_batch_norm_impl_index > aten::native_batch_norm; the backward is
NativeBatchNormBackward0 > aten::native_batch_norm_backward). Channels are dim 1; statistics
reduce over every other dim. In training, the per-channel mean is summed in acc_type (double
for float) and rounded to the input's dtype, the sum of squared deviations likewise; save_mean
and save_invstd = 1 / sqrt(var_sum / n + eps) (biased) are returned, and running_mean /
running_var are updated in place with `momentum * stat + (1 - momentum) * running`, the
running variance being the UNBIASED var_sum / (n - 1). In evaluation the running statistics
normalize. The output is x * alpha + beta with alpha = invstd * weight, beta = bias - mean * alpha
(batch_norm_cpu_collect_linear_and_constant_terms).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.opmath_type import opmath_type
from tensortrace.aten.tensor_body import Tensor, expect_contiguous
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar_type import ScalarType, numpy_dtype
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/Normalization.cpp"
KERNEL = "aten/src/ATen/native/cpu/batch_norm_kernel.cpp"
_FLOATS = (ScalarType.Float, ScalarType.Double, ScalarType.Half, ScalarType.BFloat16)


def _defined(t: Tensor | None) -> bool:
    return t is not None and t.defined()


def _check_dims_match_num_input_features(arg_name: str, expected: int, actual: int) -> None:
    TORCH_CHECK(actual == expected, f"{arg_name} should contain {expected} elements not {actual}")


@native_function(SOURCE)
def batch_norm(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    training: bool,
    momentum: float,
    eps: float,
    cudnn_enabled: bool,
) -> Tensor:
    return at._batch_norm_impl_index(
        input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled
    )[0]


@native_function(SOURCE)
def _batch_norm_impl_index(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    training: bool,
    momentum: float,
    eps: float,
    cudnn_enabled: bool,
) -> tuple[Tensor, Tensor, Tensor, Tensor, int]:
    num_features = input.sizes()[1]
    if input.numel() == 0:
        reserve = at.empty([0], dtype=ScalarType.Byte, device=input.device())
        acc = (
            ScalarType.Double
            if input.scalar_type() == ScalarType.Float
            else opmath_type(input.scalar_type())
        )  # toAccumulateType(..., is_cuda=False)
        save_mean = at.empty([num_features], dtype=acc, device=input.device())
        save_invstd = at.empty([num_features], dtype=acc, device=input.device())
        # don't return a view of input, nor an empty tensor: it would break the gradient chain
        out = input.clone()
        if _defined(weight):
            assert weight is not None
            out = out.mul(weight.select(0, 0))  # out * weight[0]
        if _defined(bias):
            assert bias is not None
            out = out.add(bias.select(0, 0))  # out + bias[0]
        return out, save_mean, save_invstd, reserve, 0
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is not None and t.defined():
            _check_dims_match_num_input_features(name, num_features, t.numel())
        elif not training:
            TORCH_CHECK(False, f"{name} must be defined in evaluation mode")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and t.defined():
            _check_dims_match_num_input_features(name, num_features, t.numel())
    reserve = at.empty([0], dtype=ScalarType.Byte, device=input.device())
    out, save_mean, save_invstd = at.native_batch_norm(
        input, weight, bias, running_mean, running_var, training, momentum, eps
    )
    return out, save_mean, save_invstd, reserve, 0


def _channels(t: Tensor, dtype: np.dtype) -> np.ndarray:
    """The input as (N, C, rest): channel c is [:, c, :]."""
    arr = np.asarray(expect_contiguous(t).numpy_view())
    return arr.reshape(arr.shape[0], arr.shape[1], -1).astype(dtype, copy=False)


def _vector(t: Tensor | None, c: int, dtype: np.dtype, fill: float) -> np.ndarray:
    if t is None or not t.defined():
        return np.full(c, fill, dtype=dtype)
    return np.asarray(expect_contiguous(t).numpy_view()).reshape(c).astype(dtype, copy=False)


@traced("kernel", "at::native::(anonymous)::batch_norm_cpu_collect_stats_contiguous_impl", KERNEL)
def batch_norm_cpu_collect_stats(input: Tensor, mean: Tensor, var_sum: Tensor) -> None:
    """Per channel: the sum in acc_type, mean = sum / N rounded to scalar_t; then the sum, in
    acc_type, of (x - mean)^2 computed in scalar_t."""
    scalar = numpy_dtype(opmath_type(input.scalar_type()))
    x = _channels(input, scalar)
    count = x.shape[0] * x.shape[2]
    mean_v = (np.sum(x, axis=(0, 2), dtype=np.float64) / count).astype(scalar)
    diff = x - mean_v[None, :, None]
    var_sum_v = np.sum(diff * diff, axis=(0, 2), dtype=np.float64)
    mean.numpy_view()[...] = mean_v
    var_sum.numpy_view()[...] = var_sum_v


@traced("kernel", "at::native::(anonymous)::batch_norm_cpu_contiguous_impl", KERNEL)
def batch_norm_cpu_transform_input(
    output: Tensor,
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    mean: np.ndarray,
    invstd: np.ndarray,
) -> None:
    param = numpy_dtype(opmath_type(input.scalar_type()))
    c = input.sizes()[1]
    alpha = (invstd.astype(param) * _vector(weight, c, param, 1.0)).astype(param)
    beta = (_vector(bias, c, param, 0.0) - mean.astype(param) * alpha).astype(param)
    x = _channels(input, param)
    y = x * alpha[None, :, None] + beta[None, :, None]
    output.numpy_view()[...] = y.reshape(output.sizes())


def _batch_norm(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    train: bool,
    momentum: float,
    eps: float,
) -> tuple[Tensor, Tensor, Tensor]:
    TORCH_CHECK_NOT_IMPLEMENTED(
        input.scalar_type() in _FLOATS,
        f"\"batch_norm\" not implemented for '{input.scalar_type()}'",
    )
    dtype = input.scalar_type()
    device = input.device()
    output = at.empty(list(input.sizes()), dtype=dtype, device=device)
    c = input.sizes()[1]
    param = numpy_dtype(opmath_type(dtype))
    if not train:
        save_mean = at.empty([0], dtype=dtype, device=device)
        save_invstd = at.empty([0], dtype=dtype, device=device)
        if output.is_meta():  # Note [A meta tensor's kernel is no call]
            return output, save_mean, save_invstd
        assert running_mean is not None and running_var is not None
        mean = _vector(running_mean, c, param, 0.0)
        invstd = (1 / np.sqrt(_vector(running_var, c, param, 1.0) + param.type(eps))).astype(param)
        batch_norm_cpu_transform_input(output, input, weight, bias, mean, invstd)
        return output, save_mean, save_invstd
    TORCH_CHECK(
        input.numel() != 0,
        "input tensor must have at least one element, but got input_sizes = ",
        list(input.sizes()),
    )
    n = input.numel() // c
    save_mean = at.empty([c], dtype=dtype, device=device)
    save_invstd = at.empty([c], dtype=dtype, device=device)
    mean_t = at.empty([c], dtype=dtype, device=device)
    var_sum_t = at.empty([c], dtype=dtype, device=device)
    if output.is_meta():  # Note [A meta tensor's kernel is no call]
        return output, save_mean, save_invstd
    batch_norm_cpu_collect_stats(input, mean_t, var_sum_t)  # batch_norm_cpu_update_stats_template
    mean_v = np.asarray(mean_t.numpy_view()).astype(param)
    var_sum = np.asarray(var_sum_t.numpy_view()).astype(param)
    invstd = (1 / np.sqrt((var_sum / n).astype(np.float64) + eps)).astype(param)  # InvStd<acc>
    save_mean.numpy_view()[...] = mean_v
    save_invstd.numpy_view()[...] = invstd
    m = param.type(momentum)
    if _defined(running_mean):
        assert running_mean is not None
        rm = running_mean.numpy_view()
        rm[...] = m * mean_v + (1 - m) * rm.astype(param)
    if _defined(running_var):
        assert running_var is not None
        rv = running_var.numpy_view()
        unbiased = var_sum.astype(np.float64) / (n - 1) if n > 1 else np.full(c, np.inf)
        rv[...] = m * unbiased + (1 - m) * rv.astype(param)
    batch_norm_cpu_transform_input(output, input, weight, bias, mean_v, invstd)
    return output, save_mean, save_invstd


@native_function(SOURCE)
def batch_norm_cpu(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    training: bool,
    momentum: float,
    eps: float,
) -> tuple[Tensor, Tensor, Tensor]:
    return _batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)


# ---- backward ------------------------------------------------------------------------------------
@traced("kernel", "at::native::(anonymous)::batch_norm_cpu_backward_contiguous_impl", KERNEL)
def batch_norm_cpu_backward(
    grad_input: Tensor | None,
    grad_weight: Tensor | None,
    grad_bias: Tensor | None,
    grad_out: Tensor,
    input: Tensor,
    weight: Tensor | None,
    mean: np.ndarray,
    invstd: np.ndarray,
    train: bool,
) -> None:
    """dotp = sum((x - mean) * dy) and sum(dy) per channel (in acc_type). Training:
    dx = (dy - sum / n - (x - mean) * dotp * invstd^2 / n) * invstd * w; evaluation:
    dx = dy * invstd * w. grad_weight = dotp * invstd, grad_bias = sum."""
    param = numpy_dtype(opmath_type(input.scalar_type()))
    c = input.sizes()[1]
    x = _channels(input, param)
    dy = _channels(grad_out, param)
    n = x.shape[0] * x.shape[2]
    w = _vector(weight, c, param, 1.0)
    mean_b, invstd_b = mean[None, :, None], invstd[None, :, None]
    dotp = np.sum((x - mean_b) * dy, axis=(0, 2), dtype=np.float64)
    total = np.sum(dy, axis=(0, 2), dtype=np.float64).astype(param)
    if grad_input is not None:
        if train:
            k = (dotp.astype(param) * invstd * invstd / n).astype(param)[None, :, None]
            grad_mean = (total / n).astype(param)[None, :, None]
            gi = (dy - grad_mean - (x - mean_b) * k) * invstd_b * w[None, :, None]
        else:
            gi = dy * invstd_b * w[None, :, None]
        grad_input.numpy_view()[...] = gi.reshape(grad_input.sizes())
    if grad_weight is not None:
        grad_weight.numpy_view()[...] = dotp * invstd
    if grad_bias is not None:
        grad_bias.numpy_view()[...] = total


def _batch_norm_backward(
    grad_out: Tensor,
    input: Tensor,
    weight: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    save_mean: Tensor | None,
    save_invstd: Tensor | None,
    train: bool,
    eps: float,
    grad_input_mask: Sequence[bool],
) -> tuple[Tensor, Tensor, Tensor]:
    dtype = input.scalar_type()
    device = input.device()
    c = input.sizes()[1]
    param = numpy_dtype(opmath_type(dtype))
    grad_input = (
        at.empty(list(input.sizes()), dtype=dtype, device=device)
        if (grad_input_mask[0])
        else Tensor()
    )
    grad_weight = at.empty([c], dtype=dtype, device=device) if grad_input_mask[1] else Tensor()
    grad_bias = at.empty([c], dtype=dtype, device=device) if grad_input_mask[2] else Tensor()
    if input.is_meta():  # Note [A meta tensor's kernel is no call]
        return grad_input, grad_weight, grad_bias
    if input.numel() == 0:
        for t in (grad_weight, grad_bias):
            if t.defined():
                t.zero_()
        return grad_input, grad_weight, grad_bias
    if train:
        mean = _vector(save_mean, c, param, 0.0)
        invstd = _vector(save_invstd, c, param, 1.0)
    else:
        mean = _vector(running_mean, c, param, 0.0)
        var = _vector(running_var, c, param, 1.0)
        invstd = (1 / np.sqrt(var + param.type(eps))).astype(param)
    batch_norm_cpu_backward(
        grad_input if grad_input.defined() else None,
        grad_weight if grad_weight.defined() else None,
        grad_bias if grad_bias.defined() else None,
        grad_out,
        input,
        weight,
        mean,
        invstd,
        train,
    )
    return grad_input, grad_weight, grad_bias


@native_function(SOURCE)
def batch_norm_backward_cpu(
    grad_out: Tensor,
    input: Tensor,
    weight: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    save_mean: Tensor | None,
    save_invstd: Tensor | None,
    train: bool,
    eps: float,
    output_mask: Sequence[bool],
) -> tuple[Tensor, Tensor, Tensor]:
    return _batch_norm_backward(
        grad_out,
        input,
        weight,
        running_mean,
        running_var,
        save_mean,
        save_invstd,
        train,
        eps,
        output_mask,
    )


def _repeat_if_defined(t: Tensor | None, repeat: int) -> Tensor | None:
    return t.repeat([repeat]) if _defined(t) else t  # type: ignore[union-attr]


@native_function(SOURCE)
def instance_norm(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    use_input_stats: bool,
    momentum: float,
    eps: float,
    cudnn_enabled: bool,
) -> Tensor:
    TORCH_CHECK(
        use_input_stats or (_defined(running_mean) and _defined(running_var)),
        "Expected running_mean and running_var to be defined when use_input_stats is false",
    )
    shape = list(input.sizes())
    b, c = input.size(0), input.size(1)
    shape[1] = b * c
    shape[0] = 1
    weight_ = _repeat_if_defined(weight, b)
    bias_ = _repeat_if_defined(bias, b)
    running_mean_ = _repeat_if_defined(running_mean, b)
    running_var_ = _repeat_if_defined(running_var, b)
    input_reshaped = expect_contiguous(input).view(shape)
    out = at.batch_norm(
        input_reshaped,
        weight_,
        bias_,
        running_mean_,
        running_var_,
        use_input_stats,
        momentum,
        eps,
        cudnn_enabled,
    )
    # running_mean and running_var are aliased: they are const, but their data is updated
    if running_mean is not None and running_mean_ is not None and running_mean.defined():
        at.alias(running_mean).copy_(running_mean_.view([b, c]).mean([0], False))
    if running_var is not None and running_var_ is not None and running_var.defined():
        at.alias(running_var).copy_(running_var_.view([b, c]).mean([0], False))
    return out.view(list(input.sizes()))
