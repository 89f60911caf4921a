"""nn.PixelShuffle and nn.PixelUnshuffle (torch/nn/modules/pixelshuffle.py): F.pixel_shuffle /
F.pixel_unshuffle (aten::pixel_shuffle, aten::pixel_unshuffle) with the module's factor; and
nn.ChannelShuffle (torch's channelshuffle.py), F.channel_shuffle with the module's groups."""

from __future__ import annotations

import tensortrace as torch
from tensortrace.nn import functional as F
from tensortrace.nn.modules.module import Module

__all__ = ["ChannelShuffle", "PixelShuffle", "PixelUnshuffle"]


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


class ChannelShuffle(Module):
    """torch/nn/modules/channelshuffle.py: F.channel_shuffle with the module's groups."""

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return F.channel_shuffle(input, self.groups)  # type: ignore[no-any-return]

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
