"""The FunctionsManual helpers of forward-mode formulas (derivatives.yaml's `result:` lines).

Mirrors the `*_jvp` functions and their helpers in `torch/csrc/autograd/FunctionsManual.cpp`:
cat_jvp, stack_jvp, logsumexp_jvp, apply_loss_reduction, gather_with_keepdimed_indices,
evenly_read_jvp, and the tangent half of VariableTypeManual.cpp's copy_ (copy_jvp).
"""

from __future__ import annotations

from collections.abc import Sequence

from tensortrace.aten import functions as at
from tensortrace.aten.tensor_body import Tensor


def _fw_grad_or_zeros(t: Tensor) -> Tensor:
    from tensortrace.autograd.forward_grad import fw_grad

    tangent = fw_grad(t, 0)
    if tangent is not None:
        return tangent
    # _efficientzerotensor: tensortrace has no ZeroTensor, so real zeros
    return at.zeros(list(t.sizes()), dtype=t.scalar_type(), device=t.device())


def _any_fw_grad(tensors: Sequence[Tensor]) -> bool:
    from tensortrace.autograd.forward_grad import is_fw_grad_defined

    return any(is_fw_grad_defined(t) for t in tensors)


def cat_jvp(tensors: Sequence[Tensor], dim: int) -> Tensor:
    """The tangents (zeros where an input has none) concatenated as the inputs were."""
    if not _any_fw_grad(tensors):
        return Tensor()
    return at.cat([_fw_grad_or_zeros(t) for t in tensors], dim)


def stack_jvp(tensors: Sequence[Tensor], dim: int) -> Tensor:
    if not _any_fw_grad(tensors):
        return Tensor()
    return at.stack([_fw_grad_or_zeros(t) for t in tensors], dim)


def logsumexp_jvp(self_p: Tensor, self_t: Tensor, dim: Sequence[int], keepdim: bool) -> Tensor:
    """sum(exp(x) * x_t) / sum(exp(x)) over `dim`, with the exp-normalize trick."""
    if self_p.numel() > 0:
        self_p_exp = self_p.sub(at.amax(self_p, list(dim), True)).exp()
    else:  # amax fails on an empty tensor, where the value does not matter
        self_p_exp = self_p.exp()
    sumexp_p = self_p_exp.sum(list(dim), keepdim)
    self_p_exp = self_p_exp.mul(self_t)
    sumexp_t = self_p_exp.sum(list(dim), keepdim)
    return sumexp_t.div(sumexp_p)


def apply_loss_reduction(unreduced: Tensor, reduction: int) -> Tensor:
    """at::Reduction: None 0, Mean 1, Sum 2."""
    if reduction == 1:
        return unreduced.mean()
    if reduction == 2:
        return unreduced.sum()
    return unreduced


def gather_with_keepdimed_indices(
    input: Tensor, dim: int, indices: Tensor, keepdim: bool
) -> Tensor:
    full_indices = indices if keepdim else indices.unsqueeze(dim)
    out_fw_grad = at.gather(input, dim, full_indices)
    return out_fw_grad if keepdim else out_fw_grad.squeeze(dim)


def evenly_read_jvp(fw_grad: Tensor, input: Tensor, value: Tensor) -> Tensor:
    """max() / min(): the mean of the tangent over the positions that hold the extremum."""
    mask = input.eq(value)
    count = mask.sum()
    return mask.mul(fw_grad).sum().div(count)


def copy_jvp(self_t_raw: Tensor, src_t_raw: Tensor, self: Tensor) -> Tensor:
    """VariableTypeManual.cpp's copy_: the tangent of self becomes src's (in place when self
    has one, zeros when src has none), broadcast to self's sizes."""
    if self_t_raw.defined():
        return self_t_raw.copy_(src_t_raw) if src_t_raw.defined() else self_t_raw.fill_(0)
    if not src_t_raw.defined():
        return Tensor()
    if list(self.sizes()) != list(src_t_raw.sizes()):
        return src_t_raw.broadcast_to(list(self.sizes()))
    return src_t_raw.clone()
