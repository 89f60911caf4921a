"""Conformance of F.interpolate (nearest 1d/2d, linear, bilinear, area), the deprecated
F.upsample*, and nn.Upsample / UpsamplingNearest2d / UpsamplingBilinear2d against torch 2.13:
values, shapes, dtypes, gradients, module reprs and errors."""

from __future__ import annotations

import pytest

from .harness import check

PRE = "nn = torch.nn\nF = torch.nn.functional\n"
CLOSE = {"rtol": 1e-6, "atol": 1e-6}
X4 = "x = torch.randn(2, 3, 5, 6, requires_grad=True); "
X3 = "x = torch.randn(2, 3, 7, requires_grad=True); "
GRAD = "; (y * torch.randn(y.shape)).sum().backward(); out = (y.detach(), x.grad)"

PROGRAMS = {
    "nearest2d_scale2": X4 + "y = F.interpolate(x, scale_factor=2)" + GRAD,
    "nearest2d_size": X4 + "y = F.interpolate(x, size=(7, 4))" + GRAD,
    "nearest2d_int_size": X4 + "y = F.interpolate(x, size=9)" + GRAD,
    "nearest2d_scale_frac": X4 + "y = F.interpolate(x, scale_factor=(1.7, 0.6))" + GRAD,
    "nearest2d_recompute": X4
    + "y = F.interpolate(x, scale_factor=1.7, recompute_scale_factor=True)"
    + GRAD,
    "nearest2d_same": X4 + "y = F.interpolate(x, size=(5, 6))" + GRAD,
    "nearest1d": X3 + "y = F.interpolate(x, size=11)" + GRAD,
    "nearest1d_scale": X3 + "y = F.interpolate(x, scale_factor=2.5)" + GRAD,
    "linear1d": X3 + "y = F.interpolate(x, size=12, mode='linear')" + GRAD,
    "linear1d_align": X3
    + "y = F.interpolate(x, size=12, mode='linear', align_corners=True)"
    + GRAD,
    "linear1d_down": X3 + "y = F.interpolate(x, scale_factor=0.4, mode='linear')" + GRAD,
    "bilinear": X4 + "y = F.interpolate(x, size=(8, 11), mode='bilinear')" + GRAD,
    "bilinear_align": X4
    + "y = F.interpolate(x, scale_factor=2, mode='bilinear', align_corners=True)"
    + GRAD,
    "bilinear_scale_frac": X4
    + "y = F.interpolate(x, scale_factor=(1.3, 2.6), mode='bilinear')"
    + GRAD,
    "bilinear_down": X4 + "y = F.interpolate(x, size=(3, 2), mode='bilinear')" + GRAD,
    "bilinear_to_one": X4
    + "y = F.interpolate(x, size=(1, 1), mode='bilinear', align_corners=True)"
    + GRAD,
    "bilinear_recompute": X4
    + "y = F.interpolate(x, scale_factor=1.5, mode='bilinear', recompute_scale_factor=True)"
    + GRAD,
    "area": X4 + "y = F.interpolate(x, size=(2, 3), mode='area')" + GRAD,
    "area_scale": X3 + "y = F.interpolate(x, scale_factor=0.5, mode='area')" + GRAD,
    "float64": "x = torch.randn(1, 2, 3, 4, dtype=torch.float64, requires_grad=True); "
    "y = F.interpolate(x, size=(7, 9), mode='bilinear'); y.sum().backward(); "
    "z = F.interpolate(x, scale_factor=3); out = (y.detach(), x.grad, z)",
    "uint8_nearest": "x = torch.randint(0, 255, (1, 2, 3, 4), dtype=torch.uint8); "
    "out = (F.interpolate(x, scale_factor=2), F.interpolate(x[0], size=7))",
    "uint8_bilinear": "x = torch.randint(0, 255, (2, 3, 5, 7), dtype=torch.uint8); out = ("
    "F.interpolate(x, size=(9, 4), mode='bilinear'), "
    "F.interpolate(x, scale_factor=(1.7, 0.6), mode='bilinear'), "
    "F.interpolate(x, size=(11, 13), mode='bilinear', align_corners=True))",
    "half": "x = torch.randn(1, 3, 4, 5).half(); out = (F.interpolate(x, size=(7, 9), "
    "mode='bilinear'), F.interpolate(x[0], size=8, mode='linear'), F.interpolate(x, size=3))",
    "reduced_1d": "x = torch.randn(2, 3, 7); out = [F.interpolate(x.to(dt), size=s, "
    "mode='linear', align_corners=a) for dt in (torch.half, torch.bfloat16) "
    "for s in (5, 13) for a in (False, True)]",
    "empty_batch": "out = F.interpolate(torch.randn(0, 2, 3, 4), size=(5, 6), mode='bilinear')",
    "double_backward": "x = torch.randn(1, 1, 3, 3, requires_grad=True); "
    "y = F.interpolate(x, size=(5, 4), mode='bilinear'); "
    "g, = torch.autograd.grad((y * y).sum(), x, create_graph=True); g.sum().backward(); "
    "out = (g.detach(), x.grad)",
    "nn_c_functions": "x = torch.randn(1, 2, 3, 4); out = ("
    "torch._C._nn.upsample_nearest2d(x, [5, 7], None), "
    "torch._C._nn.upsample_nearest2d(x, None, [1.5, 2.0]), "
    "torch._C._nn.upsample_nearest2d(x, [4, 4], 0.5, None), "
    "torch._C._nn.upsample_bilinear2d(x, [6, 6], False, None), "
    "torch._C._nn.upsample_bilinear2d(x, [6, 6], True, 2.0, 1.5), "
    "torch._C._nn.upsample_linear1d(x[0], [9], False, None), "
    "torch._C._nn.upsample_nearest1d(x[0], None, [3.0]))",
    "deprecated": "x = torch.randn(1, 2, 3, 4); out = (F.upsample(x, scale_factor=2), "
    "F.upsample_nearest(x, size=(4, 5)), F.upsample_bilinear(x, scale_factor=2))",
    "modules": "x = torch.randn(2, 3, 4, 5, requires_grad=True); "
    "ms = [nn.Upsample(scale_factor=2), nn.Upsample(size=(7, 3), mode='bilinear'), "
    "nn.UpsamplingNearest2d(scale_factor=3), nn.UpsamplingBilinear2d(size=6)]; "
    "ys = [m(x) for m in ms]; sum(y.sum() for y in ys).backward(); "
    "out = ([y.detach() for y in ys], x.grad)",
    "module_reprs": "out = [repr(m) for m in (nn.Upsample(scale_factor=2, mode='bilinear'), "
    "nn.Upsample(size=(3, 4)), nn.Upsample(scale_factor=(2, 3)), "
    "nn.UpsamplingNearest2d(scale_factor=2), nn.UpsamplingBilinear2d(size=3), "
    "nn.Upsample(scale_factor=2.0, mode='bilinear', align_corners=True))]",
    "module_attrs": "m = nn.UpsamplingBilinear2d(scale_factor=2); "
    "out = (m.scale_factor, m.mode, m.align_corners, m.size, m.recompute_scale_factor)",
    "unet_decoder": "class Up(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
    "        self.up = nn.Upsample(scale_factor=2, mode='bilinear', align_corners=True)\n"
    "        self.conv = nn.Conv2d(6, 2, 3, padding=1)\n"
    "    def forward(self, x1, x2):\n        x1 = self.up(x1)\n"
    "        return self.conv(torch.cat([x2, x1], dim=1))\n"
    "m = Up(); a = torch.randn(1, 3, 4, 4); b = torch.randn(1, 3, 8, 8); y = m(a, b); "
    "y.sum().backward(); out = (y.detach(), m.conv.weight.grad)",
    # ---- errors ----
    "err_size_len": "out = F.interpolate(torch.randn(1, 2, 3, 4), size=(2, 3, 4))",
    "err_scale_len": "out = F.interpolate(torch.randn(1, 2, 3, 4), scale_factor=(2, 3, 4))",
    "err_size_float": "out = F.interpolate(torch.randn(1, 2, 3, 4), size=(2.5, 3))",
    "err_none": "out = F.interpolate(torch.randn(1, 2, 3, 4))",
    "err_both": "out = F.interpolate(torch.randn(1, 2, 3, 4), size=2, scale_factor=2)",
    "err_align_nearest": "out = F.interpolate(torch.randn(1, 2, 3, 4), size=2, align_corners=True)",
    "err_recompute_size": "out = F.interpolate(torch.randn(1, 2, 3, 4), size=2, "
    "recompute_scale_factor=True)",
    "err_linear_4d": "out = F.interpolate(torch.randn(1, 2, 3, 4), size=2, mode='linear')",
    "err_bilinear_3d": "out = F.interpolate(torch.randn(2, 3, 4), size=2, mode='bilinear')",
    "err_mode": "out = F.interpolate(torch.randn(1, 2, 3, 4), size=2, mode='foo')",
    "err_2d_input": "out = F.interpolate(torch.randn(3, 4), size=2)",
    "err_antialias": "out = F.interpolate(torch.randn(1, 2, 3, 4), size=2, antialias=True)",
    "err_zero_output": "out = F.interpolate(torch.randn(1, 2, 3, 4), scale_factor=0.1)",
    "err_zero_output_1d": "out = F.interpolate(torch.randn(1, 2, 3), size=0, mode='linear')",
    "err_empty_channels": "out = F.interpolate(torch.randn(1, 0, 3, 4), size=(2, 3))",
    "err_int_dtype": "out = F.interpolate(torch.randn(1, 2, 3, 4).long(), size=(2, 3))",
    "err_int_dtype_bilinear": "out = F.interpolate(torch.ones(1, 2, 3, 4, dtype=torch.int32), "
    "size=(2, 3), mode='bilinear')",
    "err_int_dtype_1d": "out = F.interpolate(torch.ones(1, 2, 3, dtype=torch.int32), size=5)",
    "err_c_both": "out = torch._C._nn.upsample_nearest2d(torch.randn(1, 2, 3, 4), [2, 3], "
    "[1.0, 1.0])",
    "err_c_len": "out = torch._C._nn.upsample_nearest2d(torch.randn(1, 2, 3, 4), [2], None)",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_upsampling(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], **CLOSE)
