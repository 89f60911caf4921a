"""Conformance of adaptive max pooling (torch.adaptive_max_pool1d, F.adaptive_max_pool1d/2d,
nn.AdaptiveMaxPool1d/2d) against torch 2.13: values, indices, gradients, double backward,
reprs and errors."""

from __future__ import annotations

import pytest

from .harness import check

PRE = "nn = torch.nn\nF = torch.nn.functional\n"
X = "x = torch.randn(2, 3, 7, 8, requires_grad=True); "
GRAD = "; (y * torch.randn(y.shape)).sum().backward(); out = (y.detach(), x.grad)"

PROGRAMS = {
    "pool2d": X + "y = F.adaptive_max_pool2d(x, (3, 5))" + GRAD,
    "pool2d_one": X + "y = F.adaptive_max_pool2d(x, 1)" + GRAD,
    "pool2d_none": X + "y = F.adaptive_max_pool2d(x, (None, 3))" + GRAD,
    "pool2d_larger": X + "y = F.adaptive_max_pool2d(x, (9, 10))" + GRAD,
    "pool2d_indices": X + "y, i = F.adaptive_max_pool2d(x, (2, 3), return_indices=True); "
    "y.sum().backward(); out = (y.detach(), i, x.grad)",
    "pool2d_unbatched": "out = F.adaptive_max_pool2d(torch.randn(3, 5, 6), 4, True)",
    "pool2d_c_nn": "out = torch._C._nn.adaptive_max_pool2d(torch.randn(1, 2, 5, 5), [2, 3])",
    "pool2d_float64": "x = torch.randn(1, 2, 5, 6, dtype=torch.float64, requires_grad=True); "
    "y = F.adaptive_max_pool2d(x, 3); y.sum().backward(); out = (y.detach(), x.grad)",
    "ties_nan": "x = torch.tensor([[[1., 3., 3., 2.]], [[1., float('nan'), 3., float('nan')]]]); "
    "out = F.adaptive_max_pool2d(x, (1, 1), return_indices=True)",
    "empty_batch": "out = F.adaptive_max_pool2d(torch.randn(0, 2, 4, 3), 2, True)",
    "double_backward": "x = torch.randn(1, 1, 4, 4, requires_grad=True); "
    "y = F.adaptive_max_pool2d(x, 2); g, = torch.autograd.grad(y.sum(), x, create_graph=True); "
    "(g * torch.arange(16.).view(1, 1, 4, 4)).sum().backward(); out = (g.detach(), x.grad)",
    "pool1d": "x = torch.randn(2, 3, 9, requires_grad=True); y = F.adaptive_max_pool1d(x, 4)"
    + GRAD,
    "pool1d_indices": "x = torch.randn(2, 3, 9); out = (F.adaptive_max_pool1d(x, 4, True), "
    "torch.adaptive_max_pool1d(x, [2]), F.adaptive_max_pool1d(x[0], 5, return_indices=True))",
    "pool1d_zero": "out = F.adaptive_max_pool1d(torch.randn(2, 3, 4), 0)",
    "modules": "x = torch.randn(2, 3, 8, 8); out = (nn.AdaptiveMaxPool2d((2, 3))(x), "
    "nn.AdaptiveMaxPool2d(3, return_indices=True)(x), nn.AdaptiveMaxPool1d(5)(x[0]), "
    "nn.AdaptiveMaxPool1d(2, True)(x[0]))",
    "module_reprs": "out = [repr(m) for m in (nn.AdaptiveMaxPool2d((5, 7)), "
    "nn.AdaptiveMaxPool2d((2, None), return_indices=True), nn.AdaptiveMaxPool1d(3), "
    "nn.AdaptiveMaxPool2d(1))]",
    "classifier_head": "m = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), "
    "nn.AdaptiveMaxPool2d(1), nn.Flatten(), nn.Linear(4, 2)); x = torch.randn(2, 3, 9, 7); "
    "y = m(x); y.sum().backward(); out = (y.detach(), m[0].bias.grad)",
    # ---- errors ----
    "err_dim": "out = F.adaptive_max_pool2d(torch.randn(2, 3), 2)",
    "err_empty_dim": "out = F.adaptive_max_pool2d(torch.randn(1, 2, 0, 3), 2)",
    "err_dtype": "out = F.adaptive_max_pool2d(torch.randn(1, 2, 4, 3).long(), 2)",
    "err_output_len": "out = F.adaptive_max_pool2d(torch.randn(1, 2, 4, 3), (2, 3, 4))",
    "err_negative": "out = F.adaptive_max_pool2d(torch.randn(1, 2, 4, 3), -1)",
    "err_1d_dim": "out = F.adaptive_max_pool1d(torch.randn(2, 3, 4, 5), 2)",
    "err_1d_empty": "out = F.adaptive_max_pool1d(torch.randn(2, 0, 4), 2)",
    "err_1d_output": "out = F.adaptive_max_pool1d(torch.randn(2, 3, 4), (2, 3))",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_adaptive_max_pool(name: str) -> None:
    tol = 1e-5 if name == "classifier_head" else 0.0  # the conv's sums in another order
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], rtol=tol, atol=tol)
