"""The CTC loss operators: _ctc_loss / _ctc_loss_backward on the CPU (ctc_loss_cpu,
ctc_loss_backward_cpu over the kernels of loss_ctc.py and loss_ctc_backward.py), their Tensor
overloads (which move the lengths to the CPU as int64 lists) and the CompositeImplicitAutograd
ctc_loss: batch, zero_infinity, reduction.

Mirrors the bottom half of `aten/src/ATen/native/LossCTC.cpp`. Its two C++ overloads of
ctc_loss (lengths as IntArrayRef or as Tensors) are one function here; the Tensor one calls
ctc_loss_impl directly, as the C++ calls at::native::ctc_loss, not through the dispatcher.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from tensortrace.aten import functions as at
from tensortrace.aten.native.loss import MEAN, SUM
from tensortrace.aten.native.loss_ctc import SOURCE, _check_floating, ctc_loss_cpu_template
from tensortrace.aten.native.loss_ctc_backward import ctc_loss_backward_cpu_template
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.device import Device
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType, isIntegralType
from tensortrace.trace import traced


@native_function(SOURCE)
def ctc_loss_cpu(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Sequence[int],
    target_lengths: Sequence[int],
    blank: int = 0,
    zero_infinity: bool = False,
) -> tuple[Tensor, Tensor]:
    del zero_infinity  # only used for backwards
    _check_floating(log_probs, "ctc_loss_cpu")
    return ctc_loss_cpu_template(log_probs, targets, input_lengths, target_lengths, blank)


@native_function(SOURCE)
def ctc_loss_backward_cpu(
    grad: Tensor,
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Sequence[int],
    target_lengths: Sequence[int],
    neg_log_likelihood: Tensor,
    log_alpha: Tensor,
    blank: int,
    zero_infinity: bool = False,
) -> Tensor:
    _check_floating(log_probs, "ctc_loss_backward_cpu")
    return ctc_loss_backward_cpu_template(
        grad,
        log_probs,
        targets,
        input_lengths,
        target_lengths,
        neg_log_likelihood,
        log_alpha,
        blank,
        zero_infinity,
    )


def _lengths_list(input_lengths: Tensor, target_lengths: Tensor) -> tuple[list[int], list[int]]:
    """The lengths as IntArrayRefs: checked integral, .to(kCPU, kLong).contiguous()."""
    TORCH_CHECK(
        isIntegralType(input_lengths.scalar_type(), includeBool=False),
        "input_lengths must be integral",
    )
    TORCH_CHECK(
        isIntegralType(target_lengths.scalar_type(), includeBool=False),
        "target_lengths must be integral",
    )
    ilc = input_lengths.to(device=Device("cpu"), dtype=ScalarType.Long).contiguous()
    tlc = target_lengths.to(device=Device("cpu"), dtype=ScalarType.Long).contiguous()
    return (
        [int(v) for v in ilc.numpy_view().reshape(-1)],
        [int(v) for v in tlc.numpy_view().reshape(-1)],
    )


@native_function(SOURCE)
def ctc_loss_tensor(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Tensor,
    target_lengths: Tensor,
    blank: int = 0,
    zero_infinity: bool = False,
) -> tuple[Tensor, Tensor]:
    il, tl = _lengths_list(input_lengths, target_lengths)
    return at._ctc_loss(log_probs, targets, il, tl, blank, zero_infinity)


@native_function(SOURCE)
def ctc_loss_backward_tensor(
    grad: Tensor,
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Tensor,
    target_lengths: Tensor,
    neg_log_likelihood: Tensor,
    log_alpha: Tensor,
    blank: int,
    zero_infinity: bool = False,
) -> Tensor:
    il, tl = _lengths_list(input_lengths, target_lengths)
    return at._ctc_loss_backward(
        grad, log_probs, targets, il, tl, neg_log_likelihood, log_alpha, blank, zero_infinity
    )


def _tensor(values: Sequence[int], like: Tensor) -> Tensor:
    """at::tensor(values, like.options()): an empty tensor the values are copied into."""
    result = at.empty([len(values)], dtype=like.scalar_type(), device=like.device())
    if values:
        result.numpy_view()[...] = values
    return result


@traced("native", "at::native::(anonymous)::ctc_loss_impl", SOURCE)
def ctc_loss_impl(
    log_probs_: Tensor,
    targets: Tensor,
    input_lengths: Sequence[int],
    target_lengths: Sequence[int],
    blank: int,
    reduction: int,
    zero_infinity: bool,
) -> Tensor:
    is_batched = log_probs_.dim() == 3
    log_probs = log_probs_ if is_batched else log_probs_.unsqueeze(1)
    # (no cuDNN here: the native kernel on every device; the targets move to log_probs'
    # device as int64 as a service to the user)
    res = at._ctc_loss(
        log_probs,
        targets.to(device=log_probs.device(), dtype=ScalarType.Long),
        input_lengths,
        target_lengths,
        blank,
        zero_infinity,
    )[0]
    if zero_infinity:
        options = {"dtype": res.scalar_type(), "device": res.device()}
        res = at.where(res.eq(math.inf), at.zeros([], **options), res)
    if reduction == MEAN:
        # get_clamped_target_length: at::tensor(target_lengths, res.options()).clamp_min(1)
        return res.div(_tensor(target_lengths, res).clamp_min(1)).mean()
    if reduction == SUM:
        return res.sum()
    return res if is_batched else res.squeeze(0)


@native_function(SOURCE)
def ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Any,
    target_lengths: Any,
    blank: int = 0,
    reduction: int = MEAN,
    zero_infinity: bool = False,
) -> Tensor:
    if isinstance(input_lengths, Tensor):  # the overload taking Tensors: the fast path
        input_lengths, target_lengths = _lengths_list(input_lengths, target_lengths)
    return ctc_loss_impl(
        log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity
    )
