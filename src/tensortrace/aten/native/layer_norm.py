"""layer_norm, native_layer_norm (-> out, mean, rstd), native_layer_norm_backward, and rms_norm.

Mirrors `aten/src/ATen/native/layer_norm.cpp` (layer_norm_symint, layer_norm_cpu,
layer_norm_backward_cpu, _check_layer_norm_inputs of layer_norm.h) and the kernels of
`aten/src/ATen/native/cpu/layer_norm_kernel.cpp`. The input is seen as m rows of n elements (n
the product of normalized_shape); each row's mean and biased variance are computed in opmath
(float for float32 and the 16-bit floats, double for double), rstd = 1 / sqrt(var + eps), and
y = (x * rstd - mean * rstd) * gamma + beta. mean and rstd are returned viewed as the input's
leading dims followed by ones. Here a row's loop is one NumPy reduction along the last axis.
rms_norm is a composite: rms_norm_symint checks, then calls _fused_rms_norm, whose CPU kernel
is the CompositeImplicitAutograd rms_norm_composite (upcast, pow, mean, add_ eps, rsqrt, mul,
mul by weight, type_as), so autograd differentiates those ops.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.opmath_type import opmath_type
from tensortrace.aten.tensor_body import Tensor, expect_contiguous
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_NOT_IMPLEMENTED, TORCH_CHECK_VALUE
from tensortrace.c10.scalar_type import ScalarType, numpy_dtype
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/layer_norm.cpp"
KERNEL = "aten/src/ATen/native/cpu/layer_norm_kernel.cpp"
_FLOATS = (ScalarType.Float, ScalarType.Double, ScalarType.Half, ScalarType.BFloat16)


def _shape_str(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"


def _check_layer_norm_inputs(
    input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None, bias: Tensor | None
) -> tuple[int, int]:
    """layer_norm.h: the checks, and (m, n) = (rows, elements per row)."""
    shape = [int(s) for s in normalized_shape]
    TORCH_CHECK(
        len(shape) >= 1,
        "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
        f"element, but got normalized_shape = {_shape_str(shape)}",
    )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and t.defined():
            TORCH_CHECK(
                list(t.sizes()) == shape,
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
                f"shape {_shape_str(t.sizes())} and normalized_shape = {_shape_str(shape)}",
            )
    input_shape = list(input.sizes())
    ndim = len(input_shape)
    if ndim < len(shape) or input_shape[ndim - len(shape) :] != shape:
        TORCH_CHECK(
            False,
            f"Given normalized_shape={_shape_str(shape)}, expected input with shape [*"
            + "".join(f", {s}" for s in shape)
            + f"], but got input of size{_shape_str(input_shape)}",
        )
    axis = ndim - len(shape)
    return int(np.prod(input_shape[:axis], dtype=np.int64)), int(
        np.prod(input_shape[axis:], dtype=np.int64)
    )


def _param_scalar_type(input: Tensor, weight: Tensor | None, bias: Tensor | None) -> ScalarType:
    """param_scalar_type: float when a 16-bit input has float parameters (mixed type)."""
    dtype = input.scalar_type()
    mixed = dtype in (ScalarType.Half, ScalarType.BFloat16) and any(
        t is not None and t.defined() and t.scalar_type() == ScalarType.Float
        for t in (weight, bias)
    )
    return ScalarType.Float if mixed else dtype


def _rows(t: Tensor, m: int, n: int, dtype: np.dtype) -> np.ndarray:
    return np.asarray(t.numpy_view()).reshape(m, n).astype(dtype, copy=False)


def _param(t: Tensor | None, n: int, dtype: np.dtype, fill: float) -> np.ndarray:
    if t is None or not t.defined():
        return np.full(n, fill, dtype=dtype)
    return np.asarray(t.numpy_view()).reshape(n).astype(dtype, copy=False)


@traced("kernel", "at::native::(anonymous)::LayerNormKernelImpl", KERNEL)
def layer_norm_kernel_impl(
    x_t: Tensor,
    gamma: Tensor | None,
    beta: Tensor | None,
    m: int,
    n: int,
    eps: float,
    y_t: Tensor,
    mean: Tensor,
    rstd: Tensor,
) -> None:
    TORCH_CHECK_NOT_IMPLEMENTED(
        x_t.scalar_type() in _FLOATS,
        f"\"LayerNormKernelImpl\" not implemented for '{x_t.scalar_type()}'",
    )
    if m == 0:
        return
    acc = numpy_dtype(opmath_type(x_t.scalar_type()))
    x = _rows(x_t, m, n, acc)
    mean_val = np.mean(x, axis=1, dtype=acc) if n else np.zeros(m, acc)
    var = np.mean(np.square(x - mean_val[:, None]), axis=1, dtype=acc) if n else np.zeros(m, acc)
    rstd_val = (acc.type(1) / np.sqrt(np.maximum(var, 0) + acc.type(eps))).astype(acc)
    scale = rstd_val[:, None]
    bias = (-rstd_val * mean_val)[:, None]
    y = (x * scale + bias) * _param(gamma, n, acc, 1.0) + _param(beta, n, acc, 0.0)
    if n:
        y_t.numpy_view()[...] = y.reshape(y_t.sizes())
    mean.numpy_view()[...] = mean_val
    rstd.numpy_view()[...] = rstd_val


def _layer_norm(
    input: Tensor,
    normalized_shape: Sequence[int],
    weight: Tensor | None,
    bias: Tensor | None,
    eps: float,
) -> tuple[Tensor, Tensor, Tensor]:
    m, n = _check_layer_norm_inputs(input, normalized_shape, weight, bias)
    x_t = expect_contiguous(input)
    gamma = expect_contiguous(weight) if weight is not None and weight.defined() else None
    beta = expect_contiguous(bias) if bias is not None and bias.defined() else None
    y_t = at.empty(list(x_t.sizes()), dtype=x_t.scalar_type(), device=x_t.device())
    dtype = _param_scalar_type(input, weight, bias)
    mean = at.empty([m], dtype=dtype, device=x_t.device())
    rstd = at.empty([m], dtype=dtype, device=x_t.device())
    # layer_norm_with_mean_rstd_out (Note [A meta tensor's kernel is no call])
    if not y_t.is_meta():
        layer_norm_kernel_impl(x_t, gamma, beta, m, n, eps, y_t, mean, rstd)
    axis = input.dim() - len(normalized_shape)
    stat_shape = [*list(input.sizes())[:axis], *([1] * len(normalized_shape))]
    return y_t, mean.view(stat_shape), rstd.view(stat_shape)


@native_function(SOURCE)
def layer_norm_cpu(
    input: Tensor,
    normalized_shape: Sequence[int],
    weight: Tensor | None,
    bias: Tensor | None,
    eps: float,
) -> tuple[Tensor, Tensor, Tensor]:
    return _layer_norm(input, normalized_shape, weight, bias, eps)


@native_function(SOURCE)
def layer_norm_symint(
    input: Tensor,
    normalized_shape: Sequence[int],
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-05,
    cudnn_enable: bool = True,
) -> Tensor:
    return at.native_layer_norm(input, normalized_shape, weight, bias, eps)[0]


# ---- backward ------------------------------------------------------------------------------------
@traced("kernel", "at::native::(anonymous)::LayerNormBackwardKernelImpl", KERNEL)
def layer_norm_backward_kernel_impl(
    dy_t: Tensor,
    x_t: Tensor,
    mean: Tensor,
    rstd: Tensor,
    gamma: Tensor | None,
    m: int,
    n: int,
    dx_t: Tensor | None,
    dgamma: Tensor | None,
    dbeta: Tensor | None,
) -> None:
    """ds = sum(dy * gamma * x), db = sum(dy * gamma) per row; dx = a * dy * gamma + b * x + c
    with a = rstd, b = (db * mean - ds) * rstd^3 / n, c = -b * mean - db * rstd / n."""
    acc = numpy_dtype(opmath_type(x_t.scalar_type()))
    dy = _rows(expect_contiguous(dy_t), m, n, acc)
    x = _rows(x_t, m, n, acc)
    mean_v = np.asarray(mean.numpy_view()).reshape(m).astype(acc)[:, None]
    rstd_v = np.asarray(rstd.numpy_view()).reshape(m).astype(acc)[:, None]
    if dgamma is not None:
        dgamma.numpy_view()[...] = np.sum(dy * (x - mean_v) * rstd_v, axis=0).reshape(
            dgamma.sizes()
        )
    if dbeta is not None:
        dbeta.numpy_view()[...] = np.sum(dy, axis=0).reshape(dbeta.sizes())
    if dx_t is not None:
        g = _param(gamma, n, acc, 1.0)
        scale = acc.type(1.0 / n)
        ds = np.sum(dy * g * x, axis=1, keepdims=True)
        db = np.sum(dy * g, axis=1, keepdims=True)
        b = (db * mean_v - ds) * rstd_v * rstd_v * rstd_v * scale
        c = -b * mean_v - db * rstd_v * scale
        dx_t.numpy_view()[...] = (rstd_v * dy * g + b * x + c).reshape(dx_t.sizes())


def _layer_norm_backward(
    dy_t: Tensor,
    input: Tensor,
    normalized_shape: Sequence[int],
    mean: Tensor,
    rstd: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    grad_input_mask: Sequence[bool],
) -> tuple[Tensor, Tensor, Tensor]:
    m, n = _check_layer_norm_inputs(input, normalized_shape, weight, bias)
    x_t = expect_contiguous(input)
    gamma = expect_contiguous(weight) if weight is not None and weight.defined() else None

    def like(t: Tensor | None, zero: bool) -> Tensor:
        assert t is not None  # a gradient for weight / bias is asked only when they exist
        make = at.zeros if zero else at.empty
        return make(list(t.sizes()), dtype=t.scalar_type(), device=t.device())

    dx_t = like(x_t, False) if grad_input_mask[0] else Tensor()
    dgamma = like(gamma, m == 0) if grad_input_mask[1] else Tensor()
    dbeta = like(bias, m == 0) if grad_input_mask[2] else Tensor()
    if m > 0 and n > 0 and not x_t.is_meta():  # Note [A meta tensor's kernel is no call]
        layer_norm_backward_kernel_impl(
            dy_t,
            x_t,
            mean,
            rstd,
            gamma,
            m,
            n,
            dx_t if dx_t.defined() else None,
            dgamma if dgamma.defined() else None,
            dbeta if dbeta.defined() else None,
        )
    return dx_t, dgamma, dbeta


@native_function(SOURCE)
def layer_norm_backward_cpu(
    grad_out: Tensor,
    input: Tensor,
    normalized_shape: Sequence[int],
    mean: Tensor,
    rstd: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    output_mask: Sequence[bool],
) -> tuple[Tensor, Tensor, Tensor]:
    return _layer_norm_backward(
        grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask
    )


# ---- rms_norm --------------------------------------------------------------------------------
def _check_rms_norm_inputs(
    input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None
) -> None:
    """layer_norm.h's _check_rms_norm_inputs_symint."""
    shape = [int(s) for s in normalized_shape]
    TORCH_CHECK(
        len(shape) >= 1,
        "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
        f"element, but got normalized_shape = {_shape_str(shape)}",
    )
    TORCH_CHECK(
        weight is None or not weight.defined() or list(weight.sizes()) == shape,
        "Expected weight to be of same shape as normalized_shape, but got weight of shape "
        f"{_shape_str(weight.sizes() if weight is not None else [])} and normalized_shape = "
        f"{_shape_str(shape)}",
    )
    input_shape = list(input.sizes())
    ndim = len(input_shape)
    TORCH_CHECK_VALUE(
        ndim >= len(shape),
        "Input tensor must have at least ",
        len(shape),
        " dimensions, but got ",
        ndim,
    )
    TORCH_CHECK(
        input_shape[ndim - len(shape) :] == shape,
        f"Given normalized_shape={_shape_str(shape)}, expected input with shape [*"
        + ", ".join(str(s) for s in shape)
        + f"], but got input of size{_shape_str(input_shape)}",
    )


@native_function(SOURCE)
def rms_norm_composite(
    input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None, eps: float | None
) -> tuple[Tensor, Tensor]:
    dims_to_reduce = [input.dim() - i - 1 for i in range(len(normalized_shape))]
    # AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(Half, BFloat16)
    TORCH_CHECK_NOT_IMPLEMENTED(
        input.scalar_type() in _FLOATS,
        '"rms_norm" not implemented for \'',
        input.scalar_type().name,
        "'",
    )
    # upcast is needed for fp16 and bf16
    opmath_t = opmath_type(input.scalar_type())
    upcasted_input = input.to(opmath_t)
    if opmath_t == ScalarType.Float:
        eps_val = float(np.float32(np.finfo(np.float32).eps if eps is None else eps))
    else:
        eps_val = float(np.finfo(np.float64).eps) if eps is None else eps
    rqrst_input = at.rsqrt(at.pow(upcasted_input, 2).mean(dims_to_reduce, True).add_(eps_val))
    upcasted_result = upcasted_input.mul(rqrst_input)
    if weight is not None:
        upcasted_result = upcasted_result.mul(weight)
    upcasted_result = expect_contiguous(upcasted_result)
    rqrst_input = expect_contiguous(rqrst_input)
    # Cast normalized result to original input type
    return upcasted_result.type_as(input), rqrst_input


_warned_rms_norm_dtype = False


@native_function(SOURCE)
def rms_norm_symint(
    input: Tensor,
    normalized_shape: Sequence[int],
    weight: Tensor | None = None,
    eps: float | None = None,
) -> Tensor:
    global _warned_rms_norm_dtype
    _check_rms_norm_inputs(input, normalized_shape, weight)
    if weight is not None and weight.defined() and weight.scalar_type() != input.scalar_type():
        if not _warned_rms_norm_dtype:  # TORCH_WARN_ONCE
            _warned_rms_norm_dtype = True
            warnings.warn(
                f"Mismatch dtype between input and weight: input dtype = "
                f"{input.scalar_type().name.lower()}, weight dtype = "
                f"{weight.scalar_type().name.lower()}, Cannot dispatch to fused implementation.",
                stacklevel=2,
            )
        return rms_norm_composite(input, list(normalized_shape), weight, eps)[0]
    return at._fused_rms_norm(input, list(normalized_shape), weight, eps)[0]
