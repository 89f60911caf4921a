"""group_norm, native_group_norm (-> out, mean, rstd) and native_group_norm_backward.

Mirrors `aten/src/ATen/native/group_norm.cpp` (group_norm, native_group_norm,
native_group_norm_backward, check_group_norm_inputs) and the kernels of
`aten/src/ATen/native/cpu/group_norm_kernel.cpp`. The input (N, C, *) is seen as N * group rows
of D * HxW elements (D = C / group channels of HxW elements); each row's mean and biased
variance are computed in opmath (float for float32 and the 16-bit floats, double for double),
rstd = 1 / sqrt(var + eps), and y = x * (rstd * gamma[c]) + (beta[c] - mean * rstd * gamma[c]).
mean and rstd are returned as (N, group). Here a row's loop is one NumPy reduction.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.layer_norm import _FLOATS, _param, _param_scalar_type, _shape_str
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.opmath_type import opmath_type
from tensortrace.aten.tensor_body import Tensor, expect_contiguous
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar_type import numpy_dtype
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/group_norm.cpp"
KERNEL = "aten/src/ATen/native/cpu/group_norm_kernel.cpp"


def _contiguous_or_none(t: Tensor | None) -> Tensor | None:
    return expect_contiguous(t) if t is not None and t.defined() else None


def check_group_norm_inputs(
    input: Tensor, weight: Tensor | None, bias: Tensor | None, C: int, num_groups: int
) -> None:
    TORCH_CHECK(num_groups > 0, f"Expected num groups to be greater than 0, got {num_groups}")
    TORCH_CHECK(
        C % num_groups == 0,
        "Expected number of channels in input to be divisible by num_groups, but got input of "
        f"shape {_shape_str(input.sizes())} and num_groups={num_groups}",
    )
    # torch's bias message shows weight.sizes() ([0] for an undefined weight), kept as it is
    shown = list(weight.sizes()) if weight is not None and weight.defined() else [0]
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and t.defined():
            TORCH_CHECK(
                t.dim() == 1 and t.numel() == C,
                f"Expected {name} to be a vector of size equal to the number of channels in "
                f"input, but got {name} of shape {_shape_str(shown)} and input of shape "
                f"{_shape_str(input.sizes())}",
            )


def _grouped(t: Tensor, N: int, C: int, HxW: int, dtype: np.dtype) -> np.ndarray:
    """The (N, C, HxW) view of a contiguous tensor, in the accumulation type."""
    return np.asarray(t.numpy_view()).reshape(N, C, HxW).astype(dtype, copy=False)


def _stats(t: Tensor, N: int, group: int, dtype: np.dtype) -> np.ndarray:
    """mean / rstd as (N, group, 1, 1), to broadcast over (N, group, D, HxW)."""
    return np.asarray(t.numpy_view()).reshape(N, group, 1, 1).astype(dtype)


@traced("kernel", "at::native::(anonymous)::GroupNormKernelImpl", KERNEL)
def group_norm_kernel_impl(
    X: Tensor,
    gamma: Tensor | None,
    beta: Tensor | None,
    N: int,
    C: int,
    HxW: int,
    group: int,
    eps: float,
    Y: Tensor,
    mean: Tensor,
    rstd: Tensor,
) -> None:
    TORCH_CHECK_NOT_IMPLEMENTED(
        X.scalar_type() in _FLOATS,
        f"\"GroupNormKernelImpl\" not implemented for '{X.scalar_type()}'",
    )
    if N * C == 0:
        return
    acc = numpy_dtype(opmath_type(X.scalar_type()))
    D = C // group
    x = _grouped(X, N, C, HxW, acc).reshape(N, group, D * HxW)
    if D * HxW:
        mean_val = np.mean(x, axis=2, dtype=acc)
        var = np.mean(np.square(x - mean_val[:, :, None]), axis=2, dtype=acc)
    else:
        mean_val = var = np.zeros((N, group), acc)
    rstd_val = (acc.type(1) / np.sqrt(np.maximum(var, 0) + acc.type(eps))).astype(acc)
    if HxW:
        # per (n, c): scale = rstd * gamma[c], bias = -scale * mean + beta[c]
        g = _param(gamma, C, acc, 1.0).reshape(group, D)
        scale = rstd_val[:, :, None] * g
        bias = -scale * mean_val[:, :, None] + _param(beta, C, acc, 0.0).reshape(group, D)
        y = x.reshape(N, group, D, HxW) * scale[..., None] + bias[..., None]
        Y.numpy_view()[...] = y.reshape(Y.sizes())
    mean.numpy_view()[...] = mean_val
    rstd.numpy_view()[...] = rstd_val


@native_function(SOURCE)
def native_group_norm(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    N: int,
    C: int,
    HxW: int,
    group: int,
    eps: float,
) -> tuple[Tensor, Tensor, Tensor]:
    X, gamma, beta = input, weight, bias
    check_group_norm_inputs(X, gamma, beta, C, group)
    TORCH_CHECK(X.is_contiguous(), "X.is_contiguous(memory_format)")
    Y = at.empty(list(X.sizes()), dtype=X.scalar_type(), device=X.device())
    dtype = _param_scalar_type(X, gamma, beta)
    mean = at.empty([N, group], dtype=dtype, device=X.device())
    rstd = at.empty([N, group], dtype=dtype, device=X.device())
    if Y.is_meta():  # Note [A meta tensor's kernel is no call]
        return Y, mean, rstd
    group_norm_kernel_impl(
        X,
        _contiguous_or_none(gamma),
        _contiguous_or_none(beta),
        N,
        C,
        HxW,
        group,
        eps,
        Y,
        mean,
        rstd,
    )
    return Y, mean, rstd


@native_function(SOURCE)
def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-05,
    cudnn_enabled: bool = True,
) -> Tensor:
    N = int(input.size(0))
    C = int(input.size(1))
    check_group_norm_inputs(input, weight, bias, C, num_groups)
    HxW = int(np.prod(list(input.sizes())[2:], dtype=np.int64))
    X = input.contiguous()
    gamma = weight.contiguous() if weight is not None and weight.defined() else None
    beta = bias.contiguous() if bias is not None and bias.defined() else None
    return at.native_group_norm(X, gamma, beta, N, C, HxW, num_groups, eps)[0]


# ---- backward ------------------------------------------------------------------------------------
@traced("kernel", "at::native::(anonymous)::GroupNormBackwardKernelImpl", KERNEL)
def group_norm_backward_kernel_impl(
    dY: Tensor,
    X: Tensor,
    mean: Tensor,
    rstd: Tensor,
    gamma: Tensor | None,
    N: int,
    C: int,
    HxW: int,
    group: int,
    dX: Tensor | None,
    dgamma: Tensor | None,
    dbeta: Tensor | None,
) -> None:
    """ds = sum(dy * x), db = sum(dy) per (n, c); with rstd and mean per (n, g):
    dx = rstd * gamma[c] * dy + c2 * x + c3, c2 = (db_g * mean - ds_g) * rstd^3 / (D * HxW),
    c3 = -c2 * mean - db_g * rstd / (D * HxW) where ds_g, db_g sum ds, db times gamma over the
    group's channels; dgamma[c] = sum_n (ds - db * mean) * rstd, dbeta[c] = sum_n db."""
    acc = numpy_dtype(opmath_type(X.scalar_type()))
    D = C // group
    dy = _grouped(dY, N, C, HxW, acc)
    x = _grouped(X, N, C, HxW, acc)
    mean_v = _stats(mean, N, group, acc)
    rstd_v = _stats(rstd, N, group, acc)
    ds = np.sum(dy * x, axis=2).reshape(N, group, D, 1)
    db = np.sum(dy, axis=2).reshape(N, group, D, 1)
    if dX is not None:
        g = _param(gamma, C, acc, 1.0).reshape(1, group, D, 1)
        s = acc.type(1.0 / (D * HxW)) if D * HxW else acc.type(0)
        ds_g = np.sum(ds * g, axis=2, keepdims=True)
        db_g = np.sum(db * g, axis=2, keepdims=True)
        c2 = (db_g * mean_v - ds_g) * rstd_v * rstd_v * rstd_v * s
        c3 = -c2 * mean_v - db_g * rstd_v * s
        dx = rstd_v * g * dy.reshape(N, group, D, HxW) + c2 * x.reshape(N, group, D, HxW) + c3
        dX.numpy_view()[...] = dx.reshape(dX.sizes())
    if dgamma is not None:
        dgamma.numpy_view()[...] = np.sum((ds - db * mean_v) * rstd_v, axis=0).reshape(C)
    if dbeta is not None:
        dbeta.numpy_view()[...] = np.sum(db, axis=0).reshape(C)


@native_function(SOURCE)
def native_group_norm_backward(
    grad_out: Tensor,
    input: Tensor,
    mean: Tensor,
    rstd: Tensor,
    weight: Tensor | None,
    N: int,
    C: int,
    HxW: int,
    group: int,
    output_mask: Sequence[bool],
) -> tuple[Tensor, Tensor, Tensor]:
    dY, X, gamma, grad_input_mask = grad_out, input, weight, output_mask

    def like_gamma() -> Tensor:
        # at::native::empty_like(gamma): an undefined gamma has no device (torch's error)
        TORCH_CHECK(gamma is not None and gamma.defined(), "tensor does not have a device")
        assert gamma is not None
        return at.empty([C], dtype=gamma.scalar_type(), device=gamma.device())

    dX = at.empty(list(X.sizes()), dtype=X.scalar_type(), device=X.device())
    dX = dX if grad_input_mask[0] else Tensor()
    dgamma = like_gamma() if grad_input_mask[1] else Tensor()
    dbeta = like_gamma() if grad_input_mask[2] else Tensor()
    if X.is_meta():  # Note [A meta tensor's kernel is no call]
        return dX, dgamma, dbeta
    group_norm_backward_kernel_impl(
        expect_contiguous(dY),
        expect_contiguous(X),
        mean,
        rstd,
        _contiguous_or_none(gamma),
        N,
        C,
        HxW,
        group,
        dX if dX.defined() else None,
        dgamma if dgamma.defined() else None,
        dbeta if dbeta.defined() else None,
    )
    return dX, dgamma, dbeta
