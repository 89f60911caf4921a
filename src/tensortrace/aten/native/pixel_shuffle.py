"""pixel_shuffle and pixel_unshuffle.

Mirrors `aten/src/ATen/native/PixelShuffle.cpp` and the checks of `PixelShuffle.h`. On the CPU
(pixel_shuffle_cpu) the output is allocated and the kernel of `cpu/PixelShuffleKernel.cpp`
moves each element; every other backend (here: the emulated CUDA device) takes the
CompositeExplicitAutogradNonFunctional math_pixel_shuffle, the composite of views: reshape the
channels into (oc, r, r), permute the two r dims next to h and w, and copy into a contiguous
tensor (pixel_shuffle never returns an alias of its input) viewed as (oc, h * r, w * r).
pixel_unshuffle is the inverse, and each is the other's derivative.
"""

from __future__ import annotations

from tensortrace.aten import functions as at
from tensortrace.aten.native.cpu.pixel_shuffle_kernel import (
    pixel_shuffle_kernel,
    pixel_unshuffle_kernel,
)
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor, expect_contiguous
from tensortrace.c10.exception import TORCH_CHECK

SOURCE = "aten/src/ATen/native/PixelShuffle.cpp"


def check_pixel_shuffle_shapes(self: Tensor, upscale_factor: int) -> None:
    TORCH_CHECK(
        self.dim() >= 3,
        "pixel_shuffle expects input to have at least 3 dimensions, but got input with ",
        self.dim(),
        " dimension(s)",
    )
    TORCH_CHECK(
        upscale_factor > 0,
        "pixel_shuffle expects a positive upscale_factor, but got ",
        upscale_factor,
    )
    c = self.size(-3)
    upscale_factor_squared = upscale_factor * upscale_factor
    TORCH_CHECK(
        c % upscale_factor_squared == 0,
        "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
        "upscale_factor, but input.size(-3)=",
        c,
        " is not divisible by ",
        upscale_factor_squared,
    )


def check_pixel_unshuffle_shapes(self: Tensor, downscale_factor: int) -> None:
    TORCH_CHECK(
        self.dim() >= 3,
        "pixel_unshuffle expects input to have at least 3 dimensions, but got input with ",
        self.dim(),
        " dimension(s)",
    )
    TORCH_CHECK(
        downscale_factor > 0,
        "pixel_unshuffle expects a positive downscale_factor, but got ",
        downscale_factor,
    )
    h, w = self.size(-2), self.size(-1)
    TORCH_CHECK(
        h % downscale_factor == 0,
        "pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=",
        h,
        " is not divisible by ",
        downscale_factor,
    )
    TORCH_CHECK(
        w % downscale_factor == 0,
        "pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=",
        w,
        " is not divisible by ",
        downscale_factor,
    )


@native_function(SOURCE)
def pixel_shuffle_cpu(self: Tensor, upscale_factor: int) -> Tensor:
    check_pixel_shuffle_shapes(self, upscale_factor)
    # Format: (B1, ..., Bn), C, H, W
    output_sizes = [
        *self.sizes()[:-3],
        self.size(-3) // upscale_factor // upscale_factor,
        self.size(-2) * upscale_factor,
        self.size(-1) * upscale_factor,
    ]
    output = at.empty([0], dtype=self.scalar_type(), device=self.device())
    output.resize_(output_sizes)
    if output.numel() == 0:
        return output
    input = expect_contiguous(self)
    pixel_shuffle_kernel(output, input, upscale_factor)
    return output


@native_function(SOURCE)
def pixel_unshuffle_cpu(self: Tensor, downscale_factor: int) -> Tensor:
    check_pixel_unshuffle_shapes(self, downscale_factor)
    if self.numel() == 0:
        return self.clone()
    # Format: (B1, ..., Bn), C, H, W
    output_sizes = [
        *self.sizes()[:-3],
        self.size(-3) * downscale_factor * downscale_factor,
        self.size(-2) // downscale_factor,
        self.size(-1) // downscale_factor,
    ]
    output = at.empty([0], dtype=self.scalar_type(), device=self.device())
    output.resize_(output_sizes)
    input = expect_contiguous(self)
    pixel_unshuffle_kernel(output, input, downscale_factor)
    return output


@native_function(SOURCE)
def math_pixel_shuffle(self: Tensor, upscale_factor: int) -> Tensor:
    check_pixel_shuffle_shapes(self, upscale_factor)
    batch = list(self.sizes()[:-3])
    c, h, w = self.size(-3), self.size(-2), self.size(-1)
    oc = c // (upscale_factor * upscale_factor)
    oh, ow = h * upscale_factor, w * upscale_factor
    # First, reshape to split the channels dim from c into 3 separate dims: (oc, r, r)
    input_reshaped = self.reshape([*batch, oc, upscale_factor, upscale_factor, h, w])
    # Next, shuffle by permuting the new upscale_factor dims alongside the height and width dims
    permutation = [*range(len(batch)), -5, -2, -4, -1, -3]
    input_permuted = input_reshaped.permute(permutation)
    # Finally, upscale by collapsing (h, r) -> oh and (w, r) -> ow; never an alias of the input
    return input_permuted.clone(memory_format="contiguous_format").view([*batch, oc, oh, ow])


@native_function(SOURCE)
def math_pixel_unshuffle(self: Tensor, downscale_factor: int) -> Tensor:
    check_pixel_unshuffle_shapes(self, downscale_factor)
    batch = list(self.sizes()[:-3])
    c, h, w = self.size(-3), self.size(-2), self.size(-1)
    oc = c * downscale_factor * downscale_factor
    oh, ow = h // downscale_factor, w // downscale_factor
    # First, reshape to split height into (oh, r) and width into (ow, r)
    input_reshaped = self.reshape([*batch, c, oh, downscale_factor, ow, downscale_factor])
    # Next, unshuffle by permuting the r dims alongside the channel dim
    permutation = [*range(len(batch)), -5, -3, -1, -4, -2]
    input_permuted = input_reshaped.permute(permutation)
    # Finally, downscale by collapsing (c, r, r) -> oc; never an alias of the input
    return input_permuted.clone(memory_format="contiguous_format").view([*batch, oc, oh, ow])
