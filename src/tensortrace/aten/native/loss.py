"""mse_loss (forward and backward) and binary_cross_entropy_with_logits.

Mirrors `aten/src/ATen/native/Loss.cpp`. TORCH_META_FUNC(mse_loss) builds a binary TensorIterator
over (input, target) and, when reducing, resizes the output to a scalar; TORCH_IMPL_FUNC
(mse_loss_out) squares the differences into a temporary (`Tensor loss` of the iterator) and
takes its mean or sum with at::mean_out / at::sum_out, so the trace shows aten::mean under
aten::mse_loss. binary_cross_entropy_with_logits is the composite
`(1 - target) * input - log_sigmoid(input)` (with pos_weight and weight), reduced by
apply_loss_reduction. The kernels are in native/cpu/loss_kernels.py.
"""

from __future__ import annotations

from tensortrace.aten import functions as at
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import (
    TensorIterator,
    TensorIteratorBase,
    TensorIteratorConfig,
)
from tensortrace.c10.exception import TORCH_INTERNAL_ASSERT

SOURCE = "aten/src/ATen/native/Loss.cpp"
HEADER = "aten/src/ATen/native/PointwiseOps.h"
NONE, MEAN, SUM = 0, 1, 2  # at::Reduction

mse_stub = DECLARE_DISPATCH("mse_stub", HEADER)
mse_backward_stub = DECLARE_DISPATCH("mse_backward_stub", HEADER)


def apply_loss_reduction(unreduced: Tensor, reduction: int) -> Tensor:
    """aten/src/ATen/native/Loss.h: mean or sum of the elementwise losses, or them."""
    if reduction == MEAN:
        return unreduced.mean()
    if reduction == SUM:
        return unreduced.sum()
    return unreduced


@meta_function("mse_loss", SOURCE)
def meta_mse_loss(it: TensorIteratorBase, input: Tensor, target: Tensor, reduction: int) -> None:
    it.build_borrowing_binary_op(it.maybe_get_output(), input, target)
    if reduction == NONE:
        return
    TORCH_INTERNAL_ASSERT(reduction in (MEAN, SUM))
    it.maybe_get_output().resize_([])


@impl_function("mse_loss_out", SOURCE, legacy="at::native::mse_loss_out")
def mse_loss_out(
    it: TensorIteratorBase, input: Tensor, target: Tensor, reduction: int, result: Tensor
) -> None:
    if reduction != NONE:
        loss = TensorIterator.borrowing_binary_op(Tensor(), input, target)
        mse_stub(loss.device_type(), loss)
        if reduction == MEAN:
            at.mean(loss.output(), [], out=result)
        else:
            at.sum(loss.output(), [], out=result)
    else:
        mse_stub(it.device_type(), it)


@native_function(SOURCE)
def mse_loss_backward_out(
    grad_output: Tensor, self: Tensor, target: Tensor, reduction: int, grad_input: Tensor
) -> Tensor:
    input = self
    norm = 2.0 / input.numel() if reduction == MEAN else 2.0
    it = TensorIterator()
    it.build(
        TensorIteratorConfig()
        .add_output(grad_input)
        .add_const_input(input)
        .add_const_input(target)
        .add_const_input(grad_output)
        .promote_inputs_to_common_dtype(True)
        .cast_common_dtype_to_outputs(True)
        .enforce_safe_casting_to_output(True)
    )
    mse_backward_stub(it.device_type(), it, norm)
    return grad_input


@native_function(SOURCE)
def mse_loss_backward(grad_output: Tensor, self: Tensor, target: Tensor, reduction: int) -> Tensor:
    input = self
    grad_input = at.zeros_like(input, memory_format="contiguous_format")
    return at.mse_loss_backward(grad_output, input, target, reduction, grad_input=grad_input)


@native_function(SOURCE)
def binary_cross_entropy_with_logits(
    self: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    pos_weight: Tensor | None = None,
    reduction: int = MEAN,
) -> Tensor:
    input = self
    log_sigmoid_input = at.log_sigmoid(input)
    if pos_weight is not None and pos_weight.defined():
        # pos_weight must broadcast, so this mul(target) is not in place
        log_weight = pos_weight.sub(1).mul(target).add_(1)
        log_sigmoid_input.mul_(log_weight)
    # (1 - target), as at::rsub is written for a Scalar self: empty_like + fill_(1) + sub_
    loss = at.empty_like(target).fill_(1).sub_(target).mul_(input).sub_(log_sigmoid_input)
    if weight is not None and weight.defined():
        loss.mul_(weight)
    return apply_loss_reduction(loss, reduction)
