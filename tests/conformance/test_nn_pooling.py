"""Conformance of max_pool2d (with indices), avg_pool2d and adaptive_avg_pool2d (torch.*, F.*,
nn.*Pool2d) against torch 2.13: values, indices, shapes, gradients, repr and errors."""

from __future__ import annotations

import pytest

from .harness import check

PRE = "nn = torch.nn\nF = torch.nn.functional\n"
CLOSE = {"rtol": 1e-6, "atol": 1e-6}
X = "x = torch.randn(2, 3, 7, 8, requires_grad=True); "
GRAD = "; y.pow(2).sum().backward(); out = (y.detach(), x.grad)"

PROGRAMS = {
    "max_default": X + "y = F.max_pool2d(x, 2)" + GRAD,
    "max_stride_pad": X + "y = F.max_pool2d(x, 3, stride=2, padding=1)" + GRAD,
    "max_dilation_ceil": X + "y = F.max_pool2d(x, (2, 3), (2, 1), 0, 2, ceil_mode=True)" + GRAD,
    "max_ceil": X + "y = F.max_pool2d(x, 3, 2, ceil_mode=True)" + GRAD,
    "max_indices": X + "y, i = F.max_pool2d(x, 2, return_indices=True); y.sum().backward(); "
    "out = (y.detach(), i, x.grad)",
    "max_torch": "out = torch.max_pool2d(torch.randn(1, 2, 6, 6), [2, 2], [1, 2])",
    "max_unbatched": "out = F.max_pool2d(torch.randn(3, 5, 5), 2)",
    "max_ties_nan": "x = torch.tensor([[[[1., 1.], [0., 1.]], [[float('nan'), 2.], [float('nan'),"
    " 0.]]]]); out = F.max_pool2d(x, 2, return_indices=True)",
    "max_int": "out = F.max_pool2d(torch.arange(16).reshape(1, 4, 4), 2, return_indices=True)",
    "max_double_backward": "x = torch.randn(1, 1, 4, 4, requires_grad=True); y = F.max_pool2d(x,"
    " 2); g, = torch.autograd.grad(y.sum(), x, create_graph=True); "
    "(g * torch.arange(16.).view(1, 1, 4, 4)).sum().backward(); "
    "out = (g.detach(), x.grad)",
    "avg_default": X + "y = F.avg_pool2d(x, 2)" + GRAD,
    "avg_pad_count": X + "y = F.avg_pool2d(x, 3, 2, 1)" + GRAD,
    "avg_pad_no_count": X + "y = F.avg_pool2d(x, 3, 2, 1, count_include_pad=False)" + GRAD,
    "avg_ceil": X + "y = F.avg_pool2d(x, 3, 2, 1, ceil_mode=True)" + GRAD,
    "avg_divisor": X + "y = F.avg_pool2d(x, (2, 3), divisor_override=5)" + GRAD,
    "adaptive": X + "y = F.adaptive_avg_pool2d(x, (3, 5))" + GRAD,
    "adaptive_one": X + "y = F.adaptive_avg_pool2d(x, 1)" + GRAD,
    "adaptive_none": X + "y = F.adaptive_avg_pool2d(x, (None, 3))" + GRAD,
    "adaptive_larger": X + "y = F.adaptive_avg_pool2d(x, (9, 10))" + GRAD,
    "modules": "x = torch.randn(2, 3, 8, 8); out = (nn.MaxPool2d(2)(x), nn.MaxPool2d(3, 2, 1, "
    "return_indices=True)(x), nn.AvgPool2d(2, 1)(x), nn.AdaptiveAvgPool2d((2, 3))(x))",
    "module_reprs": "out = [repr(m) for m in (nn.MaxPool2d(2), nn.MaxPool2d((2, 3), 1, 1, "
    "ceil_mode=True), nn.AvgPool2d(3), nn.AdaptiveAvgPool2d((5, 7)), "
    "nn.AdaptiveAvgPool2d(1))]",
    "cifar_net": "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
    "        self.conv1 = nn.Conv2d(3, 6, 5)\n        self.pool = nn.MaxPool2d(2, 2)"
    "\n        self.conv2 = nn.Conv2d(6, 16, 5)\n        self.fc1 = nn.Linear(16 * 5 "
    "* 5, 120)\n        self.fc2 = nn.Linear(120, 10)\n    def forward(self, x):\n"
    "        x = self.pool(F.relu(self.conv1(x)))\n        x = self.pool(F.relu("
    "self.conv2(x)))\n        x = torch.flatten(x, 1)\n        return self.fc2(F."
    "relu(self.fc1(x)))\nnet = Net(); x = torch.randn(4, 3, 32, 32); loss = F."
    "cross_entropy(net(x), torch.tensor([1, 2, 3, 4])); loss.backward(); out = ("
    "loss.detach(), net.conv1.weight.grad, net.fc1.bias.grad)",
    # ---- errors ----
    "err_pad_too_big": "out = F.max_pool2d(torch.randn(1, 1, 6, 6), 2, padding=2)",
    "err_too_small": "out = F.max_pool2d(torch.randn(1, 3, 2, 2), 3)",
    "err_kernel_tuple": "out = F.max_pool2d(torch.randn(1, 1, 6, 6), (2, 2, 2))",
    "err_input_dim": "out = F.max_pool2d(torch.randn(6, 6), 2)",
    "err_avg_divisor_zero": "out = F.avg_pool2d(torch.randn(1, 1, 6, 6), 2, divisor_override=0)",
    "err_avg_too_small": "out = F.avg_pool2d(torch.randn(1, 3, 2, 2), 3)",
    "err_adaptive_dim": "out = F.adaptive_avg_pool2d(torch.randn(6, 6), 2)",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_pooling(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], **CLOSE)
