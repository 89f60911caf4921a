"""F.unfold and F.fold (torch/nn/functional.py keeps them there).

unfold extracts the sliding kernel_size blocks of a batched image into columns
(torch._C._nn.im2col: aten::im2col); fold sums columns back into an image of output_size
(torch._C._nn.col2im: aten::col2im). Each argument goes through torch's _pair: one int stands
for both spatial dims, a sequence is passed on as given (a wrong length is the op's error).
"""

from __future__ import annotations

from typing import Any

import tensortrace as torch

Tensor = torch.Tensor


def _pair(x: Any) -> Any:
    """torch.nn.modules.utils._pair: an iterable as it is, anything else repeated twice."""
    if isinstance(x, (list, tuple)):
        return x
    return (x, x)


def unfold(
    input: Tensor,
    kernel_size: Any,
    dilation: Any = 1,
    padding: Any = 0,
    stride: Any = 1,
) -> Tensor:
    return torch._C._nn.im2col(
        input, _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride)
    )


def fold(
    input: Tensor,
    output_size: Any,
    kernel_size: Any,
    dilation: Any = 1,
    padding: Any = 0,
    stride: Any = 1,
) -> Tensor:
    return torch._C._nn.col2im(
        input,
        _pair(output_size),
        _pair(kernel_size),
        _pair(dilation),
        _pair(padding),
        _pair(stride),
    )
