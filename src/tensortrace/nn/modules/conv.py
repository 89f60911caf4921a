"""nn.Conv1d/2d/3d and nn.ConvTranspose1d/2d/3d.

Mirrors `torch/nn/modules/conv.py` (_ConvNd, Conv1d/2d/3d, _ConvTransposeNd and its 1-D / 2-D /
3-D classes; a padding_mode other than 'zeros' is F.pad by _reversed_padding_repeated_twice,
then a convolution without padding): the weight (out_channels, in_channels // groups,
*kernel_size), or (in_channels, out_channels // groups, *kernel_size) when transposed, and bias
are made with torch.empty and filled by reset_parameters as torch does (kaiming_uniform_ with
a=sqrt(5), the bias uniform in +-1/sqrt(fan_in)), so after manual_seed they are bit-equal to
torch's.
"""

from __future__ import annotations

import math
from typing import Any

import tensortrace as torch
from tensortrace.nn import functional as F
from tensortrace.nn import init
from tensortrace.nn.modules.module import Module
from tensortrace.nn.parameter import Parameter

_VALID_PADDING_STRINGS = {"same", "valid"}


def _ntuple(x: Any, n: int) -> tuple[int, ...]:
    return tuple(x) if isinstance(x, (list, tuple)) else (x,) * n


class _ConvNd(Module):
    weight: Parameter
    _n = 2  # the number of spatial dims

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
        transposed: bool = False,
        output_padding: Any = 0,
    ) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        n = self._n
        kernel_size_, stride_ = _ntuple(kernel_size, n), _ntuple(stride, n)
        dilation_ = _ntuple(dilation, n)
        if isinstance(padding, str):
            if padding not in _VALID_PADDING_STRINGS:
                raise ValueError(
                    f"Invalid padding string {padding!r}, should be one of {_VALID_PADDING_STRINGS}"
                )
            if padding == "same" and any(s != 1 for s in stride_):
                raise ValueError("padding='same' is not supported for strided convolutions")
            padding_: Any = padding
        else:
            padding_ = _ntuple(padding, n)
        valid_padding_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in valid_padding_modes:
            raise ValueError(
                f"padding_mode must be one of {valid_padding_modes}, but got "
                f"padding_mode='{padding_mode}'"
            )
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size_
        self.stride = stride_
        self.padding = padding_
        self.dilation = dilation_
        self.transposed = transposed
        self.output_padding = _ntuple(output_padding, n)
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad's order: the last spatial dim first, each as (before, after)
        if isinstance(padding_, str):
            self._reversed_padding_repeated_twice = [0, 0] * n
            if padding_ == "same":
                for d, k, i in zip(dilation_, kernel_size_, range(n - 1, -1, -1)):
                    total_padding = d * (k - 1)
                    left_pad = total_padding // 2
                    self._reversed_padding_repeated_twice[2 * i] = left_pad
                    self._reversed_padding_repeated_twice[2 * i + 1] = total_padding - left_pad
        else:
            self._reversed_padding_repeated_twice = [p for p in reversed(padding_) for _ in (0, 1)]
        if transposed:
            weight_shape = (in_channels, out_channels // groups, *kernel_size_)
        else:
            weight_shape = (out_channels, in_channels // groups, *kernel_size_)
        self.weight = Parameter(torch.empty(weight_shape, **factory_kwargs))
        if bias:
            self.bias = Parameter(torch.empty(out_channels, **factory_kwargs))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)

    def _conv_forward(self, input: torch.Tensor, weight: Any, bias: Any) -> torch.Tensor:
        conv = (F.conv1d, F.conv2d, F.conv3d)[self._n - 1]
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return conv(padded, weight, bias, self.stride, 0, self.dilation, self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_ConvNd):
    _n = 1


class Conv2d(_ConvNd):
    pass


class Conv3d(_ConvNd):
    _n = 3


class _ConvTransposeNd(_ConvNd):
    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        output_padding: Any = 0,
        groups: int = 1,
        bias: bool = True,
        dilation: Any = 1,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        if padding_mode != "zeros":
            raise ValueError(
                f'Only "zeros" padding mode is supported for {self.__class__.__name__}'
            )
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            groups,
            bias,
            padding_mode,
            device,
            dtype,
            transposed=True,
            output_padding=output_padding,
        )

    def _output_padding(self, input: torch.Tensor, output_size: Any) -> list[int]:
        """The output_padding that makes the output output_size (torch's _output_padding)."""
        if output_size is None:
            return list(self.output_padding)
        num_spatial_dims = self._n
        has_batch_dim = input.dim() == num_spatial_dims + 2
        num_non_spatial_dims = 2 if has_batch_dim else 1
        output_size = list(output_size)
        if len(output_size) == num_non_spatial_dims + num_spatial_dims:
            output_size = output_size[num_non_spatial_dims:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(
                f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size must "
                f"have {num_spatial_dims} or {num_non_spatial_dims + num_spatial_dims} elements "
                f"(got {len(output_size)})"
            )
        min_sizes = [
            (input.size(d + num_non_spatial_dims) - 1) * self.stride[d]
            - 2 * self.padding[d]
            + self.dilation[d] * (self.kernel_size[d] - 1)
            + 1
            for d in range(num_spatial_dims)
        ]
        max_sizes = [min_sizes[d] + self.stride[d] - 1 for d in range(num_spatial_dims)]
        for size, min_size, max_size in zip(output_size, min_sizes, max_sizes):
            if size < min_size or size > max_size:
                raise ValueError(
                    f"requested an output size of {output_size}, but valid sizes range "
                    f"from {min_sizes} to {max_sizes} (for an input of {input.size()[2:]})"
                )
        return [output_size[d] - min_sizes[d] for d in range(num_spatial_dims)]


class ConvTranspose1d(_ConvTransposeNd):
    _n = 1

    def forward(self, input: torch.Tensor, output_size: Any = None) -> torch.Tensor:
        output_padding = self._output_padding(input, output_size)
        return F.conv_transpose1d(
            input,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            output_padding,
            self.groups,
            self.dilation,
        )


class ConvTranspose2d(_ConvTransposeNd):
    def forward(self, input: torch.Tensor, output_size: Any = None) -> torch.Tensor:
        output_padding = self._output_padding(input, output_size)
        return F.conv_transpose2d(
            input,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            output_padding,
            self.groups,
            self.dilation,
        )


class ConvTranspose3d(_ConvTransposeNd):
    _n = 3

    def forward(self, input: torch.Tensor, output_size: Any = None) -> torch.Tensor:
        output_padding = self._output_padding(input, output_size)
        return F.conv_transpose3d(
            input,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            output_padding,
            self.groups,
            self.dilation,
        )
