"""l1_loss, binary_cross_entropy, smooth_l1_loss, huber_loss (each with its backward), kl_div.

Mirrors `aten/src/ATen/native/Loss.cpp`. l1_loss and kl_div are composites reduced by
apply_loss_reduction; binary_cross_entropy runs its kernel over the squeezed input and target
(with torch's range checks), multiplies by the weight and reduces in place; smooth_l1_loss is
structured as mse_loss is; huber_loss is not structured (torch's huber_loss and huber_loss_out
run the stub, then apply_loss_reduction). The kernels are in native/cpu/loss_kernel.py.
"""

from __future__ import annotations

from tensortrace.aten import functions as at
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.loss import MEAN, NONE, SUM, apply_loss_reduction
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import (
    TensorIterator,
    TensorIteratorBase,
    TensorIteratorConfig,
)
from tensortrace.c10.exception import TORCH_CHECK, TORCH_INTERNAL_ASSERT
from tensortrace.c10.scalar_type import isComplexType, isIntegralType

SOURCE = "aten/src/ATen/native/Loss.cpp"
HEADER = "aten/src/ATen/native/PointwiseOps.h"

smooth_l1_stub = DECLARE_DISPATCH("smooth_l1_stub", "aten/src/ATen/native/BinaryOps.h")
smooth_l1_backward_stub = DECLARE_DISPATCH("smooth_l1_backward_stub", HEADER)
huber_stub = DECLARE_DISPATCH("huber_stub", "aten/src/ATen/native/BinaryOps.h")
huber_backward_stub = DECLARE_DISPATCH("huber_backward_stub", HEADER)
binary_cross_entropy_stub = DECLARE_DISPATCH(
    "binary_cross_entropy_stub", "aten/src/ATen/native/Loss.cpp"
)
binary_cross_entropy_backward_stub = DECLARE_DISPATCH(
    "binary_cross_entropy_backward_stub", "aten/src/ATen/native/Loss.cpp"
)


@native_function(SOURCE)
def l1_loss(self: Tensor, target: Tensor, reduction: int = MEAN) -> Tensor:
    return apply_loss_reduction(self.sub(target).abs(), reduction)


@native_function(SOURCE)
def kl_div(self: Tensor, target: Tensor, reduction: int = MEAN, log_target: bool = False) -> Tensor:
    input = self
    TORCH_CHECK(
        not isComplexType(input.scalar_type()) and not isComplexType(target.scalar_type()),
        "kl_div: Complex inputs not supported.",
    )
    TORCH_CHECK(
        not isIntegralType(input.scalar_type(), True)
        and not isIntegralType(target.scalar_type(), True),
        "kl_div: Integral inputs not supported.",
    )
    if log_target:
        output = at.exp(target).mul(target.sub(input))
    else:
        output = at.xlogy(target, target).sub(target.mul(input))
    return apply_loss_reduction(output, reduction)


# ---- binary_cross_entropy ----------------------------------------------------------------------
@native_function(SOURCE)
def binary_cross_entropy_cpu(
    self: Tensor, target: Tensor, weight: Tensor | None = None, reduction: int = MEAN
) -> Tensor:
    input = self
    loss = at.empty_like(input)
    it = TensorIterator()
    it.build(
        TensorIteratorConfig()
        .add_output(at.squeeze(loss))
        .add_const_input(at.squeeze(input))
        .add_const_input(at.squeeze(target))
    )
    binary_cross_entropy_stub(it.device_type(), it)
    if weight is not None and weight.defined():
        loss.mul_(weight)
    if reduction != NONE:
        loss_reduced = apply_loss_reduction(loss, reduction)
        loss.resize_(list(loss_reduced.sizes())).copy_(loss_reduced)  # resize_as_
    return loss


@native_function(SOURCE)
def binary_cross_entropy_backward_cpu(
    grad_output: Tensor,
    self: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    reduction: int = MEAN,
) -> Tensor:
    input = self
    grad_input = at.empty_like(input)
    it = TensorIterator()
    it.build(
        TensorIteratorConfig()
        .add_output(at.squeeze(grad_input))
        .add_const_input(at.squeeze(grad_output))
        .add_const_input(at.squeeze(input))
        .add_const_input(at.squeeze(target))
    )
    binary_cross_entropy_backward_stub(it.device_type(), it)
    if weight is not None and weight.defined():
        grad_input.mul_(weight)
    if reduction == MEAN:
        grad_input.div_(input.numel())
    return grad_input


# ---- smooth_l1_loss ----------------------------------------------------------------------------
@meta_function("smooth_l1_loss", SOURCE)
def meta_smooth_l1_loss(
    it: TensorIteratorBase, input: Tensor, target: Tensor, reduction: int, beta: float
) -> None:
    TORCH_CHECK(beta >= 0, "smooth_l1_loss does not support negative values for beta.")
    it.build_borrowing_binary_op(it.maybe_get_output(), input, target)
    if reduction == NONE:
        return
    TORCH_INTERNAL_ASSERT(reduction in (MEAN, SUM))
    it.maybe_get_output().resize_([])


@impl_function("smooth_l1_loss_out", SOURCE)
def smooth_l1_loss_out(
    it: TensorIteratorBase,
    input: Tensor,
    target: Tensor,
    reduction: int,
    beta: float,
    result: Tensor,
) -> None:
    if reduction != NONE:
        loss = TensorIterator.borrowing_binary_op(Tensor(), input, target)
        smooth_l1_stub(loss.device_type(), loss, beta)
        if reduction == MEAN:
            at.mean(loss.output(), [], out=result)
        else:
            at.sum(loss.output(), [], out=result)
    else:
        smooth_l1_stub(it.device_type(), it, beta)


@native_function(SOURCE)
def smooth_l1_loss_backward_out(
    grad_output: Tensor,
    self: Tensor,
    target: Tensor,
    reduction: int,
    beta: float,
    grad_input: Tensor,
) -> Tensor:
    input = self
    norm = 1.0 / input.numel() if reduction == MEAN else 1.0
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
    smooth_l1_backward_stub(it.device_type(), it, norm, beta)
    return grad_input


@native_function(SOURCE)
def smooth_l1_loss_backward(
    grad_output: Tensor, self: Tensor, target: Tensor, reduction: int, beta: float
) -> Tensor:
    grad_input = at.zeros_like(self, memory_format="contiguous_format")
    return at.smooth_l1_loss_backward(
        grad_output, self, target, reduction, beta, grad_input=grad_input
    )


# ---- huber_loss ---------------------------------------------------------------------------------
def _check_delta(delta: float) -> None:
    TORCH_CHECK(delta > 0, "huber_loss does not support non-positive values for delta.")


@native_function(SOURCE)
def huber_loss(self: Tensor, target: Tensor, reduction: int = MEAN, delta: float = 1.0) -> Tensor:
    _check_delta(delta)
    loss = at.empty_like(self)
    it = TensorIterator.borrowing_binary_op(loss, self, target)
    huber_stub(it.device_type(), it, delta)
    return apply_loss_reduction(loss, reduction)


@native_function(SOURCE)
def huber_loss_out(
    self: Tensor, target: Tensor, reduction: int, delta: float, out: Tensor
) -> Tensor:
    _check_delta(delta)
    it = TensorIterator.borrowing_binary_op(out, self, target)
    huber_stub(it.device_type(), it, delta)
    if reduction != NONE:
        reduced = apply_loss_reduction(out, reduction)
        out.resize_([])
        out.copy_(reduced)
    return out


@native_function(SOURCE)
def huber_loss_backward_out(
    grad_output: Tensor,
    self: Tensor,
    target: Tensor,
    reduction: int,
    delta: float,
    grad_input: Tensor,
) -> Tensor:
    norm = 1.0 / self.numel() if reduction == MEAN else 1.0
    it = TensorIterator()
    it.build(
        TensorIteratorConfig()
        .add_output(grad_input)
        .add_const_input(self)
        .add_const_input(target)
        .add_const_input(grad_output)
    )
    huber_backward_stub(it.device_type(), it, norm, delta)
    return grad_input


@native_function(SOURCE)
def huber_loss_backward(
    grad_output: Tensor, self: Tensor, target: Tensor, reduction: int, delta: float
) -> Tensor:
    grad_input = at.zeros_like(self, memory_format="contiguous_format")
    return at.huber_loss_backward(
        grad_output, self, target, reduction, delta, grad_input=grad_input
    )
