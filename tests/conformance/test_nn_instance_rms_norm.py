"""Conformance of instance normalization (F.instance_norm, torch.instance_norm,
nn.InstanceNorm1d/2d) and RMS normalization (F.rms_norm, torch.rms_norm, nn.RMSNorm) against
torch 2.13: values, gradients, running statistics, eval mode, unbatched inputs, float64,
reprs and errors."""

from __future__ import annotations

import pytest

from .harness import check

PRE = "nn = torch.nn\nF = torch.nn.functional\n"
CLOSE = {"rtol": 1e-5, "atol": 1e-6}
GRAD = "; (y * torch.randn(y.shape)).sum().backward(); "

PROGRAMS = {
    "instance_functional": "x = torch.randn(2, 3, 5, 4, requires_grad=True); "
    "y = F.instance_norm(x)" + GRAD + "out = (y.detach(), x.grad)",
    "instance_affine": "x = torch.randn(2, 3, 6, requires_grad=True); "
    "w = torch.randn(3, requires_grad=True); b = torch.randn(3, requires_grad=True); "
    "y = F.instance_norm(x, weight=w, bias=b, eps=1e-3)"
    + GRAD
    + "out = (y.detach(), x.grad, w.grad, b.grad)",
    "instance_running": "x = torch.randn(4, 3, 5) * 2 + 1; rm = torch.zeros(3); "
    "rv = torch.ones(3); y = F.instance_norm(x, rm, rv, momentum=0.2); out = (y, rm, rv)",
    "instance_eval_stats": "x = torch.randn(2, 3, 4, 4); rm = torch.randn(3); "
    "rv = torch.rand(3) + 0.5; out = (F.instance_norm(x, rm, rv, use_input_stats=False), rm, rv)",
    "torch_instance_norm": "x = torch.randn(2, 2, 3); out = torch.instance_norm(x, None, None, "
    "None, None, True, 0.1, 1e-5, False)",
    "instance_float64": "x = torch.randn(2, 3, 4, dtype=torch.float64, requires_grad=True); "
    "y = F.instance_norm(x)" + GRAD + "out = (y.detach(), x.grad)",
    "instance_modules": "x = torch.randn(2, 3, 4, 5, requires_grad=True); "
    "m1 = nn.InstanceNorm2d(3); m2 = nn.InstanceNorm2d(3, affine=True, track_running_stats=True); "
    "y = m1(x) + m2(x)" + GRAD + "out = (y.detach(), x.grad, m2.weight.grad, m2.bias.grad, "
    "m2.running_mean, m2.running_var, m2.num_batches_tracked)",
    "instance_module_eval": "m = nn.InstanceNorm1d(3, track_running_stats=True); "
    "x = torch.randn(4, 3, 6) * 3; m(x); m(x + 1); m.eval(); "
    "out = (m(x), m.running_mean, m.running_var, nn.InstanceNorm1d(3).eval()(x))",
    "instance_unbatched": "out = (nn.InstanceNorm1d(3)(torch.randn(3, 5)), "
    "nn.InstanceNorm2d(2, affine=True)(torch.randn(2, 3, 3)))",
    "instance_mismatch_warns": "out = nn.InstanceNorm1d(3)(torch.randn(2, 4, 5))",
    "instance_reprs": "out = [repr(m) for m in (nn.InstanceNorm1d(3), nn.InstanceNorm2d(4, "
    "affine=True, track_running_stats=True), nn.InstanceNorm2d(2, eps=1e-3, momentum=None), "
    "nn.InstanceNorm1d(5, affine=True, bias=False))] + [sorted(nn.InstanceNorm2d(3, "
    "track_running_stats=True).state_dict()), sorted(nn.InstanceNorm2d(3).state_dict())]",
    "style_transfer_block": "m = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), "
    "nn.InstanceNorm2d(4, affine=True), nn.ReLU()); x = torch.randn(2, 3, 6, 6); y = m(x); "
    "y.sum().backward(); out = (y.detach(), m[0].weight.grad, m[1].weight.grad)",
    "rms_functional": "x = torch.randn(2, 3, 4, requires_grad=True); "
    "w = torch.randn(4, requires_grad=True); y = F.rms_norm(x, [4], w, 1e-5)"
    + GRAD
    + "out = (y.detach(), x.grad, w.grad)",
    "rms_no_weight": "x = torch.randn(2, 3, 4, requires_grad=True); y = F.rms_norm(x, (3, 4))"
    + GRAD
    + "out = (y.detach(), x.grad)",
    "rms_eps_default": "x = torch.full((2, 4), 1e-4); out = (F.rms_norm(x, [4]), "
    "F.rms_norm(x.double(), [4]), F.rms_norm(x, [4], eps=0.1))",
    "rms_torch": "out = torch.rms_norm(torch.randn(3, 5), [5], torch.rand(5), 1e-6)",
    "rms_float64": "x = torch.randn(2, 5, dtype=torch.float64, requires_grad=True); "
    "y = F.rms_norm(x, [5])" + GRAD + "out = (y.detach(), x.grad)",
    "rms_half": "x = torch.randn(2, 8).half(); out = (F.rms_norm(x, [8]), "
    "F.rms_norm(x, [8], torch.ones(8).half()))",
    "rms_weight_dtype": "out = F.rms_norm(torch.randn(2, 4), [4], "
    "torch.ones(4, dtype=torch.float64))",
    "rms_module": "m = nn.RMSNorm([3, 4]); x = torch.randn(2, 3, 4, requires_grad=True); "
    "y = m(x)" + GRAD + "out = (y.detach(), x.grad, m.weight.grad, m.weight)",
    "rms_reprs": "out = [repr(m) for m in (nn.RMSNorm(4), nn.RMSNorm([3, 4], eps=1e-3, "
    "elementwise_affine=False))] + [nn.RMSNorm(4).eps, nn.RMSNorm(2, 0.5).normalized_shape]",
    # instance_norm repeats the per-channel parameters: RepeatBackward0 (repeat_backward)
    "repeat_grad": "x = torch.randn(2, 3, requires_grad=True); y = x.repeat(2, 1, 3); "
    "z = x.repeat(1, 1); w = x.repeat(0, 2); (y * torch.randn(y.shape)).sum().backward(); "
    "g = x.grad.clone(); x.grad = None; (z.sum() + w.sum()).backward(); "
    "out = (y.detach(), g, x.grad, type(y.grad_fn).__name__)",
    # ---- errors ----
    "err_instance_spatial": "out = F.instance_norm(torch.randn(2, 3, 1))",
    "err_instance_stats": "out = F.instance_norm(torch.randn(2, 3, 4), use_input_stats=False)",
    "err_torch_instance_stats": "out = torch.instance_norm(torch.randn(2, 3, 4), None, None, "
    "None, None, False, 0.1, 1e-5, False)",
    "err_instance_weight": "out = F.instance_norm(torch.randn(2, 3, 4), weight=torch.ones(4))",
    "err_instance1d_dim": "out = nn.InstanceNorm1d(3)(torch.randn(2, 3, 4, 5))",
    "err_instance2d_dim": "out = nn.InstanceNorm2d(3)(torch.randn(2, 3))",
    "err_instance_affine_channels": "out = nn.InstanceNorm1d(3, affine=True)(torch.randn(2, 4, 5))",
    "err_instance_unbatched_spatial": "out = nn.InstanceNorm1d(3)(torch.randn(3, 1))",
    "err_rms_shape": "out = F.rms_norm(torch.randn(2, 3, 4), [3])",
    "err_rms_too_many": "out = F.rms_norm(torch.randn(2, 3, 4), [2, 3, 4, 5])",
    "err_rms_weight": "out = F.rms_norm(torch.randn(2, 3, 4), [4], torch.randn(3))",
    "err_rms_empty_shape": "out = F.rms_norm(torch.randn(2, 3, 4), [], None)",
    "err_rms_dtype": "out = F.rms_norm(torch.randn(2, 3, 4).long(), [4])",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_instance_rms_norm(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], **CLOSE)
