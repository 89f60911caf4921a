"""Conformance of F.huber_loss / nn.HuberLoss (aten::huber_loss, huber_loss_backward) and of
F.group_norm / nn.GroupNorm (aten::group_norm > native_group_norm, native_group_norm_backward)
against torch 2.13: values for every reduction and delta, weights, gradients of input and target,
the out= variant; group norm values, mean / rstd, gradients of input / weight / bias, affine=False,
float64; the modules' reprs and errors."""

from __future__ import annotations

import pytest

from .harness import check

PRE = "nn = torch.nn\nF = torch.nn.functional\n"
CLOSE = {"rtol": 1e-5, "atol": 1e-6}
XT = "x = torch.randn(3, 4, requires_grad=True); t = torch.randn(3, 4, requires_grad=True); "

GN = "x = torch.randn(2, 4, 3, 2, requires_grad=True); g = torch.randn(4, requires_grad=True); "
GN += "b = torch.randn(4, requires_grad=True); "
GN_GRAD = (
    "(y * torch.arange(float(y.numel())).view(y.shape).cos()).sum().backward(); "
    "out = (y.detach(), x.grad, g.grad, b.grad)"
)

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
    # ---- group_norm ----
    "gn_affine": GN + "y = F.group_norm(x, 2, g, b); " + GN_GRAD,
    "gn_grad_fn": GN + "y = F.group_norm(x, 2, g, b); out = y.grad_fn.name()",
    "gn_one_group": GN + "y = F.group_norm(x, 1, g, b, eps=1e-3); " + GN_GRAD,
    "gn_instance": GN + "y = F.group_norm(x, 4, g, b); " + GN_GRAD,
    "gn_no_affine": GN + "y = F.group_norm(x, 2); y.backward(torch.randn(2, 4, 3, 2)); "
    "out = (y.detach(), x.grad)",
    "gn_weight_only": GN
    + "y = F.group_norm(x, 2, g); "
    + GN_GRAD.replace("b.grad", "b.grad is None"),
    "gn_3d_input": "x = torch.randn(3, 6, 5, requires_grad=True); y = F.group_norm(x, 3); "
    "(y * y.detach().exp()).sum().backward(); out = (y.detach(), x.grad)",
    "gn_2d_input": "x = torch.randn(3, 6); out = F.group_norm(x, 2)",
    "gn_float64": "x = torch.randn(2, 4, 5, dtype=torch.float64, requires_grad=True); "
    "y = F.group_norm(x, 2); y.sum().backward(); out = (y.detach(), x.grad)",
    "gn_noncontiguous": "x = torch.randn(2, 3, 4, 4).transpose(1, 3); out = F.group_norm(x, 2)",
    "gn_native": GN + "out = [t.detach() for t in torch.native_group_norm(x, g, b, 2, 4, 6, 2, "
    "1e-5)]",
    "gn_native_backward_mask": GN + "y, mean, rstd = torch.native_group_norm(x, g, b, 2, 4, 6, 2, "
    "1e-5); out = torch.autograd.grad(y, (x, b), torch.randn(2, 4, 3, 2))",
    "gn_module": "m = nn.GroupNorm(2, 4); x = torch.randn(2, 4, 3, requires_grad=True); "
    "y = m(x); (y * torch.arange(24.).view(2, 4, 3)).sum().backward(); "
    "out = (y.detach(), x.grad, m.weight.grad, m.bias.grad, list(m.state_dict()), repr(m))",
    "gn_module_no_affine": "m = nn.GroupNorm(3, 6, eps=1e-3, affine=False); "
    "out = (m(torch.randn(2, 6, 4)), repr(m), list(m.parameters()), m.weight, m.bias)",
    "gn_module_no_bias": "m = nn.GroupNorm(1, 3, bias=False); "
    "out = (m(torch.randn(2, 3, 2)).detach(), repr(m), m.bias)",
    "gn_module_repr": "out = repr(nn.GroupNorm(2, 4))",
    "gn_error_divisible": GN + "out = F.group_norm(x, 3)",
    "gn_error_zero_groups": GN + "out = F.group_norm(x, 0)",
    "gn_error_weight_size": GN + "out = F.group_norm(x, 2, torch.ones(3))",
    "gn_error_bias_size": GN + "out = F.group_norm(x, 2, g, torch.ones(5))",
    "gn_error_1d": "out = F.group_norm(torch.randn(4), 2)",
    "gn_error_one_value": "out = F.group_norm(torch.randn(1, 2), 2)",
    "gn_error_int": "out = F.group_norm(torch.ones(2, 4, 3, dtype=torch.long), 2)",
    "gn_error_native_divisible": GN + "out = torch.native_group_norm(x, None, None, 2, 4, 6, 3, "
    "1e-5)",
    "gn_error_module_divisible": "out = nn.GroupNorm(3, 4)",
    "gn_error_bias_without_weight": GN + "F.group_norm(x, 2, None, b).sum().backward(); out = 0",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_huber_groupnorm(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], **CLOSE)
