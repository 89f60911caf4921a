"""The negative log-likelihood loss and cross_entropy_loss, which is log_softmax + nll_loss.

Mirrors `aten/src/ATen/native/LossNLL.cpp`: TORCH_META_FUNC(nll_loss_forward) checks the
shapes and declares (output, total_weight); nll_loss_out_frame walks the batch, raising
IndexError for a target out of [0, n_classes) and skipping ignore_index, and for 'mean' divides
the summed loss by the summed weights. nll_loss_nd (what F.nll_loss calls) checks the batch
sizes and picks nll_loss for 1D/2D input; cross_entropy_loss_symint is log_softmax over the
class dim then nll_loss_nd, or, for class-probability targets and label smoothing, the
composite formulas of cross_entropy_loss_prob_target / _label_smoothing.

at::Reduction (aten/src/ATen/core/Reduction.h): None = 0, Mean = 1, Sum = 2.
"""

from __future__ import annotations

from typing import TypeGuard

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.native.resize import resize_output
from tensortrace.aten.tensor_body import Tensor, expect_contiguous
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.exception import (
    TORCH_CHECK,
    TORCH_CHECK_INDEX,
    TORCH_CHECK_NOT_IMPLEMENTED,
    TORCH_CHECK_VALUE,
)
from tensortrace.c10.scalar_type import ScalarType, isFloatingType
from tensortrace.c10.tensor_options import TensorOptions
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/LossNLL.cpp"
NONE, MEAN, SUM = 0, 1, 2  # at::Reduction
_FLOATS = (ScalarType.Float, ScalarType.Double, ScalarType.Half, ScalarType.BFloat16)


def _defined(t: Tensor | None) -> TypeGuard[Tensor]:
    return t is not None and t.defined()


def _check_target(target: Tensor) -> None:
    TORCH_CHECK(
        target.scalar_type() in (ScalarType.Long, ScalarType.Byte),
        "expected target dtype to be Long or Byte, but got ",
        target.scalar_type(),
    )


def _check_nll_shapes(self: Tensor, target: Tensor) -> None:
    TORCH_CHECK(0 < self.dim() <= 2, "input tensor should be 1D or 2D")
    TORCH_CHECK(target.dim() <= 1, "0D or 1D target tensor expected, multi-target not supported")
    if self.dim() == 1 and target.dim() == 1:
        # one sample without a batch dim: its target may be [c] as well as c
        TORCH_CHECK_VALUE(
            target.size(0) == 1,
            "For 1D input, 1D target must have size 1, but got target size: ",
            target.size(0),
        )
    no_batch_dim = self.dim() == 1
    TORCH_CHECK(
        no_batch_dim or self.size(0) == target.size(0),
        "size mismatch (got input: ",
        self.sizes(),
        ", target: ",
        target.sizes(),
        ")",
    )


@meta_function("nll_loss_forward", SOURCE)
def meta_nll_loss_forward(
    it: TensorIteratorBase,
    self: Tensor,
    target: Tensor,
    weight: Tensor | None,
    reduction: int,
    ignore_index: int,
) -> None:
    _check_nll_shapes(self, target)
    _check_target(target)
    n_classes = self.size(-1)
    TORCH_CHECK(
        not _defined(weight) or (weight.dim() == 1 and weight.numel() == n_classes),
        "weight tensor should be defined either for all ",
        n_classes,
        " classes or no classes but got weight tensor of shape: ",
        weight.sizes() if _defined(weight) else [],
    )
    options = TensorOptions(self.scalar_type(), self.device())
    if reduction == NONE and self.dim() == 2:
        it.set_output_raw_strided(0, [self.size(0)], (), options)
    else:
        it.set_output_raw_strided(0, [], (), options)  # a scalar when reducing or 1D input
    it.set_output_raw_strided(1, [], (), options)


@traced("kernel", "at::native::(anonymous)::nll_loss_out_frame", SOURCE)
def nll_loss_out_frame(
    output: Tensor,
    total_weight: Tensor,
    input: Tensor,
    target: Tensor,
    weight: Tensor | None,
    reduction: int,
    ignore_index: int,
) -> None:
    TORCH_CHECK_NOT_IMPLEMENTED(
        input.scalar_type() in _FLOATS,
        '"nll_loss_out_frame" not implemented for \'',
        input.scalar_type(),
        "'",
    )
    n_classes = input.size(-1)
    w = expect_contiguous(weight).numpy_view() if _defined(weight) else None
    x = input.numpy_view()
    acc = (
        np.float32
        if input.scalar_type() in (ScalarType.Half, ScalarType.BFloat16)
        else x.dtype.type
    )
    t = target.numpy_view().astype(np.int64).reshape(-1)

    def check(values: np.ndarray) -> None:
        bad = values[(values != ignore_index) & ((values < 0) | (values >= n_classes))]
        TORCH_CHECK_INDEX(
            bad.size == 0, "Target ", int(bad[0]) if bad.size else 0, " is out of bounds."
        )

    if reduction == NONE and input.dim() == 2:
        resize_output(output, [input.size(0)])
        check(t)
        keep = t != ignore_index
        safe = np.where(keep, t, 0)
        picked = x[np.arange(len(t)), safe].astype(acc)
        cur_w = w[safe].astype(acc) if w is not None else np.ones_like(picked)
        output.numpy_view()[...] = np.where(keep, -picked * cur_w, 0)
        total_weight.zero_()
        return
    resize_output(output, [])
    if target.numel() == 0:
        # a mean over no elements is NaN (pytorch#64572), a sum is 0
        output.fill_(float("nan") if reduction == MEAN else 0)
        total_weight.zero_()
        return
    rows = x.reshape(1, -1) if input.dim() == 1 else x
    check(t)
    keep = t != ignore_index
    safe = np.where(keep, t, 0)
    picked = rows[np.arange(len(t)), safe].astype(acc)[keep]
    if w is not None:
        cur_w = w[safe].astype(acc)[keep]
        loss = -np.sum(picked * cur_w, dtype=acc)
        tw = np.sum(cur_w, dtype=acc)
    else:
        loss = -np.sum(picked, dtype=acc)
        tw = acc(np.count_nonzero(keep))
    if reduction == MEAN:
        loss = loss / tw
    output.numpy_view()[...] = loss
    total_weight.numpy_view()[...] = tw


@impl_function("nll_loss_forward_out_cpu", SOURCE, legacy="at::native::nll_loss_forward_out_cpu")
def nll_loss_forward_out_cpu(
    it: TensorIteratorBase,
    self: Tensor,
    target: Tensor,
    weight: Tensor | None,
    reduction: int,
    ignore_index: int,
    output: Tensor,
    total_weight: Tensor,
) -> None:
    nll_loss_out_frame(output, total_weight, self, target, weight, reduction, ignore_index)


# ---- backward ------------------------------------------------------------------------------------
@meta_function("nll_loss_backward", SOURCE)
def meta_nll_loss_backward(
    it: TensorIteratorBase,
    grad_output: Tensor,
    self: Tensor,
    target: Tensor,
    weight: Tensor | None,
    reduction: int,
    ignore_index: int,
    total_weight: Tensor,
) -> None:
    _check_nll_shapes(self, target)
    TORCH_CHECK(
        total_weight.numel() == 1,
        "expected total_weight to be a  single element tensor, got: ",
        total_weight.sizes(),
        " (",
        total_weight.numel(),
        " elements)",
    )
    TORCH_CHECK(
        not _defined(weight) or weight.numel() == self.size(-1),
        "weight tensor should be defined either for all or no classes",
    )
    if reduction == NONE and self.dim() == 2:
        TORCH_CHECK(
            grad_output.dim() == 1 and grad_output.size(0) == self.size(0),
            "Expected a tensor of dimension 1 and tensor.size[0] == ",
            self.size(0),
            " but got: dimension ",
            grad_output.dim(),
            " and tensor.size[0] == ",
            grad_output.size(0) if grad_output.dim() else 1,
        )
    else:
        TORCH_CHECK(
            grad_output.dim() <= 1 and grad_output.numel() == 1,
            "Expected a single element grad_output tensor, but got: ",
            grad_output.sizes(),
        )
    it.set_output_raw_strided(0, self.sizes(), (), TensorOptions(self.scalar_type(), self.device()))


@traced("kernel", "at::native::(anonymous)::nll_loss_backward_out_frame", SOURCE)
def nll_loss_backward_out_frame(
    grad_input: Tensor,
    grad_output: Tensor,
    input: Tensor,
    target: Tensor,
    weight: Tensor | None,
    reduction: int,
    ignore_index: int,
    total_weight: Tensor,
) -> None:
    n_classes = input.size(-1)
    t = target.numpy_view().astype(np.int64).reshape(-1)
    w = expect_contiguous(weight).numpy_view() if _defined(weight) else None
    gi = grad_input.numpy_view()
    rows = gi.reshape(1, -1) if input.dim() == 1 else gi
    keep = t != ignore_index
    bad = t[keep & ((t < 0) | (t >= n_classes))]
    TORCH_CHECK_INDEX(
        bad.size == 0, "Target ", int(bad[0]) if bad.size else 0, " is out of bounds."
    )
    idx = np.nonzero(keep)[0]
    cls = t[keep]
    if reduction == NONE and input.dim() == 2:
        g = -grad_output.numpy_view()[idx]
    else:
        go = grad_output.numpy_view().reshape(())
        g = -(go / total_weight.numpy_view().reshape(()) if reduction == MEAN else go)
        g = np.full(len(idx), g, dtype=gi.dtype)
    rows[idx, cls] = w[cls] * g if w is not None else g


@impl_function("nll_loss_backward_out_cpu", SOURCE)
def nll_loss_backward_out_cpu(
    it: TensorIteratorBase,
    grad_output: Tensor,
    self: Tensor,
    target: Tensor,
    weight: Tensor | None,
    reduction: int,
    ignore_index: int,
    total_weight: Tensor,
    grad_input: Tensor,
) -> None:
    grad_input.zero_()
    TORCH_CHECK_NOT_IMPLEMENTED(
        self.scalar_type() in _FLOATS,
        '"nll_loss_backward_out_frame" not implemented for \'',
        self.scalar_type(),
        "'",
    )
    nll_loss_backward_out_frame(
        grad_input, grad_output, self, target, weight, reduction, ignore_index, total_weight
    )


# ---- the composites --------------------------------------------------------------------------
@native_function(SOURCE)
def nll_loss_symint(
    self: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    reduction: int = MEAN,
    ignore_index: int = -100,
) -> Tensor:
    return at.nll_loss_forward(self, target, weight, reduction, ignore_index)[0]


@native_function(SOURCE)
def nll_loss_nd_symint(
    self: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    reduction: int = MEAN,
    ignore_index: int = -100,
) -> Tensor:
    TORCH_CHECK_VALUE(self.dim() >= 1, "Expected 1 or more dimensions (got ", self.dim(), ")")
    TORCH_CHECK_VALUE(
        self.dim() == 1 or self.size(0) == target.size(0),
        "Expected input batch_size (",
        self.size(0),
        ") to match target batch_size (",
        target.size(0) if target.dim() else 1,
        ").",
    )
    if self.dim() in (1, 2):
        return at.nll_loss(self, target, weight, reduction, ignore_index)
    out_size = [self.size(0), *self.sizes()[2:]]
    TORCH_CHECK(
        tuple(target.sizes()[1:]) == tuple(self.sizes()[2:]),
        "Expected target size ",
        out_size,
        ", got ",
        target.sizes(),
    )
    # nll_loss2d (the >2D case) is not in this runtime: say so as PyTorch says an op is missing
    TORCH_CHECK_NOT_IMPLEMENTED(
        False,
        "nll_loss_nd: inputs of more than 2 dimensions "
        "(nll_loss2d) are not implemented in tensortrace",
    )
    raise AssertionError  # unreachable


def _cross_entropy_loss_prob_target(
    self: Tensor, target_: Tensor, weight: Tensor | None, reduction: int, label_smoothing: float
) -> Tensor:
    class_dim = 0 if self.dim() == 1 else 1
    n_classes = self.size(class_dim)
    TORCH_CHECK(
        not _defined(weight) or (weight.dim() == 1 and weight.numel() == n_classes),
        "cross_entropy: weight tensor should be defined either for all ",
        n_classes,
        " classes or no classes but got weight tensor of shape: ",
        weight.sizes() if _defined(weight) else [],
    )
    input = at.log_softmax(self, class_dim, self.scalar_type())
    if label_smoothing > 0.0:
        TORCH_CHECK(
            label_smoothing <= 1.0,
            "label_smoothing must be between 0.0 and 1.0. Got: ",
            label_smoothing,
        )
        target = target_.mul(1 - label_smoothing).add(label_smoothing / n_classes)
    else:
        target = target_
    prod = input.mul(target)
    if _defined(weight):
        shape = [1] * input.dim()
        if input.dim() > 1:
            shape[1] = weight.size(0)
        prod = prod.mul(weight.view(shape) if input.dim() > 1 else weight)
    if reduction == MEAN:
        if input.numel() == 0:
            return prod.sum().fill_(float("nan")).neg()
        return prod.sum().neg().div(input.numel() // n_classes)
    if reduction == SUM:
        return prod.sum().neg()
    if reduction == NONE:
        return prod.sum([class_dim]).neg()
    TORCH_CHECK(False, "Invalid reduction type encountered in cross_entropy: ", reduction)
    raise AssertionError  # unreachable


def _cross_entropy_loss_label_smoothing(
    self: Tensor,
    target: Tensor,
    weight: Tensor | None,
    reduction: int,
    ignore_index: int,
    label_smoothing: float,
) -> Tensor:
    class_dim = 0 if self.dim() == 1 else 1
    input = at.log_softmax(self, class_dim, self.scalar_type())
    nllloss = at.nll_loss_nd(input, target, weight, reduction, ignore_index)
    n_classes = input.size(class_dim)
    if _defined(weight):
        shape = [1] * input.dim()
        shape[class_dim] = weight.size(0)
        smooth_loss = input.mul(weight.view(shape)).sum([class_dim]).neg()
    else:
        smooth_loss = input.sum([class_dim]).neg()
    ignore_mask = target.eq(ignore_index)
    smooth_loss.masked_fill_(ignore_mask, 0.0)
    if reduction == MEAN:
        TORCH_CHECK_NOT_IMPLEMENTED(
            not _defined(weight),
            "cross_entropy with label_smoothing "
            "and weight needs gather/masked_select, not in tensortrace",
        )
        ret = smooth_loss.sum().div(ignore_mask.bitwise_not().sum())
    elif reduction == SUM:
        ret = smooth_loss.sum()
    elif reduction == NONE:
        ret = smooth_loss
    else:
        TORCH_CHECK(False, "Invalid reduction type encountered in cross_entropy: ", reduction)
    return nllloss.mul(1 - label_smoothing).add(ret.mul(label_smoothing / n_classes))


@native_function(SOURCE)
def cross_entropy_loss_symint(
    self: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    reduction: int = MEAN,
    ignore_index: int = -100,
    label_smoothing: float = 0.0,
) -> Tensor:
    if tuple(self.sizes()) == tuple(target.sizes()):
        # same shapes: the target holds class probabilities
        TORCH_CHECK(
            isFloatingType(target.scalar_type()),
            "Expected floating point type for target with class probabilities, got ",
            target.scalar_type(),
        )
        TORCH_CHECK(ignore_index < 0, "ignore_index is not supported for floating point target")
        return _cross_entropy_loss_prob_target(self, target, weight, reduction, label_smoothing)
    if label_smoothing > 0.0:
        TORCH_CHECK(
            label_smoothing <= 1.0,
            "label_smoothing must be between 0.0 and 1.0. Got: ",
            label_smoothing,
        )
        return _cross_entropy_loss_label_smoothing(
            self, target, weight, reduction, ignore_index, label_smoothing
        )
    class_dim = 0 if self.dim() == 1 else 1
    return at.nll_loss_nd(
        at.log_softmax(self, class_dim, self.scalar_type()), target, weight, reduction, ignore_index
    )
