"""The loops of pixel_shuffle and pixel_unshuffle.

Mirrors `aten/src/ATen/native/cpu/PixelShuffleKernel.cpp` (cpu_pixel_shuffle,
cpu_pixel_unshuffle for a contiguous input): output[n][c][h * r + i][w * r + j] is
input[n][c * r * r + i * r + j][h][w], done in NumPy as a reshape, a transpose and a copy.
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten.tensor_body import Tensor
from tensortrace.trace import traced

KERNEL = "aten/src/ATen/native/cpu/PixelShuffleKernel.cpp"


def _batch_view(t: Tensor) -> np.ndarray:
    arr = np.asarray(t.numpy_view())
    return arr.reshape(-1, *arr.shape[-3:])


@traced("kernel", "at::native::(anonymous)::cpu_pixel_shuffle", KERNEL)
def pixel_shuffle_kernel(output: Tensor, input: Tensor, upscale_factor: int) -> None:
    x = _batch_view(input)
    r = upscale_factor
    b, c, h, w = x.shape
    shuffled = x.reshape(b, c // (r * r), r, r, h, w).transpose(0, 1, 4, 2, 5, 3)
    output.numpy_view()[...] = shuffled.reshape(output.numpy_view().shape)


@traced("kernel", "at::native::(anonymous)::cpu_pixel_unshuffle", KERNEL)
def pixel_unshuffle_kernel(output: Tensor, input: Tensor, downscale_factor: int) -> None:
    x = _batch_view(input)
    r = downscale_factor
    b, c, h, w = x.shape
    unshuffled = x.reshape(b, c, h // r, r, w // r, r).transpose(0, 1, 3, 5, 2, 4)
    output.numpy_view()[...] = unshuffled.reshape(output.numpy_view().shape)
