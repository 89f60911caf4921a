"""Conformance of F.huber_loss / nn.HuberLoss (aten::huber_loss, huber_loss_backward) against
torch 2.13: values for every reduction and delta, weights, gradients of input and target, the
out= variant, the module's repr and errors."""

from __future__ import annotations

import pytest

from .harness import check

PRE = "nn = torch.nn\nF = torch.nn.functional\n"
CLOSE = {"rtol": 1e-5, "atol": 1e-6}
XT = "x = torch.randn(3, 4, requires_grad=True); t = torch.randn(3, 4, requires_grad=True); "

PROGRAMS = {
    "huber_mean": XT + "out = F.huber_loss(x, t)",
    "huber_none": XT + "out = F.huber_loss(x * 2, t, reduction='none')",
    "huber_sum": XT + "out = F.huber_loss(x * 2, t, reduction='sum', delta=0.5)",
    "huber_delta_large": XT + "out = F.huber_loss(x, t, delta=10.0)",
    "huber_delta_small": XT + "out = F.huber_loss(x * 3, t, reduction='none', delta=0.1)",
    "huber_float64": "x = torch.randn(5, dtype=torch.float64); t = torch.zeros(5, "
    "dtype=torch.float64); out = F.huber_loss(x, t, reduction='none', delta=0.3)",
    "huber_broadcast": "x = torch.randn(3, 4); t = torch.randn(4); "
    "out = F.huber_loss(x, t, reduction='none')",
    "huber_weight": XT + "w = torch.rand(3, 4); "
    "out = [F.huber_loss(x * 2, t, reduction=r, weight=w) for r in ('none', 'mean', 'sum')]",
    "huber_weight_grad": XT + "w = torch.rand(3, 4); "
    "F.huber_loss(x * 2, t, weight=w).backward(); out = (x.grad, t.grad)",
    "huber_grad_mean": XT + "l = F.huber_loss(x * 2, t, delta=0.7); l.backward(); "
    "out = (l.grad_fn.name(), x.grad, t.grad)",
    "huber_grad_sum": XT + "F.huber_loss(x * 2, t, reduction='sum').backward(); "
    "out = (x.grad, t.grad)",
    "huber_grad_none": XT + "l = F.huber_loss(x * 2, t, reduction='none', delta=0.4); "
    "l.backward(torch.arange(12.).view(3, 4)); out = (x.grad, t.grad)",
    "huber_out": XT + "o = torch.empty(0); "
    "r = torch._C._nn.huber_loss(x.detach(), t.detach(), 2, 1.0, out=o); out = (o, r is o)",
    "huber_module": XT + "m = nn.HuberLoss(reduction='sum', delta=0.5); "
    "l = m(x * 2, t); l.backward(); out = (l.detach(), x.grad, repr(m), m.delta, m.reduction)",
    "huber_module_repr": "out = repr(nn.HuberLoss(delta=2))",
    "huber_error_delta": XT + "out = F.huber_loss(x, t, delta=0.0)",
    "huber_error_negative_delta": XT + "out = F.huber_loss(x, t, delta=-1.0)",
    "huber_error_reduction": XT + "out = F.huber_loss(x, t, reduction='avg')",
    "huber_error_weight_size": XT + "out = F.huber_loss(x, t, weight=torch.ones(4))",
    "huber_error_module_delta": "out = nn.HuberLoss(delta='1')",
    "huber_error_int": "out = F.huber_loss(torch.ones(3, dtype=torch.long), "
    "torch.zeros(3, dtype=torch.long))",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_huber_groupnorm(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], **CLOSE)
