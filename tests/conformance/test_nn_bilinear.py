"""Conformance of F.bilinear / nn.Bilinear (aten::bilinear > aten::_trilinear, whose derivative
is _trilinear again) against torch 2.13: values, gradients, float64, reprs and errors."""

from __future__ import annotations

import pytest

from .harness import check

PRE = "nn = torch.nn\nF = torch.nn.functional\n"

PROGRAMS = {
    "bilinear": "x1 = torch.randn(5, 3); x2 = torch.randn(5, 2); W = torch.randn(4, 3, 2); "
    "b = torch.randn(4); out = (F.bilinear(x1, x2, W, b), F.bilinear(x1, x2, W), "
    "torch.bilinear(x1, x2, W, b))",
    "grads": "x1 = torch.randn(2, 3, 4, requires_grad=True); "
    "x2 = torch.randn(2, 3, 5, requires_grad=True); W = torch.randn(6, 4, 5, requires_grad=True); "
    "b = torch.randn(6, requires_grad=True); y = F.bilinear(x1, x2, W, b); "
    "(y * torch.randn(y.shape)).sum().backward(); "
    "out = (y.detach(), x1.grad, x2.grad, W.grad, b.grad, y.grad_fn.name())",
    "float64_double_backward": "x1 = torch.randn(3, 2, dtype=torch.float64, requires_grad=True); "
    "x2 = torch.randn(3, 4, dtype=torch.float64); W = torch.randn(2, 2, 4, dtype=torch.float64, "
    "requires_grad=True); y = F.bilinear(x1, x2, W); g, = torch.autograd.grad(y.pow(2).sum(), "
    "x1, create_graph=True); g.sum().backward(); out = (y.detach(), g.detach(), W.grad)",
    "unbatched": "out = F.bilinear(torch.randn(3), torch.randn(2), torch.randn(4, 3, 2), "
    "torch.randn(4))",
    "empty_batch": "out = F.bilinear(torch.randn(0, 3), torch.randn(0, 3), torch.randn(4, 3, 3))",
    "trilinear": "a, b, c = torch.randn(2, 3), torch.randn(2, 3), torch.randn(2, 3); "
    "out = (torch._trilinear(a, b, c, [], [], [], [1]), "
    "torch._trilinear(a, b, c, [], [], [], [0], 0), torch._trilinear(a, b, c, [], [], [], []))",
    "module": "m = nn.Bilinear(3, 2, 4); x1 = torch.randn(5, 3); x2 = torch.randn(5, 2); "
    "y = m(x1, x2); y.sum().backward(); out = (y.detach(), m.weight.grad, m.bias.grad, "
    "m.weight.shape)",
    "module_no_bias_float64": "m = nn.Bilinear(2, 2, 3, bias=False, dtype=torch.float64); "
    "out = (m(torch.ones(1, 2, dtype=torch.float64), torch.ones(1, 2, dtype=torch.float64)), "
    "m.bias)",
    "module_reprs": "out = [repr(nn.Bilinear(3, 2, 4)), repr(nn.Bilinear(1, 1, 1, bias=False))]",
    # ---- errors ----
    "err_dtype": "out = F.bilinear(torch.randn(2, 3), torch.randn(2, 3).double(), "
    "torch.randn(4, 3, 3))",
    "err_dtype_bias": "out = F.bilinear(torch.randn(2, 3), torch.randn(2, 3), "
    "torch.randn(4, 3, 3), torch.randn(4).double())",
    "err_dims": "out = F.bilinear(torch.randn(2, 3), torch.randn(2, 1, 3), torch.randn(4, 3, 3))",
    "err_batch": "out = F.bilinear(torch.randn(2, 3), torch.randn(5, 3), torch.randn(4, 3, 3))",
    "err_input1": "out = F.bilinear(torch.randn(2, 2), torch.randn(2, 3), torch.randn(4, 3, 3))",
    "err_input2": "out = F.bilinear(torch.randn(2, 3), torch.randn(2, 2), torch.randn(4, 3, 3))",
    "err_bias": "out = F.bilinear(torch.randn(2, 3), torch.randn(2, 3), torch.randn(4, 3, 3), "
    "torch.randn(3))",
    "err_unroll_dim": "out = torch._trilinear(torch.randn(2, 3), torch.randn(2, 3), "
    "torch.randn(2, 3), [], [], [], [1], 5)",
    "err_in1_features": "out = nn.Bilinear(0, 2, 3)",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_bilinear(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], rtol=1e-5, atol=1e-5)
