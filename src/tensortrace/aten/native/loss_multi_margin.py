"""multi_margin_loss and multilabel_margin_loss, forward and backward, on the CPU.

Mirrors `aten/src/ATen/native/LossMultiMargin.cpp`, `LossMultiLabelMargin.cpp` and their shape
checks in `LossMulti.h`. The C++ kernels walk the frames (rows) and classes in order, summing
per frame in scalar_t and over frames in acc_type (double); here each frame's walk is NumPy over
the row, and the sums are cumulative sums taken in the kernel's order and type, so the rounding
is the loop's. Targets are read as int64 (`data_ptr<int64_t>`: any other dtype is refused).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.loss import MEAN, NONE
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor, expect_contiguous
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar_type import ScalarType
from tensortrace.trace import traced

MULTI_MARGIN = "aten/src/ATen/native/LossMultiMargin.cpp"
MULTILABEL = "aten/src/ATen/native/LossMultiLabelMargin.cpp"
LOSS_MULTI_H = "aten/src/ATen/native/LossMulti.h"


def _data(t: Tensor, st: ScalarType) -> np.ndarray:
    """t.const_data_ptr<scalar_t>(): the dtype must be the one asked for."""
    TORCH_CHECK(t.scalar_type() == st, "expected scalar type ", st, " but found ", t.scalar_type())
    return t.numpy_view()


def _check_floating(st: ScalarType, name: str) -> None:
    # AT_DISPATCH_FLOATING_TYPES
    TORCH_CHECK_NOT_IMPLEMENTED(
        st in (ScalarType.Float, ScalarType.Double), f"\"{name}\" not implemented for '{st}'"
    )


def _frames(input: Tensor) -> tuple[int, int]:
    ndims = input.dim()
    TORCH_CHECK(
        (ndims == 2 and input.size(1) != 0) or (ndims == 1 and input.size(0) != 0) or ndims == 0,
        "Expected non-empty vector or matrix with optional 0-dim batch size, but got: ",
        list(input.sizes()),
    )
    if ndims <= 1:
        return 1, 1 if ndims == 0 else input.size(0)
    return input.size(0), input.size(1)


@traced("native", "at::native::multi_margin_loss_shape_check", LOSS_MULTI_H)
def multi_margin_loss_shape_check(
    input: Tensor, target: Tensor, weight: Tensor | None
) -> tuple[int, int]:
    nframe, dim = _frames(input)
    TORCH_CHECK(
        target.dim() <= 1 and target.numel() == nframe,
        "multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
        "samples (batch size). Expected target size [",
        nframe,
        "], but got ",
        list(target.sizes()),
        ". Input has shape ",
        list(input.sizes()),
        ".",
    )
    if weight is not None and weight.defined():
        TORCH_CHECK(
            weight.dim() <= 1 and weight.numel() == dim,
            "inconsistent weight size, expected ",
            dim,
            " but got ",
            list(weight.sizes()),
        )
    return nframe, dim


@traced("native", "at::native::multilabel_margin_loss_shape_check", LOSS_MULTI_H)
def multilabel_margin_loss_shape_check(input: Tensor, target: Tensor) -> tuple[int, int]:
    nframe, dim = _frames(input)
    if input.dim() <= 1:
        ok = target.dim() <= 1 and target.numel() == dim
    else:
        ok = target.dim() == 2 and target.size(0) == nframe and target.size(1) == dim
    TORCH_CHECK(
        ok,
        "inconsistent target size: ",
        list(target.sizes()),
        " for input of size: ",
        list(input.sizes()),
    )
    return nframe, dim


# ---- multi_margin_loss ---------------------------------------------------------------------------
def _target_index_checked(idx: np.ndarray, dim: int) -> np.ndarray:
    # target_index_checked: the first frame out of range stops the loop
    TORCH_CHECK(bool(((idx >= 0) & (idx < dim)).all()), "target out of range")
    return idx


def _margin_terms(
    x: np.ndarray, idx: np.ndarray, margin: Any, dim: int
) -> tuple[np.ndarray, np.ndarray]:
    """z = margin - input[target] + input[d] per (frame, class), and whether it counts (z > 0,
    d != target)."""
    rows = np.arange(x.shape[0])
    z = margin - x[rows, idx][:, None] + x
    active = z > 0
    active[rows, idx] = False
    return z, active


@traced("kernel", "at::native::(anonymous)::multi_margin_loss_cpu_kernel", MULTI_MARGIN)
def multi_margin_loss_cpu_kernel(
    output: Tensor,
    input: Tensor,
    target: Tensor,
    p: int,
    margin: Any,
    weight: Tensor | None,
    nframe: int,
    dim: int,
    reduction: int,
) -> None:
    st = input.scalar_type()
    x = input.numpy_view().reshape(nframe, dim)
    sdt = x.dtype.type
    target_data = _data(target, ScalarType.Long).reshape(-1)
    w = _data(weight, st).reshape(-1) if weight is not None else None
    idx = _target_index_checked(target_data, dim)
    z, active = _margin_terms(x, idx, sdt(margin), dim)
    h = np.where(active, z if p == 1 else z * z, sdt(0)).astype(sdt)
    if w is not None:
        h = np.where(active, h * w[idx][:, None], h).astype(sdt)
    inner = np.cumsum(h, axis=1, dtype=sdt)[:, -1] / sdt(dim)  # sum in scalar_t, then /= dim
    out = output.numpy_view()
    if reduction == NONE and output.dim() > 0:
        out.reshape(-1)[...] = inner
        return
    total = np.cumsum(inner.astype(np.float64))[-1]  # accscalar_t sum over the frames
    if reduction == MEAN:
        total /= nframe
    out[...] = total


def multi_margin_loss_out_cpu_template(
    output: Tensor,
    input: Tensor,
    target: Tensor,
    p: int,
    margin: Any,
    weight: Tensor | None,
    reduction: int,
) -> None:
    TORCH_CHECK(p == 1 or p == 2, "only p == 1 and p == 2 supported")
    nframe, dim = multi_margin_loss_shape_check(input, target, weight)
    # produce a scalar output for 1d input
    output.resize_([nframe] if reduction == NONE and target.dim() > 0 else [])
    if input.numel() == 0:
        return
    _check_floating(input.scalar_type(), "multi_margin_loss_cpu_kernel")
    weight_contiguous = (
        expect_contiguous(weight) if weight is not None and weight.defined() else None
    )
    multi_margin_loss_cpu_kernel(
        output,
        expect_contiguous(input),
        expect_contiguous(target),
        p,
        margin,
        weight_contiguous,
        nframe,
        dim,
        reduction,
    )


@native_function(MULTI_MARGIN)
def multi_margin_loss_cpu_out(
    self: Tensor,
    target: Tensor,
    p: Any,
    margin: Any,
    weight: Tensor | None,
    reduction: int,
    out: Tensor,
) -> Tensor:
    multi_margin_loss_out_cpu_template(out, self, target, int(p), margin, weight, reduction)
    return out


@native_function(MULTI_MARGIN)
def multi_margin_loss_cpu(
    self: Tensor,
    target: Tensor,
    p: Any = 1,
    margin: Any = 1,
    weight: Tensor | None = None,
    reduction: int = MEAN,
) -> Tensor:
    output = at.empty([0], dtype=self.scalar_type(), device=self.device())
    multi_margin_loss_out_cpu_template(output, self, target, int(p), margin, weight, reduction)
    return output


@traced("kernel", "at::native::(anonymous)::multi_margin_loss_backward_cpu_kernel", MULTI_MARGIN)
def multi_margin_loss_backward_cpu_kernel(
    grad_input: Tensor,
    grad_output: Tensor,
    input: Tensor,
    target: Tensor,
    p: int,
    margin: Any,
    weight: Tensor | None,
    nframe: int,
    dim: int,
    reduction: int,
) -> None:
    st = input.scalar_type()
    x = input.numpy_view().reshape(nframe, dim)
    sdt = x.dtype.type
    g = sdt(1.0 / (nframe * dim)) if reduction == MEAN else sdt(1.0 / dim)
    target_data = _data(target, ScalarType.Long).reshape(-1)
    w = _data(weight, st).reshape(-1) if weight is not None else None
    idx = _target_index_checked(target_data, dim)
    z, active = _margin_terms(x, idx, sdt(margin), dim)
    h = np.where(active, g if p == 1 else sdt(2) * g * z, sdt(0)).astype(sdt)
    if w is not None:
        h = np.where(active, h * w[idx][:, None], h).astype(sdt)
    rows = np.arange(nframe)
    grad = h.copy()
    grad[rows, idx] = -np.cumsum(h, axis=1, dtype=sdt)[:, -1]  # grad_input_target -= h
    go = _data(grad_output, st)
    if reduction != NONE or grad_output.dim() == 0:
        grad = grad * go.reshape(-1)[0]
    else:
        grad = grad * go.reshape(nframe, 1)
    grad_input.numpy_view().reshape(nframe, dim)[...] = grad


def multi_margin_loss_backward_out_cpu_template(
    grad_input: Tensor,
    grad_output: Tensor,
    input: Tensor,
    target: Tensor,
    p: int,
    margin: Any,
    weight: Tensor | None,
    reduction: int,
) -> None:
    TORCH_CHECK(p == 1 or p == 2, "only p == 1 and p == 2 supported")
    nframe, dim = multi_margin_loss_shape_check(input, target, weight)
    grad_input.resize_(list(input.sizes()))  # resize_as_, not declared here
    TORCH_CHECK(grad_input.is_contiguous(), "grad_input must be contiguous")
    if input.numel() == 0:
        return
    _check_floating(input.scalar_type(), "multi_margin_loss_backward_cpu_kernel")
    weight_contiguous = (
        expect_contiguous(weight) if weight is not None and weight.defined() else None
    )
    multi_margin_loss_backward_cpu_kernel(
        grad_input,
        grad_output,
        expect_contiguous(input),
        expect_contiguous(target),
        p,
        margin,
        weight_contiguous,
        nframe,
        dim,
        reduction,
    )


@native_function(MULTI_MARGIN)
def multi_margin_loss_cpu_backward(
    grad_output: Tensor,
    self: Tensor,
    target: Tensor,
    p: Any,
    margin: Any,
    weight: Tensor | None = None,
    reduction: int = MEAN,
) -> Tensor:
    grad_input = at.empty([0], dtype=self.scalar_type(), device=self.device())
    multi_margin_loss_backward_out_cpu_template(
        grad_input, grad_output, self, target, int(p), margin, weight, reduction
    )
    return grad_input


@native_function(MULTI_MARGIN)
def multi_margin_loss_cpu_backward_out(
    grad_output: Tensor,
    self: Tensor,
    target: Tensor,
    p: Any,
    margin: Any,
    weight: Tensor | None,
    reduction: int,
    grad_input: Tensor,
) -> Tensor:
    multi_margin_loss_backward_out_cpu_template(
        grad_input, grad_output, self, target, int(p), margin, weight, reduction
    )
    return grad_input
