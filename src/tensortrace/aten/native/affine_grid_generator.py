"""affine_grid_generator and its backward: the sampling grid of an affine transform.

Mirrors `aten/src/ATen/native/AffineGridGenerator.cpp`: the base grid holds, at each output
position, its normalized coordinates (x, y[, z], 1), each dim a linspace over [-1, 1]
(linspace_from_neg_one: the pixel centers, scaled by (n - 1) / n without align_corners); the
grid is that base grid times theta^T (one bmm), and the backward is base_grid^T @ grad_grid.
"""

from __future__ import annotations

from collections.abc import Sequence

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK

SOURCE = "aten/src/ATen/native/AffineGridGenerator.cpp"


def _linspace_from_neg_one(grid: Tensor, num_steps: int, align_corners: bool) -> Tensor:
    if num_steps <= 1:
        return at.scalar_tensor(0, dtype=grid.scalar_type(), device=grid.device())
    range_ = at.linspace(-1, 1, num_steps, dtype=grid.scalar_type(), device=grid.device())
    if not align_corners:
        range_ = range_.mul(num_steps - 1).div(num_steps)
    return range_  # type: ignore[no-any-return]


def _make_base_grid(theta: Tensor, size: Sequence[int], align_corners: bool) -> Tensor:
    """make_base_grid_4D / make_base_grid_5D: [N, *spatial, d + 1]."""
    n, spatial = size[0], list(size[2:])
    d = len(spatial)
    base_grid = at.empty([n, *spatial, d + 1], dtype=theta.scalar_type(), device=theta.device())
    for k in range(d):  # coordinate k (x, y, z) runs along spatial dim d - 1 - k
        steps = _linspace_from_neg_one(theta, spatial[d - 1 - k], align_corners)
        for _ in range(k):
            steps = steps.unsqueeze_(-1)
        base_grid.select(-1, k).copy_(steps)
    base_grid.select(-1, d).fill_(1)
    return base_grid


@native_function(SOURCE)
def affine_grid_generator(theta: Tensor, size: Sequence[int], align_corners: bool) -> Tensor:
    TORCH_CHECK(
        len(size) in (4, 5), "AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs."
    )
    n, spatial = size[0], list(size[2:])
    d = len(spatial)
    count = 1
    for s in spatial:
        count *= s
    base_grid = _make_base_grid(theta, size, align_corners)
    grid = base_grid.view([n, count, d + 1]).bmm(theta.transpose(1, 2))
    return grid.view([n, *spatial, d])  # type: ignore[no-any-return]


@native_function(SOURCE)
def affine_grid_generator_backward(
    grad: Tensor, size: Sequence[int], align_corners: bool
) -> Tensor:
    TORCH_CHECK(
        len(size) in (4, 5), "AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs."
    )
    n, spatial = size[0], list(size[2:])
    d = len(spatial)
    count = 1
    for s in spatial:
        count *= s
    base_grid = _make_base_grid(grad, size, align_corners)
    grad_theta = base_grid.view([n, count, d + 1]).transpose(1, 2).bmm(grad.reshape([n, count, d]))
    return grad_theta.transpose(1, 2)  # type: ignore[no-any-return]
