"""Conformance of nn.utils.fusion (an eval-mode BatchNorm folded into the conv / linear layer
before it) against torch 2.13: fused weights and outputs, dtypes, requires_grad, errors."""

from __future__ import annotations

import pytest

from .harness import check

# data and weights from the CPU generator (device='cpu'), moved to the harness's device: on
# the emulated CUDA device they would draw from its generator, and torch's from the CPU one
PRE = (
    "nn = torch.nn\nU = torch.nn.utils\ndev = torch.empty(0).device\n"
    "def stats(bn):\n    with torch.no_grad():\n"
    "        bn.running_mean.copy_(torch.randn(bn.num_features, device='cpu'))\n"
    "        bn.running_var.copy_(torch.rand(bn.num_features, device='cpu') + 0.5)\n"
    "        if bn.affine:\n"
    "            bn.weight.copy_(torch.randn(bn.num_features, device='cpu'))\n"
    "            bn.bias.copy_(torch.randn(bn.num_features, device='cpu'))\n"
    "    return bn.to(dev).eval()\n"
)

PROGRAMS = {
    "conv2d": "c = nn.Conv2d(2, 3, 3, device='cpu').to(dev).eval(); "
    "bn = stats(nn.BatchNorm2d(3))\nx = torch.randn(1, 2, 5, 5, device='cpu').to(dev)\n"
    "f = U.fuse_conv_bn_eval(c, bn)\nout = (f(x).detach(), bn(c(x)).detach(), "
    "f.weight.detach(), type(f.weight).__name__, f.weight.requires_grad, f is c)",
    "conv2d_on_device": "c = nn.Conv2d(2, 3, 3, device='cpu').to(dev).eval(); bn = "
    "stats(nn.BatchNorm2d(3))\n"
    "f = U.fuse_conv_bn_eval(c, bn); out = (f.weight.detach(), f.bias.detach())",
    "conv1d_no_bias_no_affine": "c = nn.Conv1d(2, 4, 2, bias=False, device='cpu').to(dev).eval()\n"
    "bn = stats(nn.BatchNorm1d(4, affine=False))\nf = U.fuse_conv_bn_eval(c, bn)\n"
    "out = (f.weight.detach(), f.bias.detach(), c.bias)",
    "conv_transpose": "c = nn.ConvTranspose2d(2, 3, 2, device='cpu').to(dev).eval(); "
    "bn = stats(nn.BatchNorm2d(3))\nx = torch.randn(1, 2, 3, 3, device='cpu').to(dev)\n"
    "f = U.fuse_conv_bn_eval(c, bn, transpose=True)\n"
    "out = (f(x).detach(), bn(c(x)).detach())",
    "linear": "l = nn.Linear(4, 3, device='cpu').to(dev).eval(); bn = stats(nn.BatchNorm1d(3))\n"
    "x = torch.randn(5, 4, device='cpu').to(dev)\nf = U.fuse_linear_bn_eval(l, bn)\n"
    "out = (f(x).detach(), bn(l(x)).detach(), f.bias.requires_grad)",
    "linear_one_feature": "l = nn.Linear(4, 3, bias=False, device='cpu').to(dev).eval(); "
    "bn = stats(nn.BatchNorm1d(1))\nf = U.fuse_linear_bn_eval(l, bn)\n"
    "out = (f.weight.detach(), f.bias.detach())",
    "weights_double": "w = torch.randn(3, 2, 1, dtype=torch.float64).requires_grad_(False)\n"
    "pw, pb = U.fuse_conv_bn_weights(w, None, torch.zeros(3), torch.ones(3), 1e-5, None, "
    "None)\nout = (pw.detach(), pb.detach(), pw.requires_grad, pb.requires_grad)",
    "linear_weights": "pw, pb = U.fuse_linear_bn_weights(torch.ones(2, 3), torch.ones(2), "
    "torch.tensor([1., 2.]), torch.tensor([4., 1.]), 0.0, torch.tensor([2., 3.]), "
    "torch.tensor([0.5, -0.5]))\nout = (pw.detach(), pb.detach())",
    # ---- errors ----
    "err_training": "out = U.fuse_conv_bn_eval(nn.Conv2d(1, 1, 1), nn.BatchNorm2d(1))",
    "err_linear_training": "out = U.fuse_linear_bn_eval(nn.Linear(1, 1), nn.BatchNorm1d(1).eval())",
    "err_no_stats": "out = U.fuse_conv_bn_eval(nn.Conv2d(1, 2, 1).eval(), "
    "nn.BatchNorm2d(2, track_running_stats=False).eval())",
    "err_features": "out = U.fuse_linear_bn_eval(nn.Linear(2, 3).eval(), nn.BatchNorm1d(2).eval())",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_nn_fusion(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], rtol=1e-5, atol=1e-5)
