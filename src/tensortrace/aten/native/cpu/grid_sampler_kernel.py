"""The loops of grid_sampler_2d / 3d, forward and backward: bilinear, nearest and bicubic.

Mirrors `aten/src/ATen/native/cpu/GridSamplerKernel.cpp` (the 2-D CPU kernels) and the 3-D CPU
loops of `GridSampler.cpp` (grid_sampler_3d_cpu_impl and its backward), with the coordinate
arithmetic of `GridSampler.h`: the grid's [-1, 1] coordinates are unnormalized to pixel
positions (align_corners maps -1 / 1 to the corner pixels' centers, else to their outer
edges), then clipped ('border') or reflected and clipped ('reflection'); 'zeros' reads 0 outside
the input. Bicubic (2-D only) reads the 4 x 4 cells around the unnormalized position, each
tap's coordinate clipped / reflected on its own (get_value_bounded), weighted by the cubic
convolution coefficients (A = -0.75); its grad_grid differentiates them
(get_cubic_coefficients_grad). Bilinear sampling weights the 2^d neighbours of the position
by the opposite areas (the corners nw, ne, sw, se in 2-D, tnw ... bse in 3-D); nearest takes
the neighbour
std::nearbyint rounds to. The backward adds grad_output times the weights into grad_input and,
for bilinear, differentiates the weights for grad_grid (times the chain factor of
unnormalize / clip / reflect, the *_set_grad helpers). Each batch element is one vectorized
NumPy step; axis order: grid[..., 0] is x (the last input dim), grid[..., 1] y, grid[..., 2] z.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from tensortrace.trace import traced

KERNEL_2D = "aten/src/ATen/native/cpu/GridSamplerKernel.cpp"
GRID_SAMPLER = "aten/src/ATen/native/GridSampler.cpp"
ZEROS, BORDER, REFLECTION = 0, 1, 2
BILINEAR, NEAREST, BICUBIC = 0, 1, 2


def _source_index(
    coord: np.ndarray, size: int, padding_mode: int, align_corners: bool
) -> tuple[np.ndarray, np.ndarray]:
    """grid_sampler_compute_source_index_set_grad: the source position and d(position)/d(coord)."""
    t = coord.dtype.type
    if align_corners:  # grid_sampler_unnormalize_set_grad
        grad = np.full(coord.shape, t(size - 1) / t(2), dtype=coord.dtype)
        pos = (coord + t(1)) / t(2) * t(size - 1)
    else:
        grad = np.full(coord.shape, t(size) / t(2), dtype=coord.dtype)
        pos = ((coord + t(1)) * t(size) - t(1)) / t(2)
    if padding_mode == REFLECTION:
        low, high = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
        if low == high:
            pos, refl = np.zeros_like(pos), np.zeros_like(pos)
        else:
            lo, span = t(low) / t(2), t(high - low) / t(2)
            shifted = pos - lo
            mult = np.where(shifted < 0, t(-1), t(1)).astype(coord.dtype)
            shifted = np.abs(shifted)
            extra = np.fmod(shifted, span)
            flips = np.floor(shifted / span)
            even = np.fmod(flips, 2) == 0
            pos = np.where(even, extra + lo, span - extra + lo).astype(coord.dtype)
            refl = np.where(even, mult, -mult).astype(coord.dtype)
        grad = grad * refl
    if padding_mode in (BORDER, REFLECTION):  # clip_coordinates_set_grad
        top = t(size - 1)
        clip = ((pos > 0) & (pos < top)).astype(coord.dtype)
        pos = np.minimum(np.maximum(pos, t(0)), top).astype(coord.dtype)
        grad = grad * clip
    # safe_downgrade_to_int_range: what is no int goes far outside
    pos = np.where(np.isfinite(pos) & (np.abs(pos) < 2.0**31), pos, t(-100)).astype(coord.dtype)
    return pos, grad


def _corners(
    pos: Sequence[np.ndarray], sizes: Sequence[int]
) -> list[tuple[tuple[np.ndarray, ...], np.ndarray, list[np.ndarray], np.ndarray]]:
    """Per bilinear corner (dims in input order: z, y, x): its indices (clamped, for reading),
    its weight, d(weight)/d(position) per dim, and whether it lies inside the input."""
    floors = [np.floor(p) for p in pos]
    result = []
    for bits in itertools.product((0, 1), repeat=len(pos)):
        idx, factors, inside = [], [], np.ones(pos[0].shape, bool)
        for p, f, b, size in zip(pos, floors, bits, sizes):
            i = f.astype(np.int64) + b
            inside &= (i >= 0) & (i < size)
            idx.append(np.clip(i, 0, size - 1))
            factors.append(p - f if b else f + 1 - p)
        weight = factors[0]
        for f in factors[1:]:
            weight = weight * f
        dweights = []
        for d, b in enumerate(bits):
            dw = np.full(pos[0].shape, 1 if b else -1, dtype=pos[0].dtype)
            for e, f in enumerate(factors):
                if e != d:
                    dw = dw * f
            dweights.append(dw)
        result.append((tuple(idx), weight, dweights, inside))
    return result


def _positions(
    grid: np.ndarray, sizes: Sequence[int], padding_mode: int, align_corners: bool
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Source positions and their grads, in input dim order (z, y, x) from the grid's (x, y, z)."""
    d = len(sizes)
    found = [
        _source_index(grid[..., d - 1 - k], sizes[k], padding_mode, align_corners) for k in range(d)
    ]
    return [p for p, _ in found], [g for _, g in found]


def _unnormalize(coord: np.ndarray, size: int, align_corners: bool) -> tuple[np.ndarray, float]:
    """grid_sampler_unnormalize_set_grad: the position and its d/d(coord)."""
    t = coord.dtype.type
    if align_corners:
        return (coord + t(1)) / t(2) * t(size - 1), float(t(size - 1) / t(2))
    return ((coord + t(1)) * t(size) - t(1)) / t(2), float(t(size) / t(2))


def _cubic_coefficients(t: np.ndarray) -> list[np.ndarray]:
    """get_cubic_upsampling_coefficients (A = -0.75)."""
    a = t.dtype.type(-0.75)

    def conv1(x: np.ndarray) -> np.ndarray:
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def conv2(x: np.ndarray) -> np.ndarray:
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [conv2(t + 1), conv1(t), conv1(1 - t), conv2(2 - t)]


def _cubic_coefficients_grad(t: np.ndarray) -> list[np.ndarray]:
    """get_cubic_coefficients_grad: d coeff / d x at x = tap - t."""
    a = t.dtype.type(-0.75)
    x0, x1, x2, x3 = -1 - t, -t, 1 - t, 2 - t
    return [
        (-3 * a * x0 - 10 * a) * x0 - 8 * a,
        (-3 * (a + 2) * x1 - 2 * (a + 3)) * x1,
        (3 * (a + 2) * x2 - 2 * (a + 3)) * x2,
        (3 * a * x3 - 10 * a) * x3 + 8 * a,
    ]


def _bounded(
    tap: np.ndarray, size: int, padding_mode: int, align_corners: bool
) -> tuple[np.ndarray, np.ndarray]:
    """get_value_bounded's index: compute_coordinates on the tap, truncated; and if inside."""
    pos = tap if padding_mode == ZEROS else _coordinates(tap, size, padding_mode, align_corners)
    idx = np.trunc(pos).astype(np.int64)
    inside = (idx >= 0) & (idx < size)
    return np.clip(idx, 0, size - 1), inside


def _coordinates(pos: np.ndarray, size: int, padding_mode: int, align_corners: bool) -> np.ndarray:
    """compute_coordinates: border clips, reflection reflects then clips."""
    t = pos.dtype.type
    if padding_mode == REFLECTION:
        low, high = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
        if low == high:
            return np.zeros_like(pos)
        lo, span = t(low) / t(2), t(high - low) / t(2)
        shifted = np.abs(pos - lo)
        extra = np.fmod(shifted, span)
        flips = np.floor(shifted / span)
        pos = np.where(np.fmod(flips, 2) == 0, extra + lo, span - extra + lo).astype(pos.dtype)
    return np.minimum(np.maximum(pos, t(0)), t(size - 1)).astype(pos.dtype)


def _bicubic(
    xb: np.ndarray,
    gridb: np.ndarray,
    padding_mode: int,
    align_corners: bool,
    go: np.ndarray | None = None,
    gi: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray | None]:
    """One batch element of bicubic sampling: the output, or (with go) the grid's gradient,
    adding into gi along the way."""
    _, h, w = xb.shape
    ix, mx = _unnormalize(gridb[..., 0], w, align_corners)
    iy, my = _unnormalize(gridb[..., 1], h, align_corners)
    ix_nw, iy_nw = np.floor(ix), np.floor(iy)
    tx, ty = ix - ix_nw, iy - iy_nw
    cx, cy = _cubic_coefficients(tx), _cubic_coefficients(ty)
    out = np.zeros((xb.shape[0], *gridb.shape[:-1]), dtype=xb.dtype)
    gix = np.zeros(gridb.shape[:-1], dtype=xb.dtype)
    giy = np.zeros(gridb.shape[:-1], dtype=xb.dtype)
    dx, dy = _cubic_coefficients_grad(tx), _cubic_coefficients_grad(ty)
    for i, j in itertools.product(range(4), range(4)):
        xi, x_in = _bounded(ix_nw - 1 + i, w, padding_mode, align_corners)
        yj, y_in = _bounded(iy_nw - 1 + j, h, padding_mode, align_corners)
        inside = x_in & y_in
        val = np.where(inside, xb[:, yj, xi], 0)
        if go is None:
            out += val * (cx[i] * cy[j])
            continue
        if gi is not None:
            contrib = go * (cx[i] * cy[j])
            for ch in range(xb.shape[0]):
                np.add.at(gi[ch], (yj[inside], xi[inside]), contrib[ch][inside])
        gix -= (val * go).sum(axis=0) * dx[i] * cy[j]
        giy -= (val * go).sum(axis=0) * dy[j] * cx[i]
    if go is None:
        return out, None
    return out, np.stack([gix * mx, giy * my], axis=-1).astype(xb.dtype)


def grid_sample_forward(
    x: np.ndarray, grid: np.ndarray, mode: int, padding_mode: int, align_corners: bool
) -> np.ndarray:
    n, c, *sizes = x.shape
    out = np.zeros((n, c, *grid.shape[1:-1]), dtype=x.dtype)
    for b in range(n):
        if mode == BICUBIC:
            out[b] = _bicubic(x[b], grid[b], padding_mode, align_corners)[0]
            continue
        pos, _ = _positions(grid[b], sizes, padding_mode, align_corners)
        if mode == NEAREST:
            near = [np.rint(p).astype(np.int64) for p in pos]  # std::nearbyint: half to even
            inside = np.ones(pos[0].shape, bool)
            for i, size in zip(near, sizes):
                inside &= (i >= 0) & (i < size)
            clamped = tuple(np.clip(i, 0, s - 1) for i, s in zip(near, sizes))
            out[b] = np.where(inside, x[b][(slice(None), *clamped)], 0)
            continue
        for idx, weight, _, inside in _corners(pos, sizes):
            out[b] += np.where(inside, x[b][(slice(None), *idx)] * weight, 0)
    return out


def grid_sample_backward(
    go: np.ndarray,
    x: np.ndarray,
    grid: np.ndarray,
    mode: int,
    padding_mode: int,
    align_corners: bool,
    mask: Sequence[bool],
) -> tuple[np.ndarray | None, np.ndarray | None]:
    n, c, *sizes = x.shape
    d = len(sizes)
    gi = np.zeros_like(x) if mask[0] else None
    gg = np.zeros_like(grid) if mask[1] else None
    for b in range(n):
        if mode == BICUBIC:
            _, ggb = _bicubic(
                x[b], grid[b], padding_mode, align_corners, go[b], None if gi is None else gi[b]
            )
            if gg is not None and ggb is not None:
                gg[b] = ggb
            continue
        pos, mults = _positions(grid[b], sizes, padding_mode, align_corners)
        if mode == NEAREST:  # grad_grid stays zero
            if gi is not None:
                near = [np.rint(p).astype(np.int64) for p in pos]
                inside = np.ones(pos[0].shape, bool)
                for i, size in zip(near, sizes):
                    inside &= (i >= 0) & (i < size)
                where = tuple(i[inside] for i in near)
                for ch in range(c):
                    np.add.at(gi[b, ch], where, go[b, ch][inside])
            continue
        grads = [np.zeros(pos[0].shape, dtype=x.dtype) for _ in range(d)]
        for idx, weight, dweights, inside in _corners(pos, sizes):
            if gi is not None:
                where = tuple(i[inside] for i in idx)
                for ch in range(c):
                    np.add.at(gi[b, ch], where, (go[b, ch] * weight)[inside])
            if gg is not None:
                vals = np.where(inside, x[b][(slice(None), *idx)], 0)  # (c, *out)
                dot = (vals * go[b]).sum(axis=0)
                for k in range(d):
                    grads[k] += dot * dweights[k]
        if gg is not None:
            for k in range(d):  # grid's last dim is (x, y, z): input dim d - 1 - k
                gg[b, ..., d - 1 - k] = mults[k] * grads[k]
    return gi, gg


@traced("kernel", "at::native::(anonymous)::grid_sampler_2d_cpu_kernel_impl", KERNEL_2D)
def grid_sampler_2d_kernel(
    x: np.ndarray, grid: np.ndarray, mode: int, padding_mode: int, align_corners: bool
) -> np.ndarray:
    return grid_sample_forward(x, grid, mode, padding_mode, align_corners)


@traced("kernel", "at::native::(anonymous)::grid_sampler_2d_backward_cpu_kernel_impl", KERNEL_2D)
def grid_sampler_2d_backward_kernel(
    go: np.ndarray,
    x: np.ndarray,
    grid: np.ndarray,
    mode: int,
    padding_mode: int,
    align_corners: bool,
    mask: Sequence[bool],
) -> tuple[np.ndarray | None, np.ndarray | None]:
    return grid_sample_backward(go, x, grid, mode, padding_mode, align_corners, mask)


@traced("kernel", "at::native::(anonymous)::grid_sampler_3d_cpu_impl", GRID_SAMPLER)
def grid_sampler_3d_kernel(
    x: np.ndarray, grid: np.ndarray, mode: int, padding_mode: int, align_corners: bool
) -> np.ndarray:
    return grid_sample_forward(x, grid, mode, padding_mode, align_corners)


@traced("kernel", "at::native::(anonymous)::grid_sampler_3d_backward_cpu_impl", GRID_SAMPLER)
def grid_sampler_3d_backward_kernel(
    go: np.ndarray,
    x: np.ndarray,
    grid: np.ndarray,
    mode: int,
    padding_mode: int,
    align_corners: bool,
    mask: Sequence[bool],
) -> tuple[np.ndarray | None, np.ndarray | None]:
    return grid_sample_backward(go, x, grid, mode, padding_mode, align_corners, mask)
