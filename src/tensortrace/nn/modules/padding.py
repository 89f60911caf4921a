"""nn.ConstantPad1d, nn.ConstantPad2d, nn.ZeroPad2d, nn.ReflectionPad2d, nn.ReplicationPad2d.

Mirrors `torch/nn/modules/padding.py`: each keeps its padding as a tuple of 2 (1d) or 4 (2d)
ints, one int standing for every side, and calls F.pad with its mode.
"""

from __future__ import annotations

from typing import Any

import tensortrace as torch
from tensortrace.nn import functional as F
from tensortrace.nn.modules.module import Module


def _ntuple(x: Any, n: int) -> tuple[Any, ...]:
    return tuple(x) if isinstance(x, (list, tuple)) else (x,) * n


class _ConstantPadNd(Module):
    padding: tuple[int, ...]

    def __init__(self, value: float) -> None:
        super().__init__()
        self.value = value

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return F.pad(input, list(self.padding), "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(value)
        self.padding = _ntuple(padding, 2)


class ConstantPad2d(_ConstantPadNd):
    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(value)
        self.padding = _ntuple(padding, 4)


class ZeroPad2d(ConstantPad2d):
    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ReflectionPadNd(Module):
    padding: tuple[int, ...]

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return F.pad(input, list(self.padding), "reflect")

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad2d(_ReflectionPadNd):
    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = _ntuple(padding, 4)


class _ReplicationPadNd(Module):
    padding: tuple[int, ...]

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return F.pad(input, list(self.padding), "replicate")

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReplicationPad2d(_ReplicationPadNd):
    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = _ntuple(padding, 4)
