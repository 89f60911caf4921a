"""grid_sampler, grid_sampler_2d / 3d and their backwards.

Mirrors `aten/src/ATen/native/GridSampler.cpp` and the checks of `GridSamplerUtils.h`:
grid_sampler (CompositeImplicitAutograd; cudnn_grid_sampler is never eligible here) picks the
2-D or 3-D op by the input's rank; each checks its arguments (check_grid_sampler_common, then
the 2-D / 3-D one) and runs the kernel of cpu/grid_sampler_kernel.py. The backwards return
(grad_input, grad_grid) for the output_mask, an undefined tensor where it is false.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.cpu.grid_sampler_kernel import (
    grid_sampler_2d_backward_kernel,
    grid_sampler_2d_kernel,
    grid_sampler_3d_backward_kernel,
    grid_sampler_3d_kernel,
)
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar_type import ScalarType

SOURCE = "aten/src/ATen/native/GridSampler.cpp"
_FLOATING = (ScalarType.Float, ScalarType.Double, ScalarType.Half, ScalarType.BFloat16)


def _sizes(t: Tensor) -> str:
    return "[" + ", ".join(str(s) for s in t.sizes()) + "]"


def check_grid_sampler_common(input: Tensor, grid: Tensor) -> None:
    TORCH_CHECK(
        input.device() == grid.device(),
        "grid_sampler(): expected input and grid to be on same device, but input is on ",
        input.device(),
        " and grid is on ",
        grid.device(),
    )
    TORCH_CHECK(
        input.size(0) == grid.size(0),
        "grid_sampler(): expected grid and input to have same batch size, but got input with "
        "sizes ",
        _sizes(input),
        " and grid with sizes ",
        _sizes(grid),
    )
    TORCH_CHECK(
        grid.size(-1) == input.dim() - 2,
        "grid_sampler(): expected grid to have size ",
        input.dim() - 2,
        " in last dimension, but got grid with sizes ",
        _sizes(grid),
    )
    for i in range(2, input.dim()):
        TORCH_CHECK(
            input.size(i) > 0,
            "grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
            "sizes ",
            _sizes(input),
            " with dimension ",
            i,
            " being empty",
        )


def _check(
    input: Tensor, grid: Tensor, interpolation_mode: int, dim: int, kernel_name: str
) -> None:
    check_grid_sampler_common(input, grid)
    TORCH_CHECK(
        input.dim() == dim + 2 and input.dim() == grid.dim(),
        "grid_sampler(): expected ",
        dim + 2,
        "D input and grid with same number of dimensions, but got input with sizes ",
        _sizes(input),
        " and grid with sizes ",
        _sizes(grid),
    )
    if dim == 3:
        TORCH_CHECK(
            interpolation_mode != 2, "grid_sampler(): bicubic interpolation only supports 4D input"
        )
    # the kernel's AT_DISPATCH_FLOATING_TYPES_AND2(BFloat16, Half), then grid.data_ptr<scalar_t>
    TORCH_CHECK_NOT_IMPLEMENTED(
        input.scalar_type() in _FLOATING,
        '"',
        kernel_name,
        "\" not implemented for '",
        input.scalar_type().name,
        "'",
    )
    TORCH_CHECK(
        grid.scalar_type() == input.scalar_type(),
        "expected scalar type ",
        input.scalar_type(),
        " but found ",
        grid.scalar_type(),
    )


def _array(t: Tensor) -> np.ndarray:
    return np.asarray(t.contiguous().numpy_view())


def _tensor(arr: np.ndarray, like: Tensor) -> Tensor:
    result = at.empty(list(arr.shape), dtype=like.scalar_type(), device=like.device())
    if arr.size:
        result.numpy_view()[...] = arr
    return result


def _forward(
    input: Tensor, grid: Tensor, mode: int, padding_mode: int, align_corners: bool, dim: int
) -> Tensor:
    name = "grid_sampler_2d_cpu_kernel_impl" if dim == 2 else "grid_sampler_3d_cpu"
    _check(input, grid, mode, dim, name)
    kernel = grid_sampler_2d_kernel if dim == 2 else grid_sampler_3d_kernel
    out = kernel(_array(input), _array(grid), mode, padding_mode, align_corners)
    return _tensor(out, input)


def _backward(
    grad_output: Tensor,
    input: Tensor,
    grid: Tensor,
    mode: int,
    padding_mode: int,
    align_corners: bool,
    output_mask: Sequence[bool],
    dim: int,
) -> tuple[Tensor, Tensor]:
    name = (
        "grid_sampler_2d_backward_cpu_kernel_impl" if dim == 2 else "grid_sampler_3d_backward_cpu"
    )
    _check(input, grid, mode, dim, name)
    kernel = grid_sampler_2d_backward_kernel if dim == 2 else grid_sampler_3d_backward_kernel
    gi, gg = kernel(
        _array(grad_output),
        _array(input),
        _array(grid),
        mode,
        padding_mode,
        align_corners,
        output_mask,
    )
    return (
        _tensor(gi, input) if gi is not None else Tensor(),
        _tensor(gg, grid) if gg is not None else Tensor(),
    )


@native_function(SOURCE)
def grid_sampler_2d_cpu(
    input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int, align_corners: bool
) -> Tensor:
    return _forward(input, grid, interpolation_mode, padding_mode, align_corners, 2)


@native_function(SOURCE)
def grid_sampler_2d_backward_cpu(
    grad_output: Tensor,
    input: Tensor,
    grid: Tensor,
    interpolation_mode: int,
    padding_mode: int,
    align_corners: bool,
    output_mask: Sequence[bool],
) -> tuple[Tensor, Tensor]:
    return _backward(
        grad_output, input, grid, interpolation_mode, padding_mode, align_corners, output_mask, 2
    )


@native_function(SOURCE)
def grid_sampler_3d_cpu(
    input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int, align_corners: bool
) -> Tensor:
    return _forward(input, grid, interpolation_mode, padding_mode, align_corners, 3)


@native_function(SOURCE)
def grid_sampler_3d_backward_cpu(
    grad_output: Tensor,
    input: Tensor,
    grid: Tensor,
    interpolation_mode: int,
    padding_mode: int,
    align_corners: bool,
    output_mask: Sequence[bool],
) -> tuple[Tensor, Tensor]:
    return _backward(
        grad_output, input, grid, interpolation_mode, padding_mode, align_corners, output_mask, 3
    )


@native_function(SOURCE)
def grid_sampler(
    input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int, align_corners: bool
) -> Tensor:
    if input.dim() == 4:
        return at.grid_sampler_2d(  # type: ignore[no-any-return]
            input, grid, interpolation_mode, padding_mode, align_corners
        )
    return at.grid_sampler_3d(  # type: ignore[no-any-return]
        input, grid, interpolation_mode, padding_mode, align_corners
    )
