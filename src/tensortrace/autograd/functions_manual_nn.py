"""The backward helpers of torch.nn's formulas: softmax, mse_loss, soft_margin_loss,
binary_cross_entropy_with_logits, silu, mish, elu, convolution, max_pool, embedding and
_trilinear (bilinear).

Mirrors the nn section of `torch/csrc/autograd/FunctionsManual.cpp` (softmax_double_backward,
mse_loss_double_backward, binary_cross_entropy_with_logits_backward, ...).
functions_manual.py imports them into the formulas' namespace.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tensortrace.aten import functions as at
from tensortrace.aten.tensor_body import Tensor


def softmax_double_backward(grad: Tensor, grad_output: Tensor, dim: int, output: Tensor) -> Tensor:
    """grad * grad_output - output * grad * grad_output summed over dim, minus grad_output's."""
    return (
        grad_output.mul(grad)
        .sub(output.mul(grad_output).sum([dim], True).mul(grad))
        .sub(grad_output.mul(output.mul(grad).sum([dim], True)))
    )


def mse_loss_double_backward(grad: Tensor, input: Tensor, reduction: int) -> Tensor:
    """d(mse_loss_backward)/d(input): 2 * grad (divided by numel for 'mean')."""
    grad_input = grad.mul(2)
    if reduction == 1:  # at::Reduction::Mean
        grad_input = grad_input.div(input.numel())
    return grad_input


def soft_margin_loss_double_backward(
    grad: Tensor, input: Tensor, target: Tensor, reduction: int
) -> Tensor:
    """d(soft_margin_loss_backward)/d(input): grad * target^2 * z / (z + 1)^2, z = exp(-input *
    target) (divided by numel for 'mean')."""
    z = input.mul(target.neg()).exp()
    zplus1 = z.add(1)
    grad_input = grad.mul(target.mul(target)).mul(z).div(zplus1.mul(zplus1))
    if reduction == 1:  # at::Reduction::Mean
        grad_input = grad_input.div(input.numel())
    return grad_input


def soft_margin_loss_double_backward_grad_output(
    grad: Tensor, grad_output: Tensor, input: Tensor, target: Tensor, reduction: int
) -> Tensor:
    """d(soft_margin_loss_backward)/d(grad_output)."""
    if reduction == 0:  # at::Reduction::None
        return at.soft_margin_loss_backward(grad, input, target, reduction)
    r = at.soft_margin_loss_backward(at.ones_like(grad_output), input, target, reduction)
    return r.mul(grad).sum()


def binary_cross_entropy_with_logits_backward(
    grad: Tensor,
    input: Tensor,
    target: Tensor,
    weight: Tensor | None,
    pos_weight: Tensor | None,
    reduction: int,
) -> Tensor:
    """(sigmoid(x) - y) (with pos_weight: (1 + (p - 1) y) sigmoid(x) - p y) * grad * weight."""
    if pos_weight is not None and pos_weight.defined():
        # pos_weight may need broadcasting, so mul(target) is not in place
        t = pos_weight.mul(target)
        grad_input = t.add(1).sub_(target).mul_(input.sigmoid()).sub_(t)
    else:
        grad_input = input.sigmoid().sub_(target)
    grad_input.mul_(grad)
    if weight is not None and weight.defined():
        grad_input.mul_(weight)
    if reduction == 1:  # at::Reduction::Mean
        grad_input.div_(input.numel())
    return grad_input


def binary_cross_entropy_with_logits_target_backward(
    grad: Tensor,
    self: Tensor,
    target: Tensor,
    weight: Tensor | None,
    pos_weight: Tensor | None,
    reduction: int,
) -> Tensor:
    if pos_weight is not None and pos_weight.defined():
        grad_target = at.log_sigmoid(self.neg()).sub_(at.log_sigmoid(self).mul_(pos_weight))
    else:
        grad_target = self.neg()
    grad_target = grad_target.mul(grad)
    if weight is not None and weight.defined():
        grad_target.mul_(weight)
    if reduction == 1:  # at::Reduction::Mean
        grad_target.div_(target.numel())
    return grad_target


def infinitely_differentiable_silu_backward(grad_output: Tensor, input: Tensor) -> Tensor:
    """silu's derivative from differentiable ops (the formula with grad mode on)."""
    sigmoid = input.sigmoid()
    return grad_output.mul(sigmoid).mul(input.mul(sigmoid.neg().add(1)).add(1))


def infinitely_differentiable_mish_backward(grad_output: Tensor, input: Tensor) -> Tensor:
    """mish's derivative from differentiable ops (the formula with grad mode on)."""
    sigmoid = input.sigmoid()
    softplus = input.exp().log1p()
    tanh_softplus = softplus.tanh()
    return grad_output.mul(
        tanh_softplus.add(input.mul(sigmoid).mul(tanh_softplus.mul(tanh_softplus).neg().add(1)))
    )


def elu_double_backward(
    grad: Tensor,
    grad_output: Tensor,
    alpha: Any,
    scale: Any,
    input_scale: Any,
    is_result: bool,
    self_or_result: Tensor,
) -> Tensor:
    """FunctionsManual.cpp: d(elu_backward)/d(self_or_result), nonzero where it is < 0."""
    negative = self_or_result.lt(0).type_as(grad)
    if is_result:
        return grad.mul(grad_output).mul(input_scale).mul(negative)
    return at.elu_backward(
        grad.mul(grad_output).mul(input_scale), alpha, scale, input_scale, is_result, self_or_result
    ).mul(negative)


def conv_bias_sizes(weight: Tensor, transposed: bool = False, groups: int = 1) -> list[int]:
    """bias->sym_sizes() of convolution's formula: a defined bias has one entry per output
    channel (weight's first dim, or weight.size(1) * groups for a transposed convolution's
    (in, out / groups, ...) weight), which is all convolution_backward reads of it."""
    return [weight.size(1) * groups] if transposed else [weight.size(0)]


def max_pool_double_backward(grad: Tensor, indices: Tensor, dim: int) -> Tensor:
    """FunctionsManual.cpp: gather grad at the argmax of each window (flattened spatial dims)."""
    size = list(indices.sizes())[: indices.dim() - dim] + [-1]
    return grad.view(size).gather(-1, indices.view(size)).view(list(indices.sizes()))


def embedding_dense_double_backward_symint(
    grad: Tensor, indices: Tensor, padding_idx: int
) -> Tensor:
    """The rows of grad the indices picked (the first backward already scaled them by
    frequency), zero where the index is padding_idx, in the shape indices + [-1]."""
    gg_weight = grad.index_select(0, indices.reshape([-1]))
    size = [*indices.sizes(), -1]
    if padding_idx >= 0:
        gg_weight.masked_fill_(indices.eq(padding_idx).reshape([-1, 1]), 0)
    return gg_weight.view(size)


def binary_cross_entropy_target_backward(
    grad: Tensor, self: Tensor, target: Tensor, weight: Tensor | None, reduction: int
) -> Tensor:
    """FunctionsManual.cpp: -logit(self) * grad (* weight, / numel for a mean); logit(x) is
    log(x / (1 - x)) here, tensortrace having no aten::logit."""
    grad_target = self.div(self.neg().add(1)).log().neg_().mul_(grad)
    if weight is not None and weight.defined():
        grad_target = grad_target.mul_(weight)
    if reduction == 1:
        grad_target.div_(target.numel())
    return grad_target


def constant_pad_nd_backward(grad: Tensor, pad: Sequence[int]) -> Tensor:
    """FunctionsManual.cpp: the gradient is grad padded by the negated pads, i.e. narrowed back
    to the input's extent (constant_pad_nd's all-non-positive path: narrow, then clone)."""
    return at.constant_pad_nd(grad, [-p for p in pad], 0)


def _trilinear_backward(
    grad_out: Tensor | None,
    i1: Tensor,
    i2: Tensor,
    i3: Tensor,
    expand1: Sequence[int],
    expand2: Sequence[int],
    expand3: Sequence[int],
    sumdim: Sequence[int],
    grad_mask: Sequence[bool],
) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    """Each input's gradient is _trilinear of the gradient and the other two inputs, the
    input's expand list and sumdim swapping roles."""
    grad_i1 = grad_i2 = grad_i3 = None
    if grad_out is not None and grad_out.defined():
        if grad_mask[0]:
            grad_i1 = at._trilinear(grad_out, i2, i3, sumdim, expand2, expand3, expand1)
        if grad_mask[1]:
            grad_i2 = at._trilinear(i1, grad_out, i3, expand1, sumdim, expand3, expand2)
        if grad_mask[2]:
            grad_i3 = at._trilinear(i1, i2, grad_out, expand1, expand2, sumdim, expand3)
    return grad_i1, grad_i2, grad_i3
