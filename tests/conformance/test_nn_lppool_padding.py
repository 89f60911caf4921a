"""Conformance of nn.LPPool1d/2d and F.lp_pool1d/2d (torch's Python composite over avg_pool /
max_pool) and of the padding layers ZeroPad1d/3d, ConstantPad3d and CircularPad1d/2d/3d (F.pad)
against torch 2.13: values, gradients, float64, reprs and errors."""

from __future__ import annotations

import pytest

from .harness import check

PRE = "nn = torch.nn\nF = torch.nn.functional\n"

PROGRAMS = {
    "lp_pool1d": "x = torch.randn(2, 3, 8, requires_grad=True); y = F.lp_pool1d(x, 2, 3); "
    "y.sum().backward(); out = (y.detach(), x.grad, F.lp_pool1d(x.detach(), 3, 2, 1), "
    "F.lp_pool1d(x.detach(), 1.5, 3, ceil_mode=True))",
    "lp_pool2d": "x = torch.rand(2, 3, 6, 7, requires_grad=True); y = F.lp_pool2d(x, 2, (2, 3)); "
    "y.sum().backward(); out = (y.detach(), x.grad, F.lp_pool2d(x.detach(), 3, 2, stride=1), "
    "F.lp_pool2d(x.detach(), 1, 3, ceil_mode=True))",
    "lp_pool_inf": "x = torch.randn(1, 2, 6, 6); out = (F.lp_pool2d(x, float('inf'), 2), "
    "F.lp_pool2d(x, -float('inf'), 3, 1), F.lp_pool1d(x[0], float('inf'), 2))",
    "lp_pool_float64": "x = torch.rand(1, 2, 4, 4, dtype=torch.float64, requires_grad=True); "
    "y = nn.LPPool2d(2, 2)(x); y.pow(2).sum().backward(); out = (y.detach(), x.grad)",
    "lp_pool_modules": "x = torch.rand(2, 4, 9); y = nn.LPPool1d(2, 3, stride=2)(x); "
    "out = (y, nn.LPPool2d(1.5, (2, 2), ceil_mode=True)(torch.rand(1, 1, 5, 5)))",
    "lp_pool_reprs": "out = [repr(nn.LPPool1d(2, 3)), repr(nn.LPPool2d(1.5, (3, 2), stride=2, "
    "ceil_mode=True)), repr(nn.LPPool2d(float('inf'), 2))]",
    "zero_pads": "out = (nn.ZeroPad1d(2)(torch.ones(1, 2, 3)), "
    "nn.ZeroPad1d((1, 0))(torch.ones(2, 3)), nn.ZeroPad3d(1)(torch.ones(1, 1, 2, 2, 2)), "
    "nn.ZeroPad3d((1, 0, 0, 2, 1, 1))(torch.ones(1, 2, 1, 2)))",
    "constant_pad3d": "x = torch.randn(1, 2, 2, 3, 2, requires_grad=True); "
    "y = nn.ConstantPad3d((1, 2, 0, 1, 2, 0), 3.5)(x); y.pow(2).sum().backward(); "
    "out = (y.detach(), x.grad, nn.ConstantPad3d(1, -1.0)(torch.ones(2, 1, 1, 1)))",
    "circular_pads": "x = torch.arange(12.).reshape(1, 2, 6); out = (nn.CircularPad1d(2)(x), "
    "nn.CircularPad1d((3, 1))(x[0]), nn.CircularPad2d(1)(torch.arange(9.).view(1, 1, 3, 3)), "
    "nn.CircularPad2d((1, 0, 2, 1))(torch.arange(6.).view(1, 2, 3)), "
    "nn.CircularPad3d(1)(torch.arange(8.).view(1, 1, 2, 2, 2)))",
    "circular_grad": "x = torch.randn(1, 2, 4, 4, requires_grad=True); "
    "y = nn.CircularPad2d((1, 2, 2, 1))(x); (y * torch.randn(y.shape)).sum().backward(); "
    "out = (y.detach(), x.grad)",
    "pad_reprs": "out = [repr(m) for m in (nn.ZeroPad1d(2), nn.ZeroPad3d((1, 0, 0, 2, 1, 1)), "
    "nn.ConstantPad3d(1, 2.5), nn.CircularPad1d(3), nn.CircularPad2d((1, 0, 2, 1)), "
    "nn.CircularPad3d(1))]",
    # ---- errors ----
    "err_circular1d_dim": "out = nn.CircularPad1d(1)(torch.ones(1, 1, 2, 2))",
    "err_circular2d_dim": "out = nn.CircularPad2d(1)(torch.ones(2, 2))",
    "err_circular3d_dim": "out = nn.CircularPad3d(1)(torch.ones(2, 2, 2))",
    "err_circular_too_big": "out = nn.CircularPad1d(4)(torch.ones(1, 1, 3))",
    "err_lp_pool_kernel": "out = F.lp_pool2d(torch.rand(1, 1, 2, 2), 2, 3)",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_lppool_padding(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], rtol=1e-5, atol=1e-5)
