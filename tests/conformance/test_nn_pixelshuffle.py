"""Conformance of pixel_shuffle / pixel_unshuffle (torch.*, F.*, nn.PixelShuffle /
nn.PixelUnshuffle) against torch 2.13: values, shapes, strides, dtypes, gradients, reprs and
errors."""

from __future__ import annotations

import pytest

from .harness import check

PRE = "nn = torch.nn\nF = torch.nn.functional\n"

PROGRAMS = {
    "shuffle": "x = torch.arange(2 * 8 * 2 * 3.).reshape(2, 8, 2, 3).requires_grad_(); "
    "y = F.pixel_shuffle(x, 2); (y * torch.randn(y.shape)).sum().backward(); "
    "out = (y.detach(), x.grad)",
    "unshuffle": "x = torch.randn(2, 3, 4, 6, requires_grad=True); y = F.pixel_unshuffle(x, 2); "
    "(y * torch.randn(y.shape)).sum().backward(); out = (y.detach(), x.grad)",
    "roundtrip": "x = torch.randn(1, 18, 4, 5); "
    "out = (torch.pixel_unshuffle(torch.pixel_shuffle(x, 3), 3), torch.pixel_shuffle(x, 1))",
    "unbatched": "x = torch.randn(9, 2, 2); out = (F.pixel_shuffle(x, 3), "
    "F.pixel_unshuffle(F.pixel_shuffle(x, 3), 3))",
    "extra_batch_dims": "x = torch.randn(2, 3, 4, 2, 2); out = (F.pixel_shuffle(x, 2), "
    "F.pixel_unshuffle(torch.randn(2, 2, 1, 4, 6), 2))",
    "non_contiguous": "x = torch.randn(2, 3, 8, 4).transpose(1, 3); "
    "out = (F.pixel_shuffle(x, 2), F.pixel_unshuffle(x, 1))",
    "dtypes": "x = torch.arange(32).reshape(1, 8, 2, 2); out = (F.pixel_shuffle(x, 2), "
    "F.pixel_shuffle(x.double(), 2), F.pixel_unshuffle(x > 10, 2), F.pixel_shuffle(x.int(), 2))",
    "float64_grad": "x = torch.randn(1, 4, 3, 3, dtype=torch.float64, requires_grad=True); "
    "y = F.pixel_shuffle(x, 2); y.pow(2).sum().backward(); out = (y.detach(), x.grad)",
    # the CPU's pixel_unshuffle returns an empty input unchanged (a clone), other devices take
    # the math path's shape: the empty input is on the CPU, as in torch's run
    "empty": "out = (F.pixel_shuffle(torch.randn(0, 8, 2, 2), 2), "
    "F.pixel_unshuffle(torch.randn(0, 2, 4, 4, device='cpu'), 2))",
    "not_alias": "x = torch.randn(1, 1, 2, 2); y = F.pixel_shuffle(x, 1); y.add_(1); out = (x, y)",
    "modules": "x = torch.randn(2, 8, 3, 3, requires_grad=True); "
    "m = nn.Sequential(nn.PixelShuffle(2), nn.PixelUnshuffle(3)); y = m(x); "
    "y.sum().backward(); out = (y.detach(), x.grad)",
    "module_reprs": "out = [repr(nn.PixelShuffle(3)), repr(nn.PixelUnshuffle(2)), "
    "nn.PixelShuffle(4).upscale_factor, nn.PixelUnshuffle(5).downscale_factor]",
    "super_resolution": "class Net(nn.Module):\n    def __init__(self, r):\n"
    "        super().__init__()\n        self.conv1 = nn.Conv2d(1, 8, 5, padding=2)\n"
    "        self.conv2 = nn.Conv2d(8, r * r, 3, padding=1)\n"
    "        self.pixel_shuffle = nn.PixelShuffle(r)\n    def forward(self, x):\n"
    "        return self.pixel_shuffle(self.conv2(torch.tanh(self.conv1(x))))\n"
    "net = Net(3); x = torch.randn(2, 1, 6, 6); y = net(x); "
    "loss = F.mse_loss(y, torch.randn(2, 1, 18, 18)); loss.backward(); "
    "out = (y.detach(), loss.detach(), net.conv2.weight.grad)",
    # ---- errors ----
    "err_dim": "out = F.pixel_shuffle(torch.randn(2, 3), 2)",
    "err_factor": "out = F.pixel_shuffle(torch.randn(2, 3, 4), 0)",
    "err_channels": "out = F.pixel_shuffle(torch.randn(2, 3, 4, 4), 2)",
    "err_unshuffle_dim": "out = F.pixel_unshuffle(torch.randn(2, 3), 2)",
    "err_unshuffle_factor": "out = F.pixel_unshuffle(torch.randn(2, 3, 4), -1)",
    "err_unshuffle_height": "out = F.pixel_unshuffle(torch.randn(2, 3, 5, 4), 2)",
    "err_unshuffle_width": "out = nn.PixelUnshuffle(2)(torch.randn(2, 3, 4, 5))",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_pixelshuffle(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], rtol=1e-6, atol=1e-6)
