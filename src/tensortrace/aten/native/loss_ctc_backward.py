"""_ctc_loss_backward on the CPU: the beta recursion (eq (10), (11) of Graves et al.) and the
gradient of eq (16), from the log_alpha and neg_log_likelihood the forward saved.

Mirrors `ctc_loss_backward_cpu_template` of `aten/src/ATen/native/LossCTC.cpp`; the helpers
(l', the three-term logsumexp) are loss_ctc.py's. `grad` starts as log of an empty sum (-inf)
and gathers log(alpha * beta) per (t, character); rows at or past input_length are zero, and
with zero_infinity a sample whose loss is infinite gets a zero gradient.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.loss_ctc import (
    NEGINF,
    SOURCE,
    _flat_data,
    _logsumexp3,
    _prime,
    _shifted,
)
from tensortrace.aten.tensor_body import Tensor
from tensortrace.trace import traced


def _batch_offsets(
    targets: Tensor, target_lengths: Sequence[int], batch_size: int
) -> tuple[list[int], int]:
    """tg_batch_offsets and tg_target_stride (no checks: the forward made them)."""
    if targets.dim() == 1:  # concatenated targets
        offsets, pos = [], 0
        for i in range(batch_size):
            offsets.append(pos)
            pos += target_lengths[i]
        return offsets, targets.stride(0)
    return [i * targets.stride(0) for i in range(batch_size)], targets.stride(1)


def _log_add(lcab: np.ndarray, log_alpha_beta: np.ndarray) -> np.ndarray:
    """collected "log+=" alpha_beta: taken as is where collected is still -inf."""
    m = np.where(lcab > log_alpha_beta, lcab, log_alpha_beta)  # std::max
    summed = np.log(np.exp(lcab - m) + np.exp(log_alpha_beta - m)) + m
    return np.where(lcab == NEGINF, log_alpha_beta, summed)


@traced("kernel", "at::native::(anonymous)::ctc_loss_backward_cpu_template", SOURCE)
def ctc_loss_backward_cpu_template(
    grad_out: Tensor,
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Sequence[int],
    target_lengths: Sequence[int],
    neg_log_likelihood: Tensor,
    log_alpha: Tensor,
    blank: int,
    zero_infinity: bool,
) -> Tensor:
    max_input_length, batch_size = log_probs.size(0), log_probs.size(1)
    # at this point, this is log of empty sum
    grad = at.full_like(log_probs, NEGINF, memory_format="contiguous_format")
    tg_batch_offsets, tg_target_stride = _batch_offsets(targets, target_lengths, batch_size)

    log_beta = at.empty_like(log_alpha, memory_format="contiguous_format")
    lpp = log_probs.permute([1, 0, 2]).numpy_view()
    la_all, lb_all = log_alpha.numpy_view(), log_beta.numpy_view()
    gp = grad.permute([1, 0, 2]).numpy_view()
    tdata = _flat_data(targets)
    go = grad_out.numpy_view()
    nlls = neg_log_likelihood.numpy_view()
    sdt = gp.dtype.type

    with np.errstate(all="ignore"):
        for b in range(batch_size):
            nll, grad_a = nlls[b], gp[b]
            if zero_infinity and nll == np.inf:
                grad_a[...] = 0
                continue
            lp, la, lb = lpp[b], la_all[b], lb_all[b]
            input_length, target_length = input_lengths[b], target_lengths[b]
            prime = _prime(tdata, tg_batch_offsets[b], tg_target_stride, target_length, blank)
            n_states = 2 * target_length + 1
            # the initialization of beta before eq (10)
            if input_length > 0:
                last = input_length - 1
                lb[last, :] = NEGINF
                lb[last, n_states - 1] = lp[last, blank]
                grad_a[last, blank] = la[last, n_states - 1] + lb[last, n_states - 1]
                if target_length > 0:
                    c = prime[n_states - 2]
                    lb[last, n_states - 2] = lp[last, c]
                    # a blank and a non-blank: different, no log+ needed
                    grad_a[last, c] = la[last, n_states - 2] + lb[last, n_states - 2]
            # the skip over a blank (eq (11)) only between different labels
            skip = np.zeros(n_states, dtype=bool)
            skip[:-2] = prime[2:] != prime[:-2]
            for t in range(input_length - 2, -1, -1):
                nxt = lb[t + 1, :n_states]
                lb[t, :n_states] = (
                    _logsumexp3(nxt, _shifted(nxt, -1), _shifted(nxt, -2, skip)) + lp[t, prime]
                )
            # collected[b, t, l'[s]] "log+=" log_alpha[t, s] + log_beta[t, s], s descending
            rows = max(input_length - 1, 0)
            log_alpha_beta = la[:rows, :n_states] + lb[:rows, :n_states]
            for s in range(n_states - 1, -1, -1):
                c = prime[s]
                grad_a[:rows, c] = _log_add(grad_a[:rows, c], log_alpha_beta[:, s])
            # eq (16): the likelihood -nll is its Z
            gr = go[b]
            lp_valid = lp[:input_length]
            grad_a[:input_length] = (
                np.exp(lp_valid) - np.exp(grad_a[:input_length] + nll - lp_valid)
            ) * gr
            grad_a[input_length:max_input_length] = sdt(0)  # zero the remainder
    return grad
