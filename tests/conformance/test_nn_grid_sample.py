"""Conformance of F.grid_sample (aten::grid_sampler > grid_sampler_2d / 3d: bilinear, nearest
and (2-D) bicubic, the zeros / border / reflection padding modes, align_corners both ways) and
F.affine_grid (aten::affine_grid_generator, 2-D and 3-D) against torch 2.13: values, gradients
of input, grid and theta, and errors."""

from __future__ import annotations

import itertools

import pytest

from .harness import check

PRE = "nn = torch.nn\nF = torch.nn.functional\n"


def _sample(dims: int, mode: str, padding_mode: str, align_corners: bool) -> str:
    shape, grid = ("2, 3, 4, 5", "2, 3, 6, 2") if dims == 2 else ("2, 2, 3, 4, 3", "2, 2, 3, 4, 3")
    return (
        f"x = torch.randn({shape}, requires_grad=True); "
        f"g = (torch.rand({grid}) * 2.6 - 1.3).requires_grad_(); "
        f"y = F.grid_sample(x, g, '{mode}', '{padding_mode}', {align_corners}); "
        "(y * torch.randn(y.shape)).sum().backward(); out = (y.detach(), x.grad, g.grad)"
    )


PROGRAMS = {
    f"sample{dims}d_{mode}_{pm}_{ac}": _sample(dims, mode, pm, ac)
    for dims, mode, pm, ac in itertools.product(
        (2, 3), ("bilinear", "nearest"), ("zeros", "border", "reflection"), (False, True)
    )
}
PROGRAMS.update(
    {
        f"sample2d_bicubic_{pm}_{ac}": _sample(2, "bicubic", pm, ac)
        for pm, ac in itertools.product(("zeros", "border", "reflection"), (False, True))
    }
)
PROGRAMS.update(
    {
        "sample_float64_exact_grid": "x = torch.arange(12.).view(1, 1, 3, 4).double()"
        ".requires_grad_(); g = torch.tensor([[[[-1., -1.], [1., 1.], [0., 0.], [0.5, -0.5]], "
        "[[-1.5, 0.], [0.25, 2.], [1., -1.], [-0.2, 0.7]]]], dtype=torch.float64, "
        "requires_grad=True); y = F.grid_sample(x, g, align_corners=True); y.sum().backward(); "
        "out = (y.detach(), x.grad, g.grad, y.grad_fn.name())",
        "sample_nearest_ties": "x = torch.arange(16.).view(1, 1, 4, 4); "
        "g = torch.tensor([[[[-0.75, -0.75], [-0.25, 0.25], [0.25, 0.75], [0.75, -0.25]]]]); "
        "out = (F.grid_sample(x, g, 'nearest', align_corners=False), "
        "F.grid_sample(x, g, 'nearest', align_corners=True))",
        "sample_input_only_grad": "x = torch.randn(1, 2, 3, 3, requires_grad=True); "
        "g = torch.rand(1, 2, 2, 2) * 2 - 1; y = F.grid_sample(x, g, align_corners=False); "
        "y.sum().backward(); out = (x.grad, torch.grid_sampler(x.detach(), g, 0, 1, True))",
        "direct_ops": "x = torch.randn(1, 2, 3, 4); v = torch.randn(1, 2, 2, 3, 4); "
        "out = (torch.grid_sampler_2d(x, torch.rand(1, 2, 3, 2) * 2 - 1, 1, 2, False), "
        "torch.grid_sampler_3d(v, torch.rand(1, 2, 2, 2, 3) * 2 - 1, 0, 0, True))",
        "sample_empty_batch": "out = F.grid_sample(torch.randn(0, 2, 3, 3), torch.randn(0, 4, "
        "5, 2), align_corners=False)",
        "affine_grid_2d": "t = torch.randn(2, 2, 3, requires_grad=True); "
        "g = F.affine_grid(t, (2, 3, 4, 5), align_corners=False); (g * torch.randn(g.shape)).sum()"
        ".backward(); out = (g.detach(), t.grad)",
        "affine_grid_2d_align": "t = torch.randn(2, 2, 3, requires_grad=True); "
        "g = F.affine_grid(t, [2, 3, 1, 5], align_corners=True); g.pow(2).sum().backward(); "
        "out = (g.detach(), t.grad)",
        "affine_grid_3d": "t = torch.randn(2, 3, 4, dtype=torch.float64, requires_grad=True); "
        "g = F.affine_grid(t, (2, 1, 3, 4, 2), align_corners=False); g.pow(2).sum().backward(); "
        "out = (g.detach(), t.grad, torch.affine_grid_generator(t.detach(), [2, 1, 2, 2, 2], "
        "True))",
        "affine_then_sample": "x = torch.randn(1, 2, 5, 5, requires_grad=True); "
        "t = torch.tensor([[[0.8, -0.3, 0.1], [0.2, 1.1, -0.2]]], requires_grad=True); "
        "y = F.grid_sample(x, F.affine_grid(t, x.shape, align_corners=False), "
        "align_corners=False, padding_mode='border'); (y * torch.randn(y.shape)).sum().backward(); "
        "out = (y.detach(), x.grad, t.grad)",
    }
)

ERRORS = {
    "err_grid_last_dim": "out = F.grid_sample(torch.randn(1, 2, 3, 4), torch.rand(1, 5, 6, 1), "
    "align_corners=False)",
    "err_batch": "out = F.grid_sample(torch.randn(1, 2, 3, 4), torch.rand(2, 5, 6, 2), "
    "align_corners=False)",
    "err_dims": "out = F.grid_sample(torch.randn(1, 2, 3, 4), torch.rand(1, 5, 6, 6, 3), "
    "align_corners=False)",
    "err_bicubic_3d": "out = F.grid_sample(torch.randn(1, 2, 1, 3, 4), torch.rand(1, 5, 6, 6, 3), "
    "'bicubic', align_corners=False)",
    "err_mode": "out = F.grid_sample(torch.randn(1, 2, 3, 4), torch.rand(1, 5, 6, 2), 'foo')",
    "err_padding_mode": "out = F.grid_sample(torch.randn(1, 2, 3, 4), torch.rand(1, 5, 6, 2), "
    "padding_mode='foo')",
    "err_dtype": "out = F.grid_sample(torch.randn(1, 2, 3, 4), torch.rand(1, 5, 6, 2).double(), "
    "align_corners=False)",
    "err_empty": "out = F.grid_sample(torch.randn(1, 2, 0, 4), torch.rand(1, 5, 6, 2), "
    "align_corners=False)",
    "err_long": "out = F.grid_sample(torch.ones(1, 2, 3, 4).long(), torch.ones(1, 5, 6, 2).long(), "
    "align_corners=False)",
    "err_2d_input": "out = F.grid_sample(torch.randn(2, 3), torch.randn(2, 3), "
    "align_corners=False)",
    "err_affine_long": "out = F.affine_grid(torch.ones(1, 2, 3).long(), (1, 1, 4, 4), False)",
    "err_affine_2d_shape": "out = F.affine_grid(torch.randn(1, 3, 3), (1, 1, 4, 4), False)",
    "err_affine_3d_shape": "out = F.affine_grid(torch.randn(1, 2, 3), (1, 1, 4, 4, 4), False)",
    "err_affine_size": "out = F.affine_grid(torch.randn(1, 2, 3), (1, 4, 4), False)",
    "err_affine_zero": "out = F.affine_grid(torch.randn(1, 2, 3), (1, 1, 0, 4), False)",
    "err_generator_size": "out = torch.affine_grid_generator(torch.randn(1, 2, 3), [1, 1, 4], "
    "False)",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_grid_sample(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_grid_sample_errors(name: str) -> None:
    check(PRE + ERRORS[name])


def test_align_corners_none_warns() -> None:
    import tensortrace

    F = tensortrace.nn.functional
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        F.grid_sample(tensortrace.randn(1, 1, 2, 2), tensortrace.zeros(1, 1, 1, 2))
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        F.affine_grid(tensortrace.randn(1, 2, 3), [1, 1, 2, 2])
