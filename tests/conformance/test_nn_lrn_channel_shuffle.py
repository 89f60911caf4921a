"""Conformance of F.local_response_norm / nn.LocalResponseNorm (torch's Python composite over
avg_pool2d / avg_pool3d) and F.channel_shuffle / nn.ChannelShuffle (aten::channel_shuffle >
native_channel_shuffle) against torch 2.13: values, gradients, reprs and errors."""

from __future__ import annotations

import pytest

from .harness import check

PRE = "nn = torch.nn\nF = torch.nn.functional\n"

PROGRAMS = {
    "lrn_3d": "x = torch.randn(2, 5, 7, requires_grad=True); y = F.local_response_norm(x, 3); "
    "(y * torch.randn(y.shape)).sum().backward(); out = (y.detach(), x.grad)",
    "lrn_4d": "x = torch.randn(2, 6, 3, 4, requires_grad=True); "
    "y = F.local_response_norm(x, 4, 1e-2, 0.5, 2.0); (y * torch.randn(y.shape)).sum()"
    ".backward(); out = (y.detach(), x.grad)",
    "lrn_5d_module": "x = torch.randn(1, 4, 2, 3, 2, requires_grad=True); "
    "m = nn.LocalResponseNorm(2, alpha=0.1); y = m(x); y.sum().backward(); "
    "out = (y.detach(), x.grad, repr(m), repr(nn.LocalResponseNorm(5, 1e-3, 0.6, 1.5)))",
    "lrn_empty": "x = torch.randn(0, 3, 4); y = F.local_response_norm(x, 2); out = (y, y is x)",
    "lrn_float64": "x = torch.randn(2, 3, 5, dtype=torch.float64); "
    "out = F.local_response_norm(x, 5, 0.5)",
    "channel_shuffle": "x = torch.arange(2 * 6 * 3.).view(2, 6, 3).requires_grad_(); "
    "y = F.channel_shuffle(x, 3); (y * torch.arange(36.).view(2, 6, 3)).sum().backward(); "
    "out = (y.detach(), x.grad, y.grad_fn.name(), y.is_contiguous())",
    "channel_shuffle_4d": "x = torch.randn(8, 2, 3, 2).transpose(0, 1); "
    "out = (torch.channel_shuffle(x, 4), F.channel_shuffle(x, 1), "
    "torch.native_channel_shuffle(x, 2), F.native_channel_shuffle(x, 8))",
    "channel_shuffle_int_module": "x = torch.arange(48).view(1, 4, 3, 4); "
    "m = nn.ChannelShuffle(2); "
    "out = (m(x), repr(m))",
}

ERRORS = {
    "err_lrn_2d": "out = F.local_response_norm(torch.randn(2, 3), 2)",
    "err_shuffle_2d": "out = F.channel_shuffle(torch.randn(2, 4), 2)",
    "err_shuffle_groups": "out = F.channel_shuffle(torch.randn(1, 4, 2), 0)",
    "err_shuffle_divisible": "out = nn.ChannelShuffle(3)(torch.randn(1, 4, 2))",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_lrn_channel_shuffle(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_lrn_channel_shuffle_errors(name: str) -> None:
    check(PRE + ERRORS[name])
