"""channel_shuffle and native_channel_shuffle.

Mirrors `aten/src/ATen/native/ChanelShuffle.cpp` (sic: torch's file name drops an 'n'):
channel_shuffle checks the input and calls native_channel_shuffle, which on the CPU
(channel_shuffle_cpu) allocates the output and runs the kernel of
`cpu/ChannelShuffleKernel.cpp` (cpu_channel_shuffle: channel g * oc + i goes to i * groups + g),
and on every other backend (here: the emulated CUDA device) is the CompositeImplicitAutograd
math_channel_shuffle, a view as (b, groups, oc, -1), a permute of the two channel dims and a
contiguous copy. Its derivative is channel_shuffle again, with c / groups groups.
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/ChanelShuffle.cpp"


@traced(
    "kernel",
    "at::native::(anonymous)::cpu_channel_shuffle",
    "aten/src/ATen/native/cpu/ChannelShuffleKernel.cpp",
)
def _channel_shuffle_kernel(out: np.ndarray, x: np.ndarray, groups: int) -> None:
    b, c = x.shape[0], x.shape[1]
    shuffled = x.reshape(b, groups, c // groups, -1).transpose(0, 2, 1, 3)
    out.reshape(b, c // groups, groups, -1)[...] = shuffled


@native_function(SOURCE)
def channel_shuffle_cpu(self: Tensor, groups: int) -> Tensor:
    if self.numel() == 0:
        return self.alias()
    output = at.empty([0], dtype=self.scalar_type(), device=self.device())
    output.resize_(list(self.sizes()))
    x = np.asarray(self.contiguous().numpy_view())
    _channel_shuffle_kernel(output.numpy_view(), x, groups)
    return output


@native_function(SOURCE)
def math_channel_shuffle(self: Tensor, groups: int) -> Tensor:
    b, c = self.size(0), self.size(1)
    oc = c // groups
    input_reshaped = self.view([b, groups, oc, -1])
    output_tensor = input_reshaped.permute([0, 2, 1, 3]).contiguous().reshape(list(self.sizes()))
    return output_tensor.contiguous()


@native_function(SOURCE)
def channel_shuffle(self: Tensor, groups: int) -> Tensor:
    TORCH_CHECK(
        self.dim() > 2,
        "channel_shuffle expects input with > 2 dims, but got input with sizes ",
        list(self.sizes()),
    )
    TORCH_CHECK(
        groups > 0,
        "Number of groups to divide channels in must be positive. Value of groups:",
        groups,
    )
    TORCH_CHECK(
        self.size(1) % groups == 0,
        "Number of channels must be divisible by groups. Got ",
        self.size(1),
        " channels and ",
        groups,
        " groups.",
    )
    return at.native_channel_shuffle(self, groups)  # type: ignore[no-any-return]
