"""Conformance of conv2d (torch.conv2d, F.conv2d, nn.Conv2d) against torch 2.13: values, shapes,
gradients through convolution_backward, weights after manual_seed, repr, and errors."""

from __future__ import annotations

import pytest

from .harness import check

PRE = "nn = torch.nn\nF = torch.nn.functional\n"
CLOSE = {"rtol": 1e-5, "atol": 1e-5}  # sums in another order than torch's kernels

GRAD = (
    "; y.sum().backward() if y.requires_grad else None; out = (y.detach(), x.grad, w.grad, "
    "b.grad if b is not None else None)"
)
SETUP = (
    "x = torch.randn(2, 4, 7, 8, requires_grad=True); "
    "w = torch.randn(6, {cin}, 3, 2, requires_grad=True); "
    "b = torch.randn(6, requires_grad=True); "
)

PROGRAMS = {
    "conv2d_default": SETUP.format(cin=4) + "y = F.conv2d(x, w, b)" + GRAD,
    "conv2d_stride_padding": SETUP.format(cin=4) + "y = torch.conv2d(x, w, b, 2, 1)" + GRAD,
    "conv2d_dilation": SETUP.format(cin=4)
    + "y = F.conv2d(x, w, b, dilation=2, padding=(2, 1))"
    + GRAD,
    "conv2d_groups": SETUP.format(cin=2) + "y = F.conv2d(x, w, b, stride=(1, 2), groups=2)" + GRAD,
    "conv2d_no_bias": SETUP.format(cin=4) + "b = None; y = F.conv2d(x, w)" + GRAD,
    "conv2d_same": SETUP.format(cin=4) + "y = F.conv2d(x, w, b, padding='same')" + GRAD,
    "conv2d_same_dilated": SETUP.format(cin=4) + "y = F.conv2d(x, w, b, padding='same', "
    "dilation=2)" + GRAD,
    "conv2d_valid": SETUP.format(cin=4) + "y = F.conv2d(x, w, b, padding='valid')" + GRAD,
    "conv2d_unbatched": "x = torch.randn(3, 5, 5); w = torch.randn(2, 3, 3, 3); "
    "out = F.conv2d(x, w, padding=1)",
    "conv2d_double": "out = F.conv2d(torch.randn(1, 2, 4, 4, dtype=torch.float64), "
    "torch.randn(3, 2, 2, 2, dtype=torch.float64))",
    "convolution": SETUP.format(cin=4) + "y = torch.convolution(x, w, b, [1, 2], [1, 0], [1], "
    "False, [0], 1)" + GRAD,
    "conv2d_grad_fn": SETUP.format(cin=4) + "out = type(F.conv2d(x, w, b).grad_fn).__name__",
    "module_forward_backward": "m = nn.Conv2d(3, 6, 5); x = torch.randn(4, 3, 32, 32); "
    "y = m(x); y.pow(2).mean().backward(); out = (y.detach(), "
    "m.weight.grad, m.bias.grad)",
    "module_init_bit_equal": "m = nn.Conv2d(3, 6, (3, 2), bias=True); out = (m.weight.detach(), "
    "m.bias.detach(), m.weight.shape)",
    "module_repr": "out = [repr(m) for m in (nn.Conv2d(3, 6, 5), nn.Conv2d(4, 8, 3, stride=2, "
    "padding=1, groups=2, bias=False), nn.Conv2d(1, 2, 3, padding='same', "
    "dilation=2))]",
    "module_lenet": "net = nn.Sequential(nn.Conv2d(3, 6, 5), nn.ReLU(), nn.Flatten(), "
    "nn.Linear(6 * 28 * 28, 10)); out = net(torch.randn(2, 3, 32, 32))",
    # ---- errors ----
    "err_input_dim": "out = F.conv2d(torch.randn(2, 3), torch.randn(1, 1, 1, 1))",
    "err_channels": "out = F.conv2d(torch.randn(1, 2, 8, 8), torch.randn(4, 3, 3, 3))",
    "err_kernel_too_big": "out = F.conv2d(torch.randn(1, 3, 2, 2), torch.randn(4, 3, 3, 3))",
    "err_groups_divisible": "out = F.conv2d(torch.randn(1, 2, 8, 8), torch.randn(3, 1, 3, 3), "
    "groups=2)",
    "err_bias_size": "out = F.conv2d(torch.randn(1, 3, 8, 8), torch.randn(4, 3, 3, 3), "
    "torch.randn(3))",
    "err_stride": "out = F.conv2d(torch.randn(1, 3, 8, 8), torch.randn(4, 3, 3, 3), stride=0)",
    "err_padding": "out = F.conv2d(torch.randn(1, 3, 8, 8), torch.randn(4, 3, 3, 3), padding=-1)",
    "err_same_strided": "out = F.conv2d(torch.randn(1, 3, 8, 8), torch.randn(4, 3, 3, 3), "
    "stride=2, padding='same')",
    "err_padding_string": "out = F.conv2d(torch.randn(1, 3, 8, 8), torch.randn(4, 3, 3, 3), "
    "padding='full')",
    "err_dtype": "out = F.conv2d(torch.randn(1, 3, 8, 8), torch.randn(4, 3, 3, 3, "
    "dtype=torch.float64))",
    "err_bias_dtype": "out = F.conv2d(torch.randn(1, 3, 8, 8), torch.randn(4, 3, 3, 3), "
    "torch.randn(4, dtype=torch.float64))",
    "err_groups_zero": "out = F.conv2d(torch.randn(1, 2, 8, 8), torch.randn(3, 2, 3, 3), groups=0)",
    "err_groups_at_least": "out = F.conv2d(torch.randn(1, 2, 8, 8), torch.randn(1, 1, 3, 3), "
    "groups=2)",
    "err_dilation": "out = F.conv2d(torch.randn(1, 3, 8, 8), torch.randn(4, 3, 3, 3), "
    "dilation=(1, 0))",
    "err_weight_3d": "out = F.conv2d(torch.randn(1, 3, 8, 8), torch.randn(4, 3, 3))",
    "conv2d_int64": "out = F.conv2d(torch.arange(50).reshape(1, 2, 5, 5), "
    "torch.ones(1, 2, 2, 2, dtype=torch.int64), stride=2)",
    "err_module_padding_string": "out = nn.Conv2d(3, 4, 3, padding='full')",
    "err_module_groups": "out = nn.Conv2d(3, 4, 3, groups=2)",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_conv(name: str) -> None:
    prog = "torch.manual_seed(0)\n" + PRE + PROGRAMS[name]
    if name.startswith("module_init"):
        check(prog)
    else:
        check(prog, **CLOSE)
