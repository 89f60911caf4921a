"""Conformance of nn.AdaptiveAvgPool3d / F.adaptive_avg_pool3d (aten::adaptive_avg_pool3d >
_adaptive_avg_pool3d and its backward) against torch 2.13: values, gradients, double backward,
float64, reprs and errors."""

from __future__ import annotations

import pytest

from .harness import check

PRE = "nn = torch.nn\nF = torch.nn.functional\n"

PROGRAMS = {
    "values": "x = torch.randn(2, 3, 5, 6, 7); out = (F.adaptive_avg_pool3d(x, (2, 3, 4)), "
    "F.adaptive_avg_pool3d(x, 3), F.adaptive_avg_pool3d(x, (None, 2, None)), "
    "F.adaptive_avg_pool3d(x, 1), F.adaptive_avg_pool3d(x, (7, 8, 9)))",
    "unbatched": "out = F.adaptive_avg_pool3d(torch.randn(3, 4, 5, 6), (2, 2, 3))",
    "grad": "x = torch.randn(2, 2, 4, 5, 3, requires_grad=True); "
    "y = F.adaptive_avg_pool3d(x, (3, 2, 2)); (y * torch.randn(y.shape)).sum().backward(); "
    "out = (y.detach(), x.grad, y.grad_fn.name())",
    "float64_double_backward": "x = torch.randn(1, 2, 3, 4, 5, dtype=torch.float64, "
    "requires_grad=True); y = F.adaptive_avg_pool3d(x, (2, 3, 2)); "
    "g, = torch.autograd.grad(y.pow(2).sum(), x, create_graph=True); g.pow(2).sum().backward(); "
    "out = (y.detach(), g.detach(), x.grad)",
    "empty_batch": "out = F.adaptive_avg_pool3d(torch.randn(0, 2, 3, 3, 4), 2)",
    "module": "m = nn.AdaptiveAvgPool3d((2, None, 1)); out = (m(torch.randn(2, 3, 4, 5, 6)), "
    "repr(m), repr(nn.AdaptiveAvgPool3d(3)))",
    # ---- errors ----
    "err_dim": "out = F.adaptive_avg_pool3d(torch.randn(2, 3, 4), 2)",
    "err_empty": "out = F.adaptive_avg_pool3d(torch.randn(1, 2, 0, 3, 4), 2)",
    "err_negative": "out = F.adaptive_avg_pool3d(torch.randn(2, 3, 3, 4), (2, -1, 1))",
    "err_len": "out = torch._C._nn.adaptive_avg_pool3d(torch.randn(2, 3, 3, 4), [2, 2])",
    "err_long": "out = F.adaptive_avg_pool3d(torch.ones(2, 3, 3, 4, dtype=torch.long), 2)",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_adaptive_avg_pool3d(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], rtol=1e-5, atol=1e-5)
