"""Conformance of the 3-D pools against torch 2.13: F.max_pool3d (return_indices, ceil_mode,
dilation) / nn.MaxPool3d, F.avg_pool3d (count_include_pad, divisor_override, ceil_mode) /
nn.AvgPool3d, F.adaptive_max_pool3d / nn.AdaptiveMaxPool3d and F.max_unpool3d / nn.MaxUnpool3d:
values, indices, gradients (double backward too), reprs and errors."""

from __future__ import annotations

import pytest

from .harness import check

PRE = "nn = torch.nn\nF = torch.nn.functional\n"

# ties and a NaN: the first maximum wins, and the last NaN
_X = "x = torch.randn(2, 3, 5, 6, 7, requires_grad=True); "
_G = "(y * torch.randn(y.shape)).sum().backward(); "

PROGRAMS = {
    "max_pool3d": _X
    + "y, i = F.max_pool3d(x, 2, return_indices=True); "
    + _G
    + "out = (y.detach(), i, x.grad)",
    "max_pool3d_args": _X + "y, i = F.max_pool3d(x, (3, 2, 3), (2, 1, 2), (1, 0, 1), "
    "(1, 2, 1), ceil_mode=True, return_indices=True); " + _G + "out = (y.detach(), i, x.grad)",
    "max_pool3d_ceil": _X
    + "y = F.max_pool3d(x, 2, 2, 1, ceil_mode=True); "
    + _G
    + "out = (y.detach(), x.grad)",
    "max_pool3d_ties_nan": "x = torch.tensor([[[1., 2, 2, 0], [2, 1, float('nan'), 2]], "
    "[[2, 2, 1, 1], [0, 0, float('nan'), 3]]]).reshape(1, 1, 2, 2, 4).repeat(1, 2, 1, 1, 1); "
    "out = F.max_pool3d(x, (2, 2, 2), return_indices=True)",
    "max_pool3d_unbatched_long": "x = torch.randint(-9, 9, (2, 4, 4, 4)); "
    "out = (F.max_pool3d(x, 2), torch.max_pool3d(x.float(), 3, 1, 1))",
    "max_pool3d_double_backward": "x = torch.randn(1, 1, 4, 4, 4, dtype=torch.float64, "
    "requires_grad=True); y = F.max_pool3d(x, 2); g = torch.ones(y.shape, dtype=torch.float64, "
    "requires_grad=True); gx, = torch.autograd.grad(y, x, g, create_graph=True); "
    "gg, = torch.autograd.grad((gx * torch.arange(64.).view(1, 1, 4, 4, 4)).sum(), g); "
    "out = (gx.detach(), gg, y.grad_fn.name())",
    "avg_pool3d": _X + "y = F.avg_pool3d(x, 2); " + _G + "out = (y.detach(), x.grad)",
    "avg_pool3d_args": _X + "y = F.avg_pool3d(x, (3, 2, 3), (2, 1, 2), (1, 1, 0), "
    "ceil_mode=True, count_include_pad=False); " + _G + "out = (y.detach(), x.grad)",
    "avg_pool3d_divisor": _X
    + "y = F.avg_pool3d(x, 3, 2, 1, True, True, 5); "
    + _G
    + "out = (y.detach(), x.grad)",
    "avg_pool3d_unbatched": "x = torch.randn(3, 4, 5, 4); "
    "out = (F.avg_pool3d(x, 2, 1), F.avg_pool3d(x, (2, 3, 2), padding=1, ceil_mode=True))",
    "avg_pool3d_double_backward": "x = torch.randn(1, 1, 3, 4, 4, dtype=torch.float64, "
    "requires_grad=True); y = F.avg_pool3d(x, 2, 1, 1); g = torch.ones(y.shape, "
    "dtype=torch.float64, requires_grad=True); gx, = torch.autograd.grad(y, x, g, "
    "create_graph=True); gg, = torch.autograd.grad(gx.pow(2).sum(), g); out = (gx.detach(), gg)",
    "adaptive_max_pool3d": _X
    + "y, i = F.adaptive_max_pool3d(x, (2, 4, 3), True); "
    + _G
    + "out = (y.detach(), i, x.grad, y.grad_fn.name())",
    "adaptive_max_pool3d_none": "x = torch.randn(2, 5, 6, 7); out = (F.adaptive_max_pool3d(x, "
    "(None, 3, None)), F.adaptive_max_pool3d(x, 1), torch._C._nn.adaptive_max_pool3d(x, [7, 3, "
    "2]))",
    "max_unpool3d": "x = torch.randn(2, 3, 4, 4, 6, requires_grad=True); "
    "y, i = F.max_pool3d(x, 2, return_indices=True); z = F.max_unpool3d(y, i, 2); "
    "z2 = F.max_unpool3d(y, i, 2, output_size=[5, 5, 7]); (z * torch.randn(z.shape)).sum()"
    ".backward(); out = (z.detach(), z2.detach(), x.grad)",
    "max_unpool3d_stride_pad": "x = torch.randn(1, 2, 5, 5, 5); "
    "y, i = F.max_pool3d(x, 3, 2, 1, return_indices=True); "
    "out = (F.max_unpool3d(y, i, 3, 2, 1), torch._C._nn.max_unpool3d(y, i, [5, 5, 5], [2, 2, 2], "
    "[1, 1, 1]))",
    "modules": "x = torch.randn(2, 2, 6, 6, 6); mp = nn.MaxPool3d(2, return_indices=True); "
    "y, i = mp(x); out = (y, nn.MaxUnpool3d(2)(y, i), nn.AvgPool3d(3, 1, 1, "
    "count_include_pad=False)(x), nn.AdaptiveMaxPool3d((3, None, 2))(x), "
    "nn.AdaptiveMaxPool3d(2, return_indices=True)(x))",
    "module_reprs": "out = [repr(nn.MaxPool3d(2)), repr(nn.MaxPool3d((2, 1, 2), 1, 1, 2, True, "
    "True)), repr(nn.AvgPool3d(3, 2, 1, True, False, 4)), repr(nn.AdaptiveMaxPool3d((2, None, "
    "3))), repr(nn.MaxUnpool3d(2, 1)), repr(nn.MaxUnpool3d((1, 2, 3), padding=1))]",
}

ERRORS = {
    "err_max_kernel_len": "out = F.max_pool3d(torch.randn(1, 2, 4, 4, 4), (2, 2))",
    "err_max_stride_len": "out = F.max_pool3d(torch.randn(1, 2, 4, 4, 4), 2, (1, 1))",
    "err_max_padding_len": "out = F.max_pool3d(torch.randn(1, 2, 4, 4, 4), 2, padding=(1, 1))",
    "err_max_dilation_len": "out = F.max_pool3d(torch.randn(1, 2, 4, 4, 4), 2, dilation=(1, 1))",
    "err_max_3d_input": "out = F.max_pool3d(torch.randn(4, 4, 4), 2)",
    "err_max_kernel_zero": "out = F.max_pool3d(torch.randn(1, 2, 4, 4, 4), 0)",
    "err_max_dilation_zero": "out = F.max_pool3d(torch.randn(1, 2, 4, 4, 4), 2, dilation=0)",
    "err_max_pad": "out = F.max_pool3d(torch.randn(1, 2, 4, 4, 4), 2, padding=2)",
    "err_max_too_small": "out = F.max_pool3d(torch.randn(1, 2, 4, 4, 4), 5)",
    "err_max_empty": "out = F.max_pool3d(torch.randn(1, 0, 4, 4, 4), 2)",
    "err_avg_kernel_len": "out = F.avg_pool3d(torch.randn(1, 2, 4, 4, 4), (2, 2))",
    "err_avg_stride_len": "out = F.avg_pool3d(torch.randn(1, 2, 4, 4, 4), 2, (1, 1))",
    "err_avg_kernel_big": "out = F.avg_pool3d(torch.randn(1, 2, 4, 4, 4), 5)",
    "err_avg_divisor": "out = F.avg_pool3d(torch.randn(1, 2, 4, 4, 4), 2, divisor_override=0)",
    "err_avg_empty": "out = F.avg_pool3d(torch.randn(1, 0, 4, 4, 4), 2)",
    "err_adaptive_len": "out = F.adaptive_max_pool3d(torch.randn(1, 2, 4, 4, 4), (2, 2))",
    "err_adaptive_dims": "out = F.adaptive_max_pool3d(torch.randn(4, 4, 4), 2)",
    "err_adaptive_empty": "out = F.adaptive_max_pool3d(torch.randn(1, 0, 4, 4, 4), 2)",
    "err_adaptive_long": "out = F.adaptive_max_pool3d(torch.ones(1, 2, 4, 4, 4).long(), 2)",
    "err_unpool_int_indices": "out = F.max_unpool3d(torch.randn(1, 2, 2, 2, 2), "
    "torch.zeros(1, 2, 2, 2, 2, dtype=torch.int), 2)",
    "err_unpool_shape": "out = F.max_unpool3d(torch.randn(1, 2, 2, 2, 2), "
    "torch.zeros(1, 2, 2, 2, 1, dtype=torch.long), 2)",
    "err_unpool_index": "out = F.max_unpool3d(torch.randn(1, 2, 2, 2, 2), "
    "torch.full((1, 2, 2, 2, 2), 100, dtype=torch.long), 2, output_size=[3, 3, 3])",
    "err_unpool_output_len": "out = torch._C._nn.max_unpool3d(torch.randn(1, 2, 2, 2, 2), "
    "torch.zeros(1, 2, 2, 2, 2, dtype=torch.long), [4, 4], [2, 2, 2], [0, 0, 0])",
    "err_unpool_stride_len": "out = torch._C._nn.max_unpool3d(torch.randn(1, 2, 2, 2, 2), "
    "torch.zeros(1, 2, 2, 2, 2, dtype=torch.long), [4, 4, 4], [2, 2], [0, 0, 0])",
    "err_unpool_stride_zero": "out = torch._C._nn.max_unpool3d(torch.randn(1, 2, 2, 2, 2), "
    "torch.zeros(1, 2, 2, 2, 2, dtype=torch.long), [4, 4, 4], [0, 2, 2], [0, 0, 0])",
    "err_unpool_dims": "out = torch._C._nn.max_unpool3d(torch.randn(2, 2), "
    "torch.zeros(2, 2, dtype=torch.long), [4, 4, 4], [2, 2, 2], [0, 0, 0])",
    "err_unpool_empty": "out = torch._C._nn.max_unpool3d(torch.randn(1, 0, 2, 2, 2), "
    "torch.zeros(1, 0, 2, 2, 2, dtype=torch.long), [4, 4, 4], [2, 2, 2], [0, 0, 0])",
    "err_unpool_long": "out = torch._C._nn.max_unpool3d(torch.ones(1, 2, 2, 2, 2).long(), "
    "torch.zeros(1, 2, 2, 2, 2, dtype=torch.long), [4, 4, 4], [2, 2, 2], [0, 0, 0])",
    "err_unpool_output_size": "out = F.max_unpool3d(torch.randn(1, 2, 2, 2, 2), "
    "torch.zeros(1, 2, 2, 2, 2, dtype=torch.long), 2, output_size=[9, 9, 9])",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_pooling3d(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_pooling3d_errors(name: str) -> None:
    check(PRE + ERRORS[name])
