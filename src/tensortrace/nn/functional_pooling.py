"""The pooling functions of torch.nn.functional (torch/nn/functional.py keeps them there).

max_pool1d/2d (torch's boolean_dispatch on return_indices: the values alone through
torch.max_pool1d/2d, or values and indices through max_pool1d/2d_with_indices), avg_pool1d/2d,
adaptive_avg_pool1d/2d/3d, adaptive_max_pool1d/2d (torch.adaptive_max_pool1d, the
torch._C._nn.adaptive_max_pool2d binding; both return values and indices), and lp_pool1d/2d,
torch's Python composite: avg_pool of input ** p, scaled back by the window size, ** (1 / p)
(max_pool of |input| for p = +-inf), and max_unpool1d/2d (the output size checked against the
pooling's, then torch._C._nn.max_unpool2d, 1-D through an unsqueezed input).
"""

from __future__ import annotations

from typing import Any

import tensortrace as torch

Tensor = torch.Tensor


def max_pool1d_with_indices(
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
    return torch.max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """torch's boolean_dispatch: the values (torch.max_pool1d), or (values, indices)."""
    if return_indices:
        return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    if stride is None:
        stride = []
    return torch.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)


def avg_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Tensor:
    """torch.avg_pool1d (aten::avg_pool1d > unsqueeze, aten::avg_pool2d, squeeze)."""
    return torch.avg_pool1d(
        input, kernel_size, [] if stride is None else stride, padding, ceil_mode, count_include_pad
    )


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    return torch.adaptive_avg_pool1d(input, output_size)


def max_pool2d_with_indices(
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
    return torch._C._nn.max_pool2d_with_indices(
        input, kernel_size, stride, padding, dilation, ceil_mode
    )


def max_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """torch's boolean_dispatch: the values (torch.max_pool2d), or (values, indices)."""
    if return_indices:
        return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    if stride is None:
        stride = []
    return torch.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


def avg_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    return torch._C._nn.avg_pool2d(
        input,
        kernel_size,
        [] if stride is None else stride,
        padding,
        ceil_mode,
        count_include_pad,
        divisor_override,
    )


def _list_with_default(out_size: Any, defaults: list[int]) -> Any:
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [
        v if v is not None else d
        for v, d in zip(out_size, defaults[-len(out_size) :], strict=False)
    ]


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    _output_size = _list_with_default(output_size, list(input.size()))
    return torch._C._nn.adaptive_avg_pool2d(input, _output_size)


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    _output_size = _list_with_default(output_size, list(input.size()))
    return torch._C._nn.adaptive_avg_pool3d(input, _output_size)


def adaptive_max_pool1d_with_indices(
    input: Tensor, output_size: Any, return_indices: bool = False
) -> tuple[Tensor, Tensor]:
    return torch.adaptive_max_pool1d(input, output_size)


def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """torch's boolean_dispatch: the values, or (values, indices)."""
    if return_indices:
        return adaptive_max_pool1d_with_indices(input, output_size)
    return adaptive_max_pool1d_with_indices(input, output_size)[0]


def adaptive_max_pool2d_with_indices(
    input: Tensor, output_size: Any, return_indices: bool = False
) -> tuple[Tensor, Tensor]:
    output_size = _list_with_default(output_size, list(input.size()))
    return torch._C._nn.adaptive_max_pool2d(input, output_size)


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """torch's boolean_dispatch: the values, or (values, indices)."""
    if return_indices:
        return adaptive_max_pool2d_with_indices(input, output_size)
    return adaptive_max_pool2d_with_indices(input, output_size)[0]


def lp_pool2d(
    input: Tensor,
    norm_type: float,
    kernel_size: Any,
    stride: Any = None,
    ceil_mode: bool = False,
) -> Tensor:
    kw, kh = kernel_size if isinstance(kernel_size, (list, tuple)) else (kernel_size,) * 2
    if isinstance(norm_type, (int, float)):
        if norm_type == float("inf"):
            return max_pool2d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -float("inf"):
            return -max_pool2d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool2d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    # torch: (sign(out) * relu(abs(out))).mul(kw * kh).pow(1.0 / norm_type)
    return (torch.sign(out) * torch.relu(torch.abs(out))).mul(kw * kh).pow(1.0 / norm_type)


def lp_pool1d(
    input: Tensor,
    norm_type: float,
    kernel_size: int,
    stride: Any = None,
    ceil_mode: bool = False,
) -> Tensor:
    if isinstance(norm_type, (int, float)):
        if norm_type == float("inf"):
            return max_pool1d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -float("inf"):
            return -max_pool1d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool1d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (torch.sign(out) * torch.relu(torch.abs(out))).mul(kernel_size).pow(1.0 / norm_type)


def _unpool_output_size(
    input: Tensor, kernel_size: Any, stride: Any, padding: Any, output_size: Any
) -> list[int]:
    input_size = input.size()
    default_size: list[int] = []
    for d in range(len(kernel_size)):
        default_size.append(
            (input_size[-len(kernel_size) + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d]
        )
    if output_size is None:
        ret = default_size
    else:
        if len(output_size) == len(kernel_size) + 2:
            output_size = output_size[2:]
        if len(output_size) != len(kernel_size):
            raise ValueError(
                "output_size should be a sequence containing "
                f"{len(kernel_size)} or {len(kernel_size) + 2} elements, but it has a length of "
                f"'{len(output_size)}'"
            )
        for d in range(len(kernel_size)):
            min_size = default_size[d] - stride[d]
            max_size = default_size[d] + stride[d]
            if not (min_size < output_size[d] < max_size):
                raise ValueError(
                    f'invalid output_size "{output_size}" (dim {d} must be between {min_size} '
                    f"and {max_size})"
                )
        ret = output_size
    for d in range(len(kernel_size)):  # _check_unpool_output_size
        if not ret[d] >= 0:
            raise ValueError(
                "max_unpooling: output_size must contain non-negative spatial "
                f"dimensions, but got output_size[{d}]={ret[d]}"
            )
    return ret


def _tuple(x: Any, n: int) -> tuple[Any, ...]:
    """torch.nn.modules.utils._single / _pair."""
    return tuple(x) if isinstance(x, (list, tuple)) else (x,) * n


def max_unpool1d(
    input: Tensor,
    indices: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    output_size: Any = None,
) -> Tensor:
    kernel_size = _tuple(kernel_size, 1)
    _stride = _tuple(stride, 1) if stride is not None else kernel_size
    padding = _tuple(padding, 1)
    output_size = _unpool_output_size(input, kernel_size, _stride, padding, output_size)
    if isinstance(output_size, list):
        output_size = output_size + [1]
    else:
        output_size = output_size + (1,)
    return torch._C._nn.max_unpool2d(
        input.unsqueeze(-1), indices.unsqueeze(-1), output_size
    ).squeeze(-1)


def max_unpool2d(
    input: Tensor,
    indices: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    output_size: Any = None,
) -> Tensor:
    kernel_size = _tuple(kernel_size, 2)
    _stride = _tuple(stride, 2) if stride is not None else kernel_size
    padding = _tuple(padding, 2)
    output_size = _unpool_output_size(input, kernel_size, _stride, padding, output_size)
    return torch._C._nn.max_unpool2d(input, indices, output_size)
