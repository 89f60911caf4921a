"""Conformance of F.unfold / F.fold and nn.Unfold / nn.Fold (aten::im2col / aten::col2im and
each other's derivative) against torch 2.13: values, shapes, strides, dtypes, gradients, reprs
and errors."""

from __future__ import annotations

import pytest

from .harness import check

PRE = "nn = torch.nn\nF = torch.nn.functional\n"

PROGRAMS = {
    "unfold": "x = torch.arange(2 * 3 * 4 * 5.).reshape(2, 3, 4, 5); out = F.unfold(x, 2)",
    "unfold_args": "x = torch.randn(2, 3, 5, 6, requires_grad=True); "
    "y = F.unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)); "
    "(y * torch.randn(y.shape)).sum().backward(); out = (y.detach(), x.grad)",
    "fold": "c = torch.randn(2, 12, 9, requires_grad=True); "
    "z = F.fold(c, (4, 5), 2, padding=1, stride=(2, 2)); "
    "(z * torch.randn(z.shape)).sum().backward(); out = (z.detach(), c.grad)",
    "fold_overlap": "out = F.fold(torch.ones(1, 3 * 2 * 2, 9), (4, 4), (2, 2))",
    "fold_dilation": "c = torch.randn(1, 2 * 4, 4, requires_grad=True); "
    "z = F.fold(c, (5, 5), 2, dilation=2, padding=(1, 0), stride=(2, 3)); "
    "z.pow(2).sum().backward(); out = (z.detach(), c.grad)",
    "roundtrip_divisor": "x = torch.randn(1, 2, 4, 5); k = dict(kernel_size=2, padding=1); "
    "ones = torch.ones(x.shape); d = F.fold(F.unfold(ones, **k), (4, 5), **k); "
    "out = (F.fold(F.unfold(x, **k), (4, 5), **k) / d, d)",
    "unbatched": "out = (F.unfold(torch.randn(3, 4, 4), 2), F.fold(torch.randn(8, 9), 4, 2), "
    "F.fold(torch.randn(8, 9), [4, 4], [2, 2]))",
    "empty_batch": "out = (F.unfold(torch.randn(0, 2, 3, 3), 2), "
    "F.fold(torch.randn(0, 4, 4), 3, 2))",
    "non_contiguous": "x = torch.randn(2, 5, 4, 3).permute(0, 3, 2, 1); "
    "out = (F.unfold(x, (2, 1), stride=2), F.fold(torch.randn(2, 9, 8).transpose(1, 2), 4, 1))",
    "float64_grad": "x = torch.randn(1, 2, 4, 4, dtype=torch.float64, requires_grad=True); "
    "y = F.unfold(x, 3, padding=1); y.pow(3).sum().backward(); "
    "out = (y.detach(), x.grad, y.grad_fn.name())",
    "fold_float64_grad": "c = torch.randn(2, 4, 9, dtype=torch.float64, requires_grad=True); "
    "z = F.fold(c, 4, 2); z.exp().sum().backward(); out = (z.detach(), c.grad, z.grad_fn.name())",
    "double_backward": "x = torch.randn(1, 1, 3, 3, dtype=torch.float64, requires_grad=True); "
    "y = F.unfold(x, 2); g = torch.ones(y.shape, dtype=torch.float64, requires_grad=True); "
    "gx, = torch.autograd.grad(y, x, g, create_graph=True); gg, = torch.autograd.grad("
    "gx.pow(2).sum(), g); out = (gx.detach(), gg)",
    "dtypes": "x = torch.arange(16.).reshape(1, 1, 4, 4); out = (F.unfold(x > 5, 2), "
    "F.fold(torch.ones(1, 4, 4, dtype=torch.bool), 3, 2), F.unfold(x.half(), 2), "
    "F.fold(x.reshape(1, 4, 4).double(), 3, 2))",
    "out_variant": "o = torch.empty(0); r = torch._C._nn.im2col(torch.randn(1, 1, 3, 3), [2, 2], "
    "[1, 1], [0, 0], [1, 1], out=o); o2 = torch.empty(0); "
    "torch._C._nn.col2im(torch.randn(1, 4, 4), [3, 3], [2, 2], [1, 1], [0, 0], [1, 1], "
    "out=o2); out = (o, r is o, o2)",
    "modules": "x = torch.randn(2, 3, 6, 6, requires_grad=True); "
    "m = nn.Sequential(nn.Unfold(kernel_size=2, stride=2), nn.Fold(output_size=(6, 6), "
    "kernel_size=2, stride=2)); y = m(x); y.sum().backward(); out = (y.detach(), x.grad, "
    "torch.equal(y, x))",
    "module_reprs": "out = [repr(nn.Fold(3, 2)), repr(nn.Unfold((2, 3), stride=2)), "
    "repr(nn.Fold(output_size=(4, 5), kernel_size=(2, 2), dilation=2, padding=1, stride=(1, 2))), "
    "repr(nn.Unfold(kernel_size=3, dilation=(1, 2), padding=1))]",
    "conv_as_matmul": "x = torch.randn(2, 3, 6, 7); w = torch.randn(4, 3, 3, 3); "
    "cols = F.unfold(x, 3, padding=1); y = (w.view(4, -1) @ cols).view(2, 4, 6, 7); "
    "out = (y, (y - F.conv2d(x, w, padding=1)).abs().max() < 1e-4)",
    # ---- errors ----
    "err_unfold_2d": "out = F.unfold(torch.randn(2, 3), 2)",
    "err_unfold_5d": "out = F.unfold(torch.randn(1, 1, 2, 3, 3), 2)",
    "err_unfold_zero_dim": "out = F.unfold(torch.randn(1, 0, 3, 3), 2)",
    "err_unfold_kernel": "out = F.unfold(torch.randn(1, 2, 3, 3), 0)",
    "err_unfold_padding": "out = F.unfold(torch.randn(1, 2, 3, 3), 2, padding=-1)",
    "err_unfold_dilation": "out = F.unfold(torch.randn(1, 2, 3, 3), 2, dilation=(1, 0))",
    "err_unfold_stride": "out = nn.Unfold(2, stride=0)(torch.randn(1, 2, 3, 3))",
    "err_unfold_len": "out = F.unfold(torch.randn(1, 2, 3, 3), [2, 2, 2])",
    "err_unfold_long": "out = F.unfold(torch.ones(1, 1, 3, 3, dtype=torch.long), 2)",
    "err_unfold_too_small": "out = F.unfold(torch.randn(1, 2, 3, 3), 5)",
    "err_fold_divisible": "out = F.fold(torch.randn(1, 5, 4), 3, 2)",
    "err_fold_blocks": "out = F.fold(torch.randn(1, 8, 5), 3, 2)",
    "err_fold_stride": "out = F.fold(torch.randn(1, 8, 4), 3, 2, stride=0)",
    "err_fold_kernel": "out = F.fold(torch.randn(1, 8, 4), 3, (2, -1))",
    "err_fold_1d": "out = F.fold(torch.randn(8), 3, 2)",
    "err_fold_zero_dim": "out = nn.Fold(3, 2)(torch.randn(1, 4, 0))",
    "err_fold_output_size_len": "out = F.fold(torch.randn(1, 4, 4), [3, 3, 3], 2)",
    "err_fold_int": "out = F.fold(torch.ones(1, 4, 4, dtype=torch.int32), 3, 2)",
    "err_fold_too_small": "out = F.fold(torch.randn(1, 4, 1), 1, 2)",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_fold(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], rtol=1e-5, atol=1e-5)
