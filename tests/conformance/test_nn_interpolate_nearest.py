"""Conformance of F.interpolate's 'nearest' on 5-D input (aten::upsample_nearest3d) and
'nearest-exact' on 3-D, 4-D and 5-D input (aten::_upsample_nearest_exact1d / 2d / 3d), with
nn.Upsample, against torch 2.13: values, shapes, strides, dtypes, gradients (double backward
too), the forward operators called directly, and the errors."""

from __future__ import annotations

import pytest

from .harness import check

PRE = "nn = torch.nn\nF = torch.nn.functional\n"


def _grad(shape: str, call: str, dtype: str = "torch.float32") -> str:
    return (
        f"x = torch.randn({shape}, dtype={dtype}, requires_grad=True); y = {call}; "
        "(y * torch.randn(y.shape, dtype=y.dtype)).sum().backward(); "
        "out = (y.detach(), x.grad, y.grad_fn.name())"
    )


PROGRAMS = {
    # ---- nearest, 5-D ----
    "nearest3d_scale": _grad("1, 2, 3, 4, 5", "F.interpolate(x, scale_factor=1.7)"),
    "nearest3d_size": _grad("2, 1, 3, 4, 5", "F.interpolate(x, size=(5, 3, 7))"),
    "nearest3d_scales": _grad(
        "1, 2, 3, 4, 5", "F.interpolate(x, scale_factor=(2, 0.5, 1.5))", "torch.float64"
    ),
    "nearest3d_double": _grad("1, 1, 2, 3, 2", "F.interpolate(x, scale_factor=2)"),
    "nearest3d_recompute": _grad(
        "1, 2, 3, 4, 5", "F.interpolate(x, scale_factor=1.3, recompute_scale_factor=True)"
    ),
    "nearest3d_uint8_half": "x = (torch.rand(1, 2, 3, 3, 3) * 255).to(torch.uint8)\n"
    "out = (F.interpolate(x, scale_factor=1.5), F.interpolate(x.double(), size=2), "
    "F.interpolate(torch.randn(1, 1, 2, 2, 2).half(), scale_factor=2))",
    "nearest3d_module_strided": "x = torch.randn(2, 4, 3, 2, 3).permute(0, 4, 2, 3, 1)\n"
    "m = nn.Upsample(scale_factor=2)\nout = (m(x), repr(m))",
    "nearest3d_op": "x = torch.randn(1, 2, 2, 3, 2)\n"
    "out = (torch._C._nn.upsample_nearest3d(x, [3, 5, 4]), "
    "torch._C._nn.upsample_nearest3d(x, [3, 5, 4], 1.0, 2.0, None), "
    "torch._C._nn.upsample_nearest3d(x, None, [1.5, 2.0, 1.0]))",
    "nearest3d_double_backward": "x = torch.randn(1, 1, 2, 2, 3, dtype=torch.float64, "
    "requires_grad=True)\ny = F.interpolate(x, scale_factor=(1.5, 2, 1))\n"
    "g = torch.randn(y.shape, dtype=torch.float64, requires_grad=True)\n"
    "gx, = torch.autograd.grad(y, x, g, create_graph=True)\n"
    "gg, = torch.autograd.grad(gx.pow(2).sum(), g)\nout = (gx.detach(), gg)",
    # ---- nearest-exact, 3-D / 4-D / 5-D ----
    "exact1d": _grad("2, 3, 5", "F.interpolate(x, scale_factor=1.3, mode='nearest-exact')"),
    "exact1d_size": _grad("1, 2, 7", "F.interpolate(x, size=3, mode='nearest-exact')"),
    "exact2d": _grad("1, 2, 5, 4", "F.interpolate(x, scale_factor=(1.3, 2), mode='nearest-exact')"),
    "exact2d_size": _grad(
        "2, 1, 3, 6", "F.interpolate(x, size=(7, 4), mode='nearest-exact')", "torch.float64"
    ),
    "exact3d": _grad("1, 2, 3, 4, 5", "F.interpolate(x, scale_factor=1.7, mode='nearest-exact')"),
    "exact3d_size": _grad(
        "1, 1, 3, 4, 5", "F.interpolate(x, size=(5, 3, 7), mode='nearest-exact')"
    ),
    "exact_vs_nearest_doubling": "x = torch.arange(4.).reshape(1, 1, 4)\n"
    "out = (F.interpolate(x, scale_factor=2, mode='nearest-exact'), "
    "F.interpolate(x, scale_factor=2), F.interpolate(x, size=3, mode='nearest-exact'), "
    "F.interpolate(x, size=3))",
    "exact_uint8": "x = (torch.rand(1, 2, 4, 4) * 255).to(torch.uint8)\n"
    "out = (F.interpolate(x, size=(3, 6), mode='nearest-exact'), "
    "F.interpolate(x[:, :, 0], scale_factor=0.6, mode='nearest-exact'))",
    "exact_module": "m = nn.Upsample(size=(2, 3, 4), mode='nearest-exact')\n"
    "out = (m(torch.randn(1, 2, 3, 3, 3)), repr(m))",
    "exact_ops": "x = torch.randn(1, 2, 5)\n"
    "out = (torch._C._nn._upsample_nearest_exact1d(x, [3]), "
    "torch._C._nn._upsample_nearest_exact1d(x, None, [1.5]), "
    "torch._C._nn._upsample_nearest_exact2d(x.view(1, 2, 1, 5), [2, 3], 2.0, 0.5), "
    "torch._C._nn._upsample_nearest_exact3d(x.view(1, 2, 1, 1, 5), [2, 1, 3]))",
    "exact_double_backward": "x = torch.randn(1, 1, 3, 5, dtype=torch.float64, "
    "requires_grad=True)\ny = F.interpolate(x, size=(4, 2), mode='nearest-exact')\n"
    "g = torch.randn(y.shape, dtype=torch.float64, requires_grad=True)\n"
    "gx, = torch.autograd.grad(y, x, g, create_graph=True)\n"
    "gg, = torch.autograd.grad(gx.pow(2).sum(), g)\nout = (gx.detach(), gg)",
    # ---- errors ----
    "err_nearest3d_int": "out = F.interpolate(torch.ones(1, 1, 2, 2, 2, dtype=torch.int32), "
    "scale_factor=2)",
    "err_exact1d_int": "out = F.interpolate(torch.ones(1, 1, 2, dtype=torch.int32), "
    "scale_factor=2, mode='nearest-exact')",
    "err_exact2d_long": "out = F.interpolate(torch.ones(1, 1, 2, 2, dtype=torch.long), "
    "scale_factor=2, mode='nearest-exact')",
    "err_nearest3d_empty": "out = F.interpolate(torch.ones(1, 0, 2, 2, 2), scale_factor=2)",
    "err_nearest3d_zero_out": "out = F.interpolate(torch.ones(1, 1, 2, 2, 2), scale_factor=0.1)",
    "err_exact3d_size_len": "out = F.interpolate(torch.ones(1, 1, 2, 2, 2), size=(2, 2), "
    "mode='nearest-exact')",
    "err_nearest3d_op_size": "out = torch._C._nn.upsample_nearest3d(torch.ones(1, 1, 2, 2, 2), "
    "[2, 2])",
    "err_exact1d_op_size": "out = torch._C._nn._upsample_nearest_exact1d(torch.ones(1, 1, 2), [0])",
    "err_exact_op_both": "out = torch._C._nn._upsample_nearest_exact2d(torch.ones(1, 1, 2, 2), "
    "[2, 2], [2.0, 2.0])",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_interpolate_nearest(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], rtol=1e-6, atol=1e-7)
