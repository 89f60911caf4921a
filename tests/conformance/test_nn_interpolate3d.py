"""Conformance of F.interpolate's 'trilinear' (aten::upsample_trilinear3d) and 'bicubic'
(aten::upsample_bicubic2d) modes, antialias=True for bilinear and bicubic
(aten::_upsample_bilinear2d_aa, _upsample_bicubic2d_aa), 'area' on 5-D input, and nn.Upsample
with them, against torch 2.13: values, gradients (double backward too), shapes and errors."""

from __future__ import annotations

import pytest

from .harness import check

PRE = "nn = torch.nn\nF = torch.nn.functional\n"


def _grad(shape: str, call: str) -> str:
    return (
        f"x = torch.randn({shape}, requires_grad=True); y = {call}; "
        "(y * torch.randn(y.shape)).sum().backward(); out = (y.detach(), x.grad)"
    )


PROGRAMS = {
    "trilinear_size": _grad("2, 3, 3, 4, 5", "F.interpolate(x, (5, 6, 4), mode='trilinear')"),
    "trilinear_scale": _grad(
        "1, 2, 3, 4, 5", "F.interpolate(x, scale_factor=1.7, mode='trilinear')"
    ),
    "trilinear_align": _grad(
        "1, 2, 3, 4, 5",
        "F.interpolate(x, scale_factor=(2, 0.6, 1.3), mode='trilinear', align_corners=True)",
    ),
    "trilinear_recompute": _grad(
        "1, 2, 3, 4, 5",
        "F.interpolate(x, scale_factor=(2.5, 0.6, 1.3), "
        "mode='trilinear', recompute_scale_factor=True)",
    ),
    "trilinear_float64_same": "x = torch.randn(1, 1, 2, 3, 2, dtype=torch.float64); "
    "out = (F.interpolate(x, (2, 3, 2), mode='trilinear'), F.interpolate(x, (4, 1, 3), "
    "mode='trilinear', align_corners=True))",
    "bicubic_size": _grad("2, 3, 4, 5", "F.interpolate(x, (7, 3), mode='bicubic')"),
    "bicubic_align": _grad(
        "2, 3, 4, 5", "F.interpolate(x, scale_factor=2.3, mode='bicubic', align_corners=True)"
    ),
    "bicubic_scales": _grad(
        "1, 2, 4, 5", "F.interpolate(x, scale_factor=(1.5, 0.7), mode='bicubic')"
    ),
    "bicubic_recompute": _grad(
        "1, 2, 4, 5",
        "F.interpolate(x, scale_factor=(1.5, 0.7), mode='bicubic', recompute_scale_factor=True)",
    ),
    "bicubic_one_pixel": _grad(
        "1, 1, 1, 3", "F.interpolate(x, (3, 5), mode='bicubic', align_corners=True)"
    ),
    "bicubic_double_backward": "x = torch.randn(1, 1, 3, 3, dtype=torch.float64, "
    "requires_grad=True); y = F.interpolate(x, (5, 4), mode='bicubic'); "
    "g = torch.randn(y.shape, dtype=torch.float64, requires_grad=True); "
    "gx, = torch.autograd.grad(y, x, g, create_graph=True); "
    "gg, = torch.autograd.grad(gx.pow(2).sum(), g); out = (gx.detach(), gg, y.grad_fn.name())",
    "aa_bilinear_down": _grad(
        "2, 3, 9, 11", "F.interpolate(x, (4, 5), mode='bilinear', antialias=True)"
    ),
    "aa_bilinear_mixed": _grad(
        "1, 2, 10, 7",
        "F.interpolate(x, scale_factor=(0.45, 2.0), "
        "mode='bilinear', align_corners=True, antialias=True)",
    ),
    "aa_bicubic_down": _grad(
        "1, 2, 10, 7", "F.interpolate(x, scale_factor=0.3, mode='bicubic', antialias=True)"
    ),
    "aa_bicubic_up_same": _grad(
        "1, 2, 5, 6", "F.interpolate(x, (8, 6), mode='bicubic', antialias=True)"
    ),
    "aa_float64_recompute": "x = torch.randn(1, 1, 16, 16, dtype=torch.float64); "
    "out = (F.interpolate(x, scale_factor=0.25, mode='bilinear', antialias=True, "
    "recompute_scale_factor=True), F.interpolate(x, (5, 3), mode='bicubic', antialias=True))",
    "aa_uint8": "x = (torch.rand(1, 3, 9, 11) * 255).to(torch.uint8); "
    "out = (F.interpolate(x, (4, 5), mode='bilinear', antialias=True), "
    "F.interpolate(x, (13, 3), mode='bilinear', antialias=True), "
    "F.interpolate(x, (4, 17), mode='bicubic', antialias=True))",
    "aa_double_backward": "x = torch.randn(1, 1, 6, 5, dtype=torch.float64, requires_grad=True); "
    "y = F.interpolate(x, (3, 2), mode='bicubic', antialias=True); "
    "g = torch.randn(y.shape, dtype=torch.float64, requires_grad=True); "
    "gx, = torch.autograd.grad(y, x, g, create_graph=True); "
    "gg, = torch.autograd.grad(gx.pow(2).sum(), g); out = (gx.detach(), gg, y.grad_fn.name())",
    "area_5d": _grad("1, 2, 4, 6, 6", "F.interpolate(x, (2, 3, 4), mode='area')"),
    "upsample_modules": "x = torch.randn(1, 2, 2, 3, 2); x2 = torch.randn(1, 2, 3, 3); "
    "m = nn.Upsample(scale_factor=2, mode='trilinear'); b = nn.Upsample((5, 4), mode='bicubic', "
    "align_corners=True); out = (m(x), b(x2), repr(m), repr(b))",
    "bindings": "x = torch.randn(1, 1, 2, 3); v = torch.randn(1, 1, 2, 2, 2); out = ("
    "torch._C._nn.upsample_bicubic2d(x, [3, 4], False), torch._C._nn.upsample_bicubic2d(x, "
    "None, True, [2.0, 1.5]), torch._C._nn.upsample_trilinear3d(v, [3, 3, 3], True), "
    "torch._C._nn.upsample_trilinear3d(v, [3, 4, 5], False, 1.5, 2.0, 2.5))",
}

ERRORS = {
    "err_trilinear_4d": "out = F.interpolate(torch.randn(1, 1, 2, 2), 4, mode='trilinear')",
    "err_bicubic_5d": "out = F.interpolate(torch.randn(1, 1, 2, 2, 2), 4, mode='bicubic')",
    "err_trilinear_size_len": "out = F.interpolate(torch.randn(1, 1, 2, 2, 2), (4, 4), "
    "mode='trilinear')",
    "err_trilinear_zero": "out = torch._C._nn.upsample_trilinear3d(torch.randn(1, 1, 2, 2, 2), "
    "[0, 2, 2], False)",
    "err_bicubic_zero": "out = torch._C._nn.upsample_bicubic2d(torch.randn(1, 1, 2, 2), [0, 2], "
    "False)",
    "err_bicubic_long": "out = F.interpolate(torch.ones(1, 1, 2, 2).long(), 3, mode='bicubic')",
    "err_trilinear_long": "out = F.interpolate(torch.ones(1, 1, 2, 2, 2).long(), 3, "
    "mode='trilinear')",
    "err_trilinear_empty": "out = F.interpolate(torch.randn(1, 0, 2, 2, 2), 3, mode='trilinear')",
    "err_aa_5d": "out = F.interpolate(torch.randn(1, 1, 2, 2, 2), 3, mode='trilinear', "
    "antialias=True)",
    "err_recompute_with_size": "out = F.interpolate(torch.randn(1, 1, 2, 2), 3, mode='bicubic', "
    "recompute_scale_factor=True)",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_interpolate3d(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_interpolate3d_errors(name: str) -> None:
    check(PRE + ERRORS[name])
