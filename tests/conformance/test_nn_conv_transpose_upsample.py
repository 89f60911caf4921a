"""Conformance of the transposed convolutions (F.conv_transpose1d / 2d, nn.ConvTranspose1d / 2d)
and of upsampling (F.interpolate, nn.Upsample, nn.UpsamplingNearest2d) against torch 2.13:
values, shapes, gradients of input / weight / bias, weights after manual_seed, reprs, errors,
and a DCGAN-tutorial-shaped generator / discriminator trained for three steps."""

from __future__ import annotations

import pytest

from .harness import check

PRE = "nn = torch.nn\nF = torch.nn.functional\n"
CLOSE = {"rtol": 1e-5, "atol": 1e-5}  # sums in another order than torch's kernels

GRAD = (
    "; (y * y).sum().backward(); out = (y.detach(), x.grad, w.grad, "
    "b.grad if b is not None else None)"
)
SETUP = (
    "x = torch.randn(2, 4, 5, 6, requires_grad=True); "
    "w = torch.randn(4, {cout}, 3, 2, requires_grad=True); "
    "b = torch.randn({bias}, requires_grad=True); "
)

CONV_TRANSPOSE = {
    "ct2d_default": SETUP.format(cout=3, bias=3) + "y = F.conv_transpose2d(x, w, b)" + GRAD,
    "ct2d_stride": SETUP.format(cout=3, bias=3) + "y = F.conv_transpose2d(x, w, b, 2)" + GRAD,
    "ct2d_padding_output_padding": SETUP.format(cout=3, bias=3)
    + "y = F.conv_transpose2d(x, w, b, stride=(2, 3), padding=(1, 0), output_padding=(1, 2))"
    + GRAD,
    "ct2d_dilation": SETUP.format(cout=3, bias=3)
    + "y = F.conv_transpose2d(x, w, b, stride=2, dilation=(2, 3), output_padding=(1, 2))"
    + GRAD,
    "ct2d_groups": SETUP.format(cout=3, bias=6)
    + "y = F.conv_transpose2d(x, w, b, stride=2, padding=1, groups=2)"
    + GRAD,
    "ct2d_no_bias": SETUP.format(cout=3, bias=3)
    + "b = None; y = torch.conv_transpose2d(x, w)"
    + GRAD,
    "ct2d_unbatched": "x = torch.randn(3, 4, 4); w = torch.randn(3, 2, 3, 3); "
    "out = F.conv_transpose2d(x, w, stride=2)",
    "ct2d_double": "out = F.conv_transpose2d(torch.randn(1, 2, 3, 3, dtype=torch.float64), "
    "torch.randn(2, 3, 2, 2, dtype=torch.float64), stride=2)",
    "ct2d_convolution": SETUP.format(cout=3, bias=3)
    + "y = torch.convolution(x, w, b, [2, 1], [1, 0], [1, 1], True, [1, 0], 1)"
    + GRAD,
    "ct2d_grad_fn": SETUP.format(cout=3, bias=3)
    + "out = type(F.conv_transpose2d(x, w, b)).__name__, "
    "type(F.conv_transpose2d(x, w, b).grad_fn).__name__",
    "ct2d_slow_direct": "x = torch.randn(1, 2, 3, 3, requires_grad=True); "
    "w = torch.randn(2, 3, 3, 3, requires_grad=True); "
    "b = torch.randn(3, requires_grad=True); "
    "y = torch._C._nn.slow_conv_transpose2d(x, w, [3, 3], b, [2, 2], [1, 1], [1, 1])" + GRAD,
    "ct1d": "x = torch.randn(2, 4, 7, requires_grad=True); "
    "w = torch.randn(4, 3, 3, requires_grad=True); b = torch.randn(6, requires_grad=True); "
    "y = F.conv_transpose1d(x, w, b, stride=3, padding=1, output_padding=2, groups=2, "
    "dilation=2)" + GRAD,
    "ct1d_unbatched": "out = F.conv_transpose1d(torch.randn(2, 5), torch.randn(2, 3, 2))",
    "module_init_bit_equal": "m = nn.ConvTranspose2d(3, 4, (3, 2), groups=1); "
    "m1 = nn.ConvTranspose1d(4, 6, 3, groups=2); out = (m.weight.detach(), m.bias.detach(), "
    "m.weight.shape, m1.weight.detach(), m1.bias.detach(), m1.weight.shape)",
    "module_forward_backward": "m = nn.ConvTranspose2d(3, 4, 3, stride=2); "
    "x = torch.randn(2, 3, 5, 5, requires_grad=True); y = m(x); y.pow(2).mean().backward(); "
    "out = (y.detach(), x.grad, m.weight.grad, m.bias.grad)",
    "module_output_size": "m = nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1); "
    "x = torch.randn(1, 3, 5, 5); out = (m(x).shape, m(x, output_size=[10, 10]).shape, "
    "m(x, output_size=(1, 4, 9, 10)).detach())",
    "module_1d_output_size": "m = nn.ConvTranspose1d(2, 2, 3, stride=3); "
    "out = m(torch.randn(2, 4), output_size=[12])",
    "module_repr": "out = [repr(m) for m in (nn.ConvTranspose2d(3, 4, 3, stride=2), "
    "nn.ConvTranspose2d(4, 8, (3, 2), stride=2, padding=1, output_padding=1, groups=2, "
    "bias=False, dilation=2), nn.ConvTranspose1d(2, 3, 4))]",
    # ---- errors ----
    "err_output_padding": "out = F.conv_transpose2d(torch.randn(1, 2, 4, 4), "
    "torch.randn(2, 3, 3, 3), stride=2, output_padding=2)",
    "err_channels": "out = F.conv_transpose2d(torch.randn(1, 3, 4, 4), torch.randn(2, 3, 3, 3))",
    "err_bias": "out = F.conv_transpose2d(torch.randn(1, 2, 4, 4), torch.randn(2, 3, 3, 3), "
    "torch.randn(2))",
    "err_negative_output_padding": "out = F.conv_transpose2d(torch.randn(1, 2, 4, 4), "
    "torch.randn(2, 3, 3, 3), output_padding=-1)",
    "err_input_dim": "out = F.conv_transpose2d(torch.randn(2, 4), torch.randn(2, 3, 3, 3))",
    "err_output_too_small": "out = F.conv_transpose2d(torch.randn(1, 2, 1, 1), "
    "torch.randn(2, 3, 1, 1), padding=1)",
    "err_groups": "out = F.conv_transpose2d(torch.randn(1, 3, 4, 4), torch.randn(3, 3, 3, 3), "
    "groups=2)",
    "err_module_output_size": "out = nn.ConvTranspose2d(3, 4, 3, stride=2)"
    "(torch.randn(1, 3, 5, 5), output_size=[13, 13])",
    "err_module_output_size_len": "out = nn.ConvTranspose2d(3, 4, 3, stride=2)"
    "(torch.randn(1, 3, 5, 5), output_size=[11])",
    "err_module_padding_mode": "out = nn.ConvTranspose2d(3, 4, 3, padding_mode='reflect')",
    "err_module_groups": "out = nn.ConvTranspose2d(3, 4, 3, groups=2)",
}

DCGAN = """
nz, ngf, ndf = 4, 6, 4
netG = nn.Sequential(
    nn.ConvTranspose2d(nz, ngf, 4, 1, 0, bias=False), nn.BatchNorm2d(ngf), nn.ReLU(True),
    nn.ConvTranspose2d(ngf, 3, 4, 2, 1, bias=False), nn.Tanh())
netD = nn.Sequential(
    nn.Conv2d(3, ndf, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),
    nn.Conv2d(ndf, 1, 4, 1, 0, bias=False), nn.Sigmoid())
criterion = nn.BCELoss()
optD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
optG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
real = torch.randn(3, 3, 8, 8).tanh()
losses = []
for step in range(3):
    netD.zero_grad()
    label = torch.full((3,), 1.0)
    errD_real = criterion(netD(real).view(-1), label)
    errD_real.backward()
    fake = netG(torch.randn(3, nz, 1, 1))
    label.fill_(0.0)
    errD_fake = criterion(netD(fake.detach()).view(-1), label)
    errD_fake.backward()
    optD.step()
    netG.zero_grad()
    label.fill_(1.0)
    errG = criterion(netD(fake).view(-1), label)
    errG.backward()
    optG.step()
    losses.append((errD_real.item() + errD_fake.item(), errG.item()))
out = (torch.tensor(losses), fake.detach(), netG[0].weight.detach())
"""


@pytest.mark.parametrize("name", sorted(CONV_TRANSPOSE))
def test_conv_transpose(name: str) -> None:
    prog = "torch.manual_seed(0)\n" + PRE + CONV_TRANSPOSE[name]
    if name.startswith("module_init"):
        check(prog)
    else:
        check(prog, **CLOSE)


def test_dcgan_three_steps() -> None:
    check("torch.manual_seed(0)\n" + PRE + DCGAN, rtol=1e-4, atol=1e-5)
