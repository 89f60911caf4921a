"""torch.nn.functional's 3-D pools: max_pool3d (with indices), avg_pool3d, adaptive_max_pool3d
and max_unpool3d.

Mirrors those functions of `torch/nn/functional.py`: max_pool3d is boolean_dispatch over
torch.max_pool3d and torch._C._nn.max_pool3d_with_indices (stride None meaning the kernel size,
passed as []), avg_pool3d calls torch._C._nn.avg_pool3d (torch binds it directly),
adaptive_max_pool3d fills a None in output_size from the input (_list_with_default),
max_unpool3d computes its output size with _unpool_output_size.
"""

from __future__ import annotations

from typing import Any

import tensortrace as torch
from tensortrace.nn.functional_pooling import _list_with_default, _tuple, _unpool_output_size

Tensor = torch.Tensor


def max_pool3d_with_indices(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> tuple[Tensor, Tensor]:
    if stride is None:
        stride = []
    return torch._C._nn.max_pool3d_with_indices(  # type: ignore[no-any-return]
        input, kernel_size, stride, padding, dilation, ceil_mode
    )


def max_pool3d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """torch's boolean_dispatch: the values (torch.max_pool3d), or (values, indices)."""
    if return_indices:
        return max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    if stride is None:
        stride = []
    return torch.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode)


def avg_pool3d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    """torch._C._nn.avg_pool3d (torch binds F.avg_pool3d to it; stride None is [])."""
    return torch._C._nn.avg_pool3d(  # type: ignore[no-any-return]
        input,
        kernel_size,
        [] if stride is None else stride,
        padding,
        ceil_mode,
        count_include_pad,
        divisor_override,
    )


def adaptive_max_pool3d_with_indices(
    input: Tensor, output_size: Any, return_indices: bool = False
) -> tuple[Tensor, Tensor]:
    output_size = _list_with_default(output_size, list(input.size()))
    return torch._C._nn.adaptive_max_pool3d(input, output_size)  # type: ignore[no-any-return]


def adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """torch's boolean_dispatch: the values, or (values, indices)."""
    if return_indices:
        return adaptive_max_pool3d_with_indices(input, output_size)
    return adaptive_max_pool3d_with_indices(input, output_size)[0]


def max_unpool3d(
    input: Tensor,
    indices: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    output_size: Any = None,
) -> Tensor:
    kernel_size = _tuple(kernel_size, 3)
    _stride = _tuple(stride, 3) if stride is not None else kernel_size
    padding = _tuple(padding, 3)
    output_size = _unpool_output_size(input, kernel_size, _stride, padding, output_size)
    return torch._C._nn.max_unpool3d(  # type: ignore[no-any-return]
        input, indices, output_size, _stride, padding
    )
