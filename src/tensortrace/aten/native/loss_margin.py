"""The margin and embedding losses of Loss.cpp: margin_ranking_loss, cosine_embedding_loss,
hinge_embedding_loss, triplet_margin_loss, poisson_nll_loss and soft_margin_loss (with its
backward).

Mirrors `aten/src/ATen/native/Loss.cpp`: each is a composite of at:: ops reduced by
apply_loss_reduction, so the trace shows the ops it is made of under its own frame
(`aten::cosine_embedding_loss > aten::mul, aten::sum ...`). soft_margin_loss and its backward
are CompositeExplicitAutograd with an out= variant doing the work in place, as in torch.
"""

from __future__ import annotations

import math

from tensortrace.aten import functions as at
from tensortrace.aten.native.loss import MEAN, NONE, apply_loss_reduction
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK

SOURCE = "aten/src/ATen/native/Loss.cpp"
EPSILON = 1e-12  # constexpr float EPSILON


def _scalar_sub(x: float, y: Tensor) -> Tensor:
    """C++'s `Scalar - Tensor` (TensorOperators.h): empty_like(y).fill_(x).sub_(y), so the
    result has y's dtype (an integer y truncates x)."""
    return at.empty_like(y).fill_(x).sub_(y)


@native_function(SOURCE)
def margin_ranking_loss(
    input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0, reduction: int = MEAN
) -> Tensor:
    # (-target * (input1 - input2) + margin).clamp_min_(0)
    diff = input1.sub(input2)
    output = target.neg().mul(diff).add(margin).clamp_min_(0)
    return apply_loss_reduction(output, reduction)


@native_function(SOURCE)
def cosine_embedding_loss(
    input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0, reduction: int = MEAN
) -> Tensor:
    targ_dim = target.dim()
    TORCH_CHECK(
        targ_dim == 1 or targ_dim == 0,
        "0D or 1D target tensor expected, multi-target not supported",
    )
    if targ_dim == 1:
        TORCH_CHECK(
            input1.dim() == 2 and input2.dim() == 2,
            "1D target tensor expects 2D input tensors, but found inputs with sizes ",
            list(input1.sizes()),
            " and ",
            list(input2.sizes()),
            ".",
        )
    else:
        TORCH_CHECK(
            input1.dim() == 1 and input2.dim() == 1,
            "0D target tensor expects 1D input tensors, but found inputs with sizes ",
            list(input1.sizes()),
            " and ",
            list(input2.sizes()),
            ".",
        )
    prod_sum = input1.mul(input2).sum([targ_dim])
    mag_square1 = input1.mul(input1).sum([targ_dim]).add(EPSILON)
    mag_square2 = input2.mul(input2).sum([targ_dim]).add(EPSILON)
    denom = mag_square1.mul(mag_square2).sqrt_()
    cos = prod_sum.div(denom)

    zeros = at.zeros_like(cos, memory_format="contiguous_format")
    pos = _scalar_sub(1, cos)
    neg = cos.sub(margin).clamp_min_(0)
    output_pos = at.where(target.eq(1), pos, zeros)
    output_neg = at.where(target.eq(-1), neg, zeros)
    output = output_pos.add(output_neg)
    return apply_loss_reduction(output, reduction)


@native_function(SOURCE)
def hinge_embedding_loss(
    self: Tensor, target: Tensor, margin: float = 1.0, reduction: int = MEAN
) -> Tensor:
    zeros = at.zeros_like(self, memory_format="contiguous_format")
    margin_clamp = _scalar_sub(margin, self).clamp_min_(0)
    output_margin = at.where(target.ne(1), margin_clamp, zeros)
    output_self = at.where(target.ne(-1), self, zeros)
    output = output_margin.add(output_self)
    return apply_loss_reduction(output, reduction)


@native_function(SOURCE)
def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2,
    eps: float = 1e-06,
    swap: bool = False,
    reduction: int = MEAN,
) -> Tensor:
    a_dim, p_dim, n_dim = anchor.dim(), positive.dim(), negative.dim()
    TORCH_CHECK(
        a_dim == p_dim and p_dim == n_dim,
        "The anchor, positive, and negative tensors are expected to have the same number of "
        "dimensions, but got: anchor ",
        a_dim,
        "D, positive ",
        p_dim,
        "D, and negative ",
        n_dim,
        "D inputs",
    )
    dist_pos = at.pairwise_distance(anchor, positive, p, eps)
    dist_neg = at.pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_swap = at.pairwise_distance(positive, negative, p, eps)
        dist_neg = at.min(dist_neg, dist_swap)
    output = at.clamp_min(dist_pos.add(margin).sub(dist_neg), 0)
    return apply_loss_reduction(output, reduction)


@native_function(SOURCE)
def poisson_nll_loss(
    input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float, reduction: int
) -> Tensor:
    # the operands in the order the C++ expressions evaluate them (right to left)
    if log_input:
        target_input = target.mul(input)
        loss = at.exp(input).sub(target_input)
    else:
        target_log = target.mul(at.log(input.add(eps)))
        loss = input.sub(target_log)
    if full:
        # target * log(target) - target + 0.5 * log(2 * pi * target)
        half_log = at.log(target.mul(2 * math.pi)).mul(0.5)
        stirling_term = target.mul(at.log(target)).sub(target).add(half_log)
        loss = loss.add_(stirling_term.masked_fill(target.le(1), 0))
    return apply_loss_reduction(loss, reduction)


# ---- soft_margin_loss: log(1 + exp(-input * target)) ---------------------------------------------
@native_function(SOURCE)
def soft_margin_loss_out(self: Tensor, target: Tensor, reduction: int, out: Tensor) -> Tensor:
    # compute inplace variant of: output = at::log1p(at::exp(-input * target));
    output = out
    at.neg(self, out=output).mul_(target).exp_().log1p_()
    if reduction != NONE:
        tmp = apply_loss_reduction(output, reduction)
        output.resize_([])
        output.copy_(tmp)
    return output


@native_function(SOURCE)
def soft_margin_loss(self: Tensor, target: Tensor, reduction: int = MEAN) -> Tensor:
    output = at.empty([0], dtype=self.scalar_type(), device=self.device())
    return at.soft_margin_loss(self, target, reduction, out=output)


@native_function(SOURCE)
def soft_margin_loss_backward_out(
    grad_output: Tensor, self: Tensor, target: Tensor, reduction: int, grad_input: Tensor
) -> Tensor:
    norm = 1.0 / self.numel() if reduction == MEAN else 1.0
    z = at.exp(target.neg().mul(self))
    # inplace version of: grad_input = -norm * target * z / (1. + z) * grad_output;
    at.mul(target, z, out=grad_input).mul_(-norm)
    z.add_(1)
    grad_input.div_(z).mul_(grad_output)
    return grad_input


@native_function(SOURCE)
def soft_margin_loss_backward(
    grad_output: Tensor, self: Tensor, target: Tensor, reduction: int
) -> Tensor:
    grad_input = at.empty([0], dtype=self.scalar_type(), device=self.device())
    at.soft_margin_loss_backward(grad_output, self, target, reduction, grad_input=grad_input)
    return grad_input
