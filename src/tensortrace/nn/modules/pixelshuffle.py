"""nn.PixelShuffle and nn.PixelUnshuffle (torch/nn/modules/pixelshuffle.py): F.pixel_shuffle /
F.pixel_unshuffle (aten::pixel_shuffle, aten::pixel_unshuffle) with the module's factor."""

from __future__ import annotations

import tensortrace as torch
from tensortrace.nn import functional as F
from tensortrace.nn.modules.module import Module

__all__ = ["PixelShuffle", "PixelUnshuffle"]


class PixelShuffle(Module):
    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"
