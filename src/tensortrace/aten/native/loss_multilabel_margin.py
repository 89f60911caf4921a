"""multilabel_margin_loss: the composite and out= variant, multilabel_margin_loss_forward (which
also returns `is_target`, the mask of each frame's target classes) and its backward, on the CPU.

Mirrors `aten/src/ATen/native/LossMultiLabelMargin.cpp`. A frame's targets are the leading
entries of its target row up to the first negative one; the loss sums
max(0, 1 - input[target] + input[d]) over its targets and the classes d that are not targets,
divided by the number of classes. The frame sum accumulates in acc_type (double) in the loop's
order (targets outer, classes inner) and the gradient adds +-g once per active pair, as the
C++ loops do.
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.loss import MEAN, NONE
from tensortrace.aten.native.loss_multi_margin import (
    _check_floating,
    _data,
    multilabel_margin_loss_shape_check,
)
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor, expect_contiguous
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/LossMultiLabelMargin.cpp"


def _frame_targets(target_row: np.ndarray) -> np.ndarray:
    """The frame's target indices: the entries before the first negative one."""
    negative = np.nonzero(target_row < 0)[0]
    return target_row[: negative[0]] if negative.size else target_row


def _active_pairs(x: np.ndarray, targets: np.ndarray, is_target: np.ndarray) -> np.ndarray:
    """z = 1 - input[target] + input[d] for each (target, class), and where it counts."""
    z = 1 - x[targets][:, None] + x[None, :]
    return np.where((z > 0) & ~is_target.astype(bool)[None, :], z, 0).astype(x.dtype)


@traced("kernel", "at::native::(anonymous)::multilabel_margin_loss_forward_out_frame", SOURCE)
def multilabel_margin_loss_forward_out_frame(
    input: Tensor,
    target: Tensor,
    output: Tensor,
    is_target: Tensor,
    reduction: int,
    nframe: int,
    dim: int,
) -> None:
    x_all = input.numpy_view().reshape(nframe, dim)
    t_all = _data(target, ScalarType.Long).reshape(nframe, dim)
    is_t = is_target.numpy_view().reshape(nframe, dim)
    sdt = x_all.dtype.type
    sums = np.empty(nframe, sdt)
    for t in range(nframe):
        targets = _frame_targets(t_all[t])
        is_t[t, targets] = 1
        z = _active_pairs(x_all[t], targets, is_t[t])
        # accscalar_t sum in the loop's order, returned as scalar_t
        sums[t] = np.cumsum(z.reshape(-1), dtype=np.float64)[-1] if z.size else 0.0
    out = output.numpy_view()
    if reduction != NONE or output.dim() == 0:
        total = np.cumsum(sums.astype(np.float64))[-1] / dim
        if reduction == MEAN:
            total /= nframe
        out[...] = total
    else:
        out.reshape(-1)[...] = sums / sdt(dim)


def _check_target_range(target: Tensor, dim: int, arg: str) -> None:
    TORCH_CHECK(at.min(target).item() >= -1, arg, " is out of range")
    TORCH_CHECK(at.max(target).item() < (1 if dim == 0 else dim), arg, " is out of range")


@native_function(SOURCE)
def multilabel_margin_loss_forward_out_cpu(
    self: Tensor, target: Tensor, reduction: int, output: Tensor, is_target: Tensor
) -> tuple[Tensor, Tensor]:
    input = self
    nframe, dim = multilabel_margin_loss_shape_check(input, target)
    # special case target.dim() <= 1: produce scalar output for scalar inputs
    # even if reduction == Reduction::None
    output.resize_([] if reduction != NONE or target.dim() <= 1 else [nframe])
    is_target.resize_(list(target.sizes()))  # resize_as_, not declared here
    TORCH_CHECK(is_target.is_contiguous(), "is_target must be contiguous")
    is_target.zero_()
    if input.numel() == 0:
        return output, is_target
    _check_target_range(target, dim, "argument #2 'target'")
    _check_floating(input.scalar_type(), "multilabel_margin_loss_forward_out_frame")
    multilabel_margin_loss_forward_out_frame(
        expect_contiguous(input),
        expect_contiguous(target),
        output,
        is_target,
        reduction,
        nframe,
        dim,
    )
    return output, is_target


@native_function(SOURCE)
def multilabel_margin_loss_forward_cpu(
    self: Tensor, target: Tensor, reduction: int
) -> tuple[Tensor, Tensor]:
    output = at.empty([0], dtype=self.scalar_type(), device=self.device())
    is_target = at.empty([0], dtype=self.scalar_type(), device=self.device())
    return multilabel_margin_loss_forward_out_cpu(self, target, reduction, output, is_target)


@native_function(SOURCE)
def multilabel_margin_loss_out(self: Tensor, target: Tensor, reduction: int, out: Tensor) -> Tensor:
    is_target = at.empty([0], dtype=self.scalar_type(), device=self.device())
    return at.multilabel_margin_loss_forward(
        self, target, reduction, output=out, is_target=is_target
    )[0]


@native_function(SOURCE)
def multilabel_margin_loss(self: Tensor, target: Tensor, reduction: int = MEAN) -> Tensor:
    return at.multilabel_margin_loss_forward(self, target, reduction)[0]


# ---- backward ------------------------------------------------------------------------------------
@traced("kernel", "at::native::(anonymous)::multilabel_margin_loss_backward_out_frame", SOURCE)
def multilabel_margin_loss_backward_out_frame(
    grad_input: Tensor,
    grad_output: Tensor,
    input: Tensor,
    target: Tensor,
    reduction: int,
    is_target: Tensor,
    nframe: int,
    dim: int,
) -> None:
    arg = "argument #5 'is_target'"
    TORCH_CHECK(at.min(is_target).item() >= 0, arg, " is out of range")
    TORCH_CHECK(at.max(is_target).item() <= 1, arg, " is out of range")
    st = input.scalar_type()
    x_all = input.numpy_view().reshape(nframe, dim)
    t_all = _data(target, ScalarType.Long).reshape(nframe, dim)
    is_t = _data(is_target, st).reshape(nframe, dim)
    sdt = x_all.dtype.type
    g = sdt(1.0 / (nframe * dim)) if reduction == MEAN else sdt(1.0 / dim)
    # repeated += g in scalar_t: the value after k additions, for every k the loops can reach
    steps = np.concatenate(([sdt(0)], np.cumsum(np.full(dim * dim, g, sdt), dtype=sdt)))
    grad = np.zeros((nframe, dim), sdt)
    for t in range(nframe):
        targets = _frame_targets(t_all[t])
        active = _active_pairs(x_all[t], targets, is_t[t]) > 0
        minus = np.zeros(dim, np.int64)
        np.add.at(minus, targets, active.sum(axis=1))
        plus = active.sum(axis=0)
        grad[t] = np.where(minus > 0, -steps[minus], steps[plus])
    go = _data(grad_output, st)
    if reduction != NONE or grad_output.dim() == 0:
        grad = grad * go.reshape(-1)[0]
    else:
        TORCH_CHECK(
            grad_output.dim() == 1 and grad_output.size(0) == nframe,
            "Expected tensor to have size ",
            nframe,
            " at dimension 0, but got size ",
            grad_output.size(0),
            " for argument #1 'grad_output' (while checking arguments for ",
            "multilabel_margin_loss_backward_out_frame)",
        )
        grad = grad * go.reshape(nframe, 1)
    grad_input.numpy_view().reshape(nframe, dim)[...] = grad


@native_function(SOURCE)
def multilabel_margin_loss_backward_cpu_out(
    grad_output: Tensor,
    self: Tensor,
    target: Tensor,
    reduction: int,
    is_target: Tensor,
    grad_input: Tensor,
) -> Tensor:
    input = self
    nframe, dim = multilabel_margin_loss_shape_check(input, target)
    TORCH_CHECK(
        list(target.sizes()) == list(is_target.sizes()),
        "Expected tensor for argument #3 'target' to have same size as tensor for argument #5 "
        "'is_target'; but ",
        list(target.sizes()),
        " does not equal ",
        list(is_target.sizes()),
        " (while checking arguments for multilabel_margin_loss_backward_cpu_template)",
    )
    grad_input.resize_(list(input.sizes()))  # resize_as_, not declared here
    if grad_input.numel() == 0:
        return grad_input
    TORCH_CHECK(grad_input.is_contiguous(), "grad_input must be contiguous")
    grad_input.zero_()
    _check_target_range(target, dim, "argument #3 'target'")
    _check_floating(input.scalar_type(), "multilabel_margin_loss_backward_out_frame")
    multilabel_margin_loss_backward_out_frame(
        grad_input,
        grad_output,
        expect_contiguous(input),
        expect_contiguous(target),
        reduction,
        expect_contiguous(is_target),
        nframe,
        dim,
    )
    return grad_input


@native_function(SOURCE)
def multilabel_margin_loss_backward_cpu(
    grad_output: Tensor, self: Tensor, target: Tensor, reduction: int, is_target: Tensor
) -> Tensor:
    grad_input = at.zeros_like(self, memory_format="contiguous_format")
    return multilabel_margin_loss_backward_cpu_out(
        grad_output, self, target, reduction, is_target, grad_input
    )
