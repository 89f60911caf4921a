"""Conformance of F.ctc_loss / nn.CTCLoss / torch.ctc_loss / torch._ctc_loss against torch
2.13: values and gradients for each reduction, padded and concatenated targets, lengths as
tuples or tensors, unbatched input, zero_infinity, blank, float64, the grad_fn names, and the
errors of LossCTC.cpp's checks (type and message); the erroring programs free what they
allocated."""

from __future__ import annotations

import gc
import math

import numpy as np
import pytest

import tensortrace

from .harness import check

PRE = (
    "F = torch.nn.functional\nnn = torch.nn\nR = ('none', 'mean', 'sum')\n"
    "g = torch.Generator().manual_seed(3)\n"
    "lp = torch.randn(6, 3, 5, generator=g).log_softmax(2)\n"
    "tg = torch.tensor([[1, 2, 2], [3, 1, 0], [4, 4, 4]])\n"
)
CLOSE = {"rtol": 1e-5, "atol": 1e-6}

PROGRAMS = {
    "reductions_padded": "out = [F.ctc_loss(lp, tg, (6, 5, 6), (3, 2, 2), reduction=r) for r in R]",
    "concatenated_tensor_lengths": "t = torch.tensor([1, 2, 2, 3, 1, 4]); "
    "out = [F.ctc_loss(lp, t, torch.tensor([6, 5, 4]), torch.tensor([3, 2, 1]), reduction=r) "
    "for r in R]",
    "int32_lengths_and_targets": "out = F.ctc_loss(lp, tg.int(), torch.tensor([6, 5, 6], "
    "dtype=torch.int32), torch.tensor([3, 2, 2], dtype=torch.int32), reduction='none')",
    "empty_targets_and_inputs": "out = [F.ctc_loss(lp, tg, (6, 0, 0), (0, 0, 2), reduction=r) "
    "for r in R]",
    "infeasible_zero_infinity": "out = [F.ctc_loss(lp, tg, (6, 2, 6), (3, 2, 3), reduction=r, "
    "zero_infinity=z) for r in R for z in (False, True)]",
    "blank_last": "out = F.ctc_loss(lp, tg.clamp(max=3), (6, 5, 6), (3, 2, 1), blank=4, "
    "reduction='none')",
    "unbatched": "x = lp[:, 0]; out = [F.ctc_loss(x, torch.tensor([1, 2]), (6,), (2,), "
    "reduction=r) for r in R] + [F.ctc_loss(x, torch.tensor([[1, 2]]), torch.tensor(6), "
    "torch.tensor(2), reduction='none')]",
    "double": "out = F.ctc_loss(lp.double(), tg, [6, 5, 6], [3, 2, 2], reduction='none')",
    "native_ops": "a, b = torch._ctc_loss(lp, tg, [6, 5, 6], [3, 2, 2]); "
    "c, d = torch._ctc_loss(lp, tg, torch.tensor([6, 5, 6]), torch.tensor([3, 2, 2]), 0, True);"
    " out = (a, b[0, :, :5], b[1, :5, :5], c, torch.ctc_loss(lp, tg, [6, 5, 6], [3, 2, 2]))",
    "module": "m = nn.CTCLoss(blank=4, reduction='sum', zero_infinity=True); "
    "out = (repr(m), m.blank, m.reduction, m.zero_infinity, m(lp, tg.clamp(max=3), (6, 5, 6), "
    "(3, 2, 1)), repr(nn.CTCLoss()))",
}

GRAD = (
    "x = lp.detach().requires_grad_(); l = {expr}; l.backward(torch.ones_like(l) * 0.7); "
    "out = (l, x.grad, l.grad_fn.name())"
)
GRADS = {
    f"{name}_{r}": GRAD.format(expr=expr.replace("R_", repr(r)))
    for name, expr in (
        ("padded", "F.ctc_loss(x, tg, (6, 5, 6), (3, 2, 2), reduction=R_)"),
        (
            "concatenated",
            "F.ctc_loss(x, torch.tensor([1, 2, 2, 3, 1, 4]), torch.tensor([6, 5, 4]), "
            "torch.tensor([3, 2, 1]), reduction=R_)",
        ),
        (
            "zero_infinity",
            "F.ctc_loss(x, tg, (6, 2, 6), (3, 2, 3), reduction=R_, zero_infinity=True)",
        ),
        ("empty", "F.ctc_loss(x, tg, (6, 0, 4), (0, 0, 2), reduction=R_)"),
    )
    for r in ("none", "mean", "sum")
}
GRADS["infinite_without_zero_infinity"] = GRAD.format(
    expr="F.ctc_loss(x, tg, (6, 2, 6), (3, 2, 3), reduction='none')"
)
GRADS["double_unbatched"] = (
    "x = lp[:, 1].double().requires_grad_(); l = F.ctc_loss(x, torch.tensor([3, 1]), (5,), "
    "(2,), blank=2); l.backward(); out = (l, x.grad)"
)
GRADS["native_grad_fns"] = (
    "x = lp.detach().requires_grad_(); a, b = torch._ctc_loss(x, tg, [6, 5, 6], [3, 2, 2]); "
    "c, d = torch._ctc_loss(x, tg, torch.tensor([6, 5, 6]), torch.tensor([3, 2, 2])); "
    "(a.sum() + c.sum()).backward(); out = (x.grad, a.grad_fn.name(), b.grad_fn, "
    "c.grad_fn.name(), d.grad_fn)"
)

ERRORS = {
    "log_probs_dims": "F.ctc_loss(torch.randn(5, 2, 4, 1), tg[:2], (5, 5), (2, 2))",
    "targets_dims": "F.ctc_loss(lp, torch.ones(3, 2, 2, dtype=torch.long), (6,) * 3, (2,) * 3)",
    "blank_range": "F.ctc_loss(lp, tg, (6, 6, 6), (2, 2, 2), blank=5)",
    "blank_negative": "F.ctc_loss(lp, tg, (6, 6, 6), (2, 2, 2), blank=-1)",
    "input_lengths_size": "F.ctc_loss(lp, tg, (6,), (2, 2, 2))",
    "target_lengths_size": "F.ctc_loss(lp, tg, (6, 6, 6), (2, 2))",
    "target_length_negative": "F.ctc_loss(lp, tg, (6, 6, 6), (2, -1, 2))",
    "target_length_too_long": "F.ctc_loss(lp, tg, (6, 6, 6), (2, 4, 2))",
    "targets_batch": "F.ctc_loss(lp, tg[:2], (6, 6, 6), (2, 2, 2))",
    "concatenated_size": "F.ctc_loss(lp, torch.tensor([1, 2, 3]), (6, 6, 6), (2, 2, 2))",
    "input_length_too_long": "F.ctc_loss(lp, tg, (7, 6, 6), (2, 2, 2))",
    "input_length_negative": "F.ctc_loss(lp, tg, (6, -1, 6), (2, 2, 2))",
    "float_input_lengths": "F.ctc_loss(lp, tg, torch.tensor([6., 6, 6]), torch.tensor([2, 2, 2]))",
    "float_target_lengths": "F.ctc_loss(lp, tg, torch.tensor([6, 6, 6]), torch.tensor([2., 2, 2]))",
    "short_targets_native": "torch._ctc_loss(lp, tg.short(), [6, 6, 6], [2, 2, 2])",
    "integer_log_probs": "F.ctc_loss(torch.ones(6, 3, 5, dtype=torch.long), tg, (6,) * 3, "
    "(2,) * 3)",
    "bad_reduction": "F.ctc_loss(lp, tg, (6, 6, 6), (2, 2, 2), reduction='avg')",
    "double_backward": "x = lp.detach().requires_grad_(); gr, = torch.autograd.grad("
    "F.ctc_loss(x, tg, (6, 5, 6), (3, 2, 2)), x, create_graph=True); "
    "torch.autograd.grad(gr.sum(), x)",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_ctc_loss(name: str) -> None:
    check(PRE + PROGRAMS[name], **CLOSE)


@pytest.mark.parametrize("name", sorted(GRADS))
def test_ctc_loss_grad(name: str) -> None:
    check(PRE + GRADS[name], **CLOSE)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_ctc_loss_error(name: str) -> None:
    check(PRE + ERRORS[name])


def test_errors_free_everything() -> None:
    gc.collect()
    gc.disable()
    leaks = []
    try:
        for name, source in ERRORS.items():
            start = tensortrace.memory_allocated("cpu")
            namespace = {"torch": tensortrace, "np": np, "math": math}
            try:
                exec(PRE + source, namespace)
            except (RuntimeError, TypeError, ValueError, NotImplementedError):
                pass
            namespace.clear()
            if tensortrace.memory_allocated("cpu") != start:
                leaks.append(name)
    finally:
        gc.enable()
    assert leaks == []
