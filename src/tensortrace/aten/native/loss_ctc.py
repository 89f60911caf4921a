"""_ctc_loss and _ctc_loss_backward on the CPU: the Connectionist Temporal Classification loss
by the forward-backward algorithm of Graves et al. (2006), in log space.

Mirrors `aten/src/ATen/native/LossCTC.cpp` (ctc_loss_allocate_outputs, ctc_loss_cpu_template,
ctc_loss_backward_cpu_template). log_probs is input_len x batch x num_labels; the augmented
target l' puts a blank before, between and after the labels, so it has 2 * target_length + 1
states s. The C++ loops over (t, s); here NumPy does a whole time step's states at once, with
the same three-term logsumexp per state (max first, a -inf max taken as 0) in the kernel's
scalar type. The gradient collects alpha * beta per (t, character) in the C++'s order of s
(descending), so characters met at several states accumulate as there.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.tensor_arg_checks import (
    TensorArg,
    checkDim,
    checkDimRange,
    checkScalarType,
    checkSize,
)
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar_type import ScalarType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/LossCTC.cpp"
NEGINF = -np.inf


def _check_floating(log_probs: Tensor, name: str) -> None:
    # AT_DISPATCH_FLOATING_TYPES
    st = log_probs.scalar_type()
    TORCH_CHECK_NOT_IMPLEMENTED(
        st in (ScalarType.Float, ScalarType.Double), f"\"{name}\" not implemented for '{st}'"
    )


def _length_check(what: str, value: int, c: str, at_most: int | None = None) -> None:
    TORCH_CHECK(
        value >= 0,
        f"Expected {what} to have value at least 0, but got value {value} "
        f"(while checking arguments for {c})",
    )
    if at_most is not None:
        TORCH_CHECK(
            value <= at_most,
            f"Expected {what} to have value at most {at_most}, but got value {value} "
            f"(while checking arguments for {c})",
        )


@traced("native", "at::native::(anonymous)::ctc_loss_allocate_outputs", SOURCE)
def ctc_loss_allocate_outputs(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Sequence[int],
    target_lengths: Sequence[int],
    blank: int,
    target_scalar_type: ScalarType,
) -> tuple[Tensor, Tensor, int, list[int]]:
    c = "ctc_loss_allocate_outputs"
    log_probs_arg = TensorArg(log_probs, "log_probs", 1)
    targets_arg = TensorArg(targets, "targets", 2)
    checkScalarType(c, targets_arg, target_scalar_type)
    checkDim(c, log_probs_arg, 3)
    checkDimRange(c, targets_arg, 1, 3)

    batch_size = log_probs.size(1)
    num_labels = log_probs.size(2)
    TORCH_CHECK(0 <= blank < num_labels, "blank must be in label range")
    TORCH_CHECK(len(input_lengths) == batch_size, "input_lengths must be of size batch_size")
    TORCH_CHECK(len(target_lengths) == batch_size, "target_lengths must be of size batch_size")

    max_target_length = 0
    tg_batch_offsets = [0] * batch_size
    if targets.dim() == 1:  # concatenated targets
        pos = 0
        for i in range(batch_size):
            _length_check("target_lengths", target_lengths[i], c)
            tg_batch_offsets[i] = pos
            pos += target_lengths[i]
            max_target_length = max(max_target_length, target_lengths[i])
        tg_target_stride = targets.stride(0)
        checkSize(c, targets_arg, 0, pos)
    else:  # batch x max_target_length
        tg_batch_stride = targets.stride(0)
        for i in range(batch_size):
            _length_check("target_lengths", target_lengths[i], c)
            tg_batch_offsets[i] = i * tg_batch_stride
            max_target_length = max(max_target_length, target_lengths[i])
        tg_target_stride = targets.stride(1)
        checkSize(c, targets_arg, 0, batch_size)
        TORCH_CHECK(
            targets.size(1) >= max_target_length,
            f"Expected tensor to have size at least {max_target_length} at dimension 1, but got "
            f"size {targets.size(1)} for ",
            targets_arg,
            f" (while checking arguments for {c})",
        )
    max_input_length = log_probs.size(0)
    for b in range(batch_size):
        _length_check("input_lengths", input_lengths[b], c, max_input_length)

    options = {"dtype": log_probs.scalar_type(), "device": log_probs.device()}
    log_alpha = at.empty([batch_size, log_probs.size(0), 2 * max_target_length + 1], **options)
    neg_log_likelihood = at.empty([batch_size], **options)
    return neg_log_likelihood, log_alpha, tg_target_stride, tg_batch_offsets


def _prime(
    data: np.ndarray, offset: int, stride: int, target_length: int, blank: int
) -> np.ndarray:
    """l': get_target_prime for s = 0 .. 2 * target_length (the blank at even s)."""
    prime = np.full(2 * target_length + 1, blank, dtype=np.int64)
    prime[1::2] = data[offset + stride * np.arange(target_length)]
    return prime


def _flat_data(t: Tensor) -> np.ndarray:
    """targets.const_data_ptr(): the storage from the tensor's offset on, indexed as the C++
    indexes it (offset + stride * i, so a strided 1-D targets reads as in torch)."""
    impl = t.impl_.target_
    assert impl is not None
    if t.numel() == 0:
        return np.empty(0, np.int64)
    dtype = impl.data_type_.numpy
    buffer = impl.storage_.unsafeGetStorageImpl().bytes_view()
    offset = impl.storage_offset_
    count = len(buffer) // impl.data_type_.itemsize - offset
    return np.ndarray((count,), dtype, buffer=buffer, offset=offset * impl.data_type_.itemsize)


def _logsumexp3(a1: np.ndarray, a2: np.ndarray, a3: np.ndarray) -> np.ndarray:
    """log(exp(a1 - m) + exp(a2 - m) + exp(a3 - m)) + m with the C++'s max (NaN-blind `>`)."""
    m = np.where(a2 > a1, a2, a1)
    m = np.where(a3 > m, a3, m)
    m = np.where(m == NEGINF, m.dtype.type(0), m)
    return np.log(np.exp(a1 - m) + np.exp(a2 - m) + np.exp(a3 - m)) + m


def _shifted(row: np.ndarray, by: int, allowed: np.ndarray | None = None) -> np.ndarray:
    """row[s - by] (row[s + by] for negative `by`), -inf where out of range or not allowed."""
    out = np.full_like(row, NEGINF)
    if by > 0:
        out[by:] = row[:-by]
    else:
        out[:by] = row[-by:]
    if allowed is not None:
        out = np.where(allowed, out, row.dtype.type(NEGINF))
    return out


@traced("kernel", "at::native::(anonymous)::ctc_loss_cpu_template", SOURCE)
def ctc_loss_cpu_template(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Sequence[int],
    target_lengths: Sequence[int],
    blank: int,
) -> tuple[Tensor, Tensor]:
    target_type = ScalarType.Long if targets.scalar_type() == ScalarType.Long else ScalarType.Int
    neg_log_likelihood, log_alpha, tg_target_stride, tg_batch_offsets = ctc_loss_allocate_outputs(
        log_probs, targets, input_lengths, target_lengths, blank, target_type
    )
    batch_size = log_probs.size(1)
    lpp = log_probs.permute([1, 0, 2]).numpy_view()
    la_all = log_alpha.numpy_view()
    tdata = _flat_data(targets)
    nll = neg_log_likelihood.numpy_view()
    sdt = la_all.dtype.type

    # alpha calculation for the first row, the three equations for alpha_1 above eq (6)
    log_alpha.narrow(1, 0, 1).fill_(NEGINF)
    with np.errstate(all="ignore"):
        for b in range(batch_size):
            input_length, target_length = input_lengths[b], target_lengths[b]
            if input_length == 0:
                nll[b] = -(sdt(0) if target_length == 0 else sdt(NEGINF))
                continue
            lp, la = lpp[b], la_all[b]
            prime = _prime(tdata, tg_batch_offsets[b], tg_target_stride, target_length, blank)
            n_states = 2 * target_length + 1
            la[0, 0] = lp[0, blank]
            if target_length > 0:
                la[0, 1] = lp[0, prime[1]]
            # the skip over a blank (eq (7)) only between different labels
            skip = np.zeros(n_states, dtype=bool)
            skip[2:] = prime[:-2] != prime[2:]
            for t in range(1, input_length):
                prev = la[t - 1, :n_states]
                la[t, :n_states] = (
                    _logsumexp3(prev, _shifted(prev, 1), _shifted(prev, 2, skip)) + lp[t, prime]
                )
            # the likelihood is the sum of the last two alphas, eq (8)
            if target_length == 0:
                nll[b] = -la[input_length - 1, 0]
            else:
                l1, l2 = la[input_length - 1, 2 * target_length], la[input_length - 1, n_states - 2]
                m = max(l1, l2)
                m = sdt(0) if m == NEGINF else m
                nll[b] = -(np.log(np.exp(l1 - m) + np.exp(l2 - m)) + m)
    return neg_log_likelihood, log_alpha
