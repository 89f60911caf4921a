"""The FunctionsManual helpers of forward-mode formulas (derivatives.yaml's `result:` lines).

Mirrors the `*_jvp` functions and their helpers in `torch/csrc/autograd/FunctionsManual.cpp`:
cat_jvp, stack_jvp, logsumexp_jvp, apply_loss_reduction, gather_with_keepdimed_indices,
evenly_read_jvp, and the tangent half of VariableTypeManual.cpp's copy_ (copy_jvp).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

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


def amaxamin_jvp(
    x: Tensor, dx: Tensor, result: Tensor, dim: Sequence[int], keepdim: bool
) -> Tensor:
    """The mean of the tangent over the positions that hold the max (min) along `dim`."""
    from tensortrace.autograd.functions_manual_cumprod import restore_reduced_dims

    mask = x.eq(restore_reduced_dims(result, list(dim), keepdim))
    return at.where(mask, dx, 0.0).sum(list(dim), keepdim).div(mask.sum(list(dim), keepdim))


def norm_jvp(
    self_p: Tensor, self_t: Tensor, p_: Any, norm: Tensor, dim: Sequence[int], keepdim: bool
) -> Tensor:
    """FunctionsManual's norm_jvp: the p-norm's directional derivative, by p."""
    from tensortrace.autograd.functions_manual_views import unsqueeze_multiple

    ndim = self_p.dim()
    dims = list(dim)
    p = 2.0 if p_ is None else float(p_)
    if p == 0.0:
        return at.zeros_like(norm)
    if p == 1.0:
        return self_p.sgn().mul(self_t).sum(dims, keepdim)
    if p == 2.0:
        result = self_p.mul(self_t).sum(dims, keepdim)
        return result.div_(norm).masked_fill_(norm.eq(0), 0)
    if math.isinf(p):
        if not keepdim and ndim != 0:
            norm = unsqueeze_multiple(norm, dims, ndim)
        nan_both = self_p.isnan().logical_and_(norm.isnan())
        is_eq_max = self_p.abs().eq(norm).logical_or_(nan_both).type_as(norm)
        nb_max = is_eq_max.count_nonzero(dims)
        if ndim != 0:
            nb_max = unsqueeze_multiple(nb_max, dims, ndim)
        return self_p.sgn().mul(self_t).mul(is_eq_max).div(nb_max).sum(dims, keepdim)
    powed = self_p.abs().pow(p - 1)
    if p < 1.0:
        powed = powed.masked_fill_(self_p.eq(0), 0)
    sumpow_t = powed.mul(self_p.sgn().mul(self_t)).sum(dims, keepdim)
    return sumpow_t.mul(norm.pow(1 - p))


def linalg_vector_norm_jvp(
    self_p: Tensor, self_t: Tensor, ord: Any, norm: Tensor, dim: Any, keepdim: bool
) -> Tensor:
    return norm_jvp(self_p, self_t, ord, norm, [] if dim is None else dim, keepdim)


def convolution_jvp(
    input_p: Tensor,
    input_t: Tensor,
    weight_p: Tensor,
    weight_t: Tensor,
    bias_t: Any,
    stride: Any,
    padding: Any,
    dilation: Any,
    transposed: bool,
    output_padding: Any,
    groups: int,
) -> Tensor:
    """conv(x_t, w) + conv(x, w_t) + b_t: convolution is bilinear in (input, weight)."""
    bias = bias_t if isinstance(bias_t, Tensor) and bias_t.defined() else None
    args = (stride, padding, dilation, transposed, output_padding, groups)
    return at.convolution(input_t, weight_p, None, *args).add(
        at.convolution(input_p, weight_t, bias, *args)
    )


def _affine_terms(
    output_t: Tensor,
    normalized: Tensor,
    weight_p: Any,
    weight_t: Any,
    bias_t: Any,
    view_size: list[int],
) -> Tensor:
    if isinstance(weight_p, Tensor) and weight_p.defined():
        output_t = output_t.mul(weight_p.view(view_size))
    if isinstance(weight_t, Tensor) and weight_t.defined():
        output_t = output_t.add(normalized.mul(weight_t.view(view_size)))
    if isinstance(bias_t, Tensor) and bias_t.defined():
        output_t = output_t.add(bias_t.view(view_size))
    return output_t


def layer_norm_jvp(
    input_p: Tensor,
    input_t: Tensor,
    weight_p: Any,
    weight_t: Any,
    bias_p: Any,
    bias_t: Any,
    saved_mean: Tensor,
    saved_invstd: Tensor,
    normalized_shape: Sequence[int],
) -> Tensor:
    """d((x - mean) * invstd), invstd's tangent -invstd^3 * mean((x - mean) * (x_t - mean_t)),
    then the affine weight and bias."""
    view_size = list(input_t.sizes())
    view_size_affine = list(input_t.sizes())
    dims: list[int] = []
    numel = 1
    first = len(view_size) - len(normalized_shape)
    for i in range(len(view_size)):
        if i < first:
            view_size_affine[i] = 1
        else:
            numel *= input_t.size(i)
            view_size[i] = 1
            dims.append(i)
    mean_p = saved_mean.view(view_size)
    invstd_p = saved_invstd.view(view_size)
    centered_t = input_t.sub(input_t.mean(dims, True))
    centered_p = input_p.sub(mean_p)
    invstd_t = invstd_p.pow(3).neg().mul(centered_t.mul(centered_p).sum(dims, True)).div(numel)
    output_t = centered_t.mul(invstd_p).add(centered_p.mul(invstd_t))
    return _affine_terms(
        output_t, centered_p.mul(invstd_p), weight_p, weight_t, bias_t, view_size_affine
    )


def batch_norm_jvp(
    input_p: Tensor,
    input_t: Tensor,
    weight_p: Any,
    weight_t: Any,
    bias_p: Any,
    bias_t: Any,
    running_mean: Any,
    running_var: Any,
    saved_mean: Tensor,
    saved_invstd: Tensor,
    train: bool,
    eps: float,
) -> Tensor:
    """As layer_norm_jvp over every dim but the channels' in training; in eval the statistics
    are the running ones, constants."""
    view_size = list(input_t.sizes())
    dims: list[int] = []
    numel = 1
    for i in range(len(view_size)):
        if i != 1:
            numel *= input_t.size(i)
            view_size[i] = 1
            dims.append(i)
    if train:
        mean_p = saved_mean.view(view_size)
        invstd_p = saved_invstd.view(view_size)
        centered_t = input_t.sub(input_t.mean(dims, True))
        centered_p = input_p.sub(mean_p)
        invstd_t = invstd_p.pow(3).neg().mul(centered_t.mul(centered_p).sum(dims, True)).div(numel)
        result_t = centered_t.mul(invstd_p).add(centered_p.mul(invstd_t))
    else:
        mean_p = running_mean.view(view_size)
        invstd_p = running_var.add(eps).sqrt().reciprocal().view(view_size)
        centered_p = input_p.sub(mean_p)
        result_t = input_t.mul(invstd_p)
    return _affine_terms(result_t, centered_p.mul(invstd_p), weight_p, weight_t, bias_t, view_size)


def glu_jvp(glu: Tensor, x: Tensor, dx: Tensor, dim: int) -> Tensor:
    """glu = a * sigmoid(b): da * sigmoid(b) + glu * (1 - sigmoid(b)) * db."""
    from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim

    dim = maybe_wrap_dim(dim, x.dim())
    glu_size = glu.size(dim)
    b = x.narrow(dim, glu_size, glu_size)
    da = dx.narrow(dim, 0, glu_size)
    db = dx.narrow(dim, glu_size, glu_size)
    sig_b = b.sigmoid()
    return da.mul(sig_b).add(glu.mul(sig_b.neg().add(1)).mul(db))


def group_norm_jvp(
    input_p: Tensor,
    input_t: Tensor,
    weight_p: Any,
    weight_t: Any,
    bias_p: Any,
    bias_t: Any,
    saved_mean: Tensor,
    saved_invstd: Tensor,
    groups: int,
) -> Tensor:
    """batch_norm_jvp's training case over the input viewed as (1, N * groups, -1), then the
    per-channel affine terms."""
    shape = list(input_p.sizes())
    n = input_p.size(0)
    grouped = [1, n * groups, -1 if n else 1]
    input_p_r = input_p.reshape(grouped)
    result_t = batch_norm_jvp(
        input_p_r,
        input_t.reshape(grouped),
        None,
        None,
        None,
        None,
        None,
        None,
        saved_mean.reshape([-1]),
        saved_invstd.reshape([-1]),
        True,
        0.0,
    ).view(shape)
    view_size = [1] * input_t.dim()
    view_size[1] = input_t.size(1)
    stats = [1, n * groups, 1]
    normalized = (
        input_p_r.sub(saved_mean.reshape(stats)).mul(saved_invstd.reshape(stats)).view(shape)
    )
    return _affine_terms(result_t, normalized, weight_p, weight_t, bias_t, view_size)


def cumprod_jvp(self_t: Tensor, self_p: Tensor, result: Tensor, dim: int) -> Tensor:
    """sum_{j<=i} t_j / x_j * prod_{k<=i} x_k, with the zeros of x handled apart: past the
    first zero the product restarts from that zero's tangent."""
    gradient = self_t.div(self_p).cumsum(dim).mul(result)
    if self_p.dim() == 0:
        return gradient.masked_fill_(self_p.eq(0), self_t)
    mask_zeros = self_p.eq(0)
    mask_first_zero = mask_zeros.logical_and(mask_zeros.cumsum(dim).eq(1))
    new_grad = at.where(mask_first_zero, self_t, self_p).cumprod(dim)
    mask_after_first_zero = mask_first_zero.cumsum(dim)
    return at.where(mask_after_first_zero.ne(0), new_grad, gradient)
