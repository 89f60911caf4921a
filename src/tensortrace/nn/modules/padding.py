"""nn.ConstantPad1d/2d/3d, nn.ZeroPad1d/2d/3d, nn.CircularPad1d/2d/3d, nn.ReflectionPad1d/2d/3d
and nn.ReplicationPad1d/2d/3d.

Mirrors `torch/nn/modules/padding.py`: each keeps its padding as a tuple of 2 (1d), 4 (2d) or 6
(3d) ints, one int standing for every side, and calls F.pad with its mode (the circular pads
first check the input's dimensions, as torch's _check_input_dim does).
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


class ConstantPad3d(_ConstantPadNd):
    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(value)
        self.padding = _ntuple(padding, 6)


class ZeroPad1d(ConstantPad1d):
    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _CircularPadNd(Module):
    padding: tuple[int, ...]

    def _check_input_dim(self, input: torch.Tensor) -> None:
        raise NotImplementedError

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        self._check_input_dim(input)
        return F.pad(input, list(self.padding), "circular")

    def extra_repr(self) -> str:
        return f"{self.padding}"


class CircularPad1d(_CircularPadNd):
    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = _ntuple(padding, 2)

    def _check_input_dim(self, input: torch.Tensor) -> None:
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class CircularPad2d(_CircularPadNd):
    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = _ntuple(padding, 4)

    def _check_input_dim(self, input: torch.Tensor) -> None:
        if input.dim() != 3 and input.dim() != 4:
            raise ValueError(f"expected 3D or 4D input (got {input.dim()}D input)")


class CircularPad3d(_CircularPadNd):
    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = _ntuple(padding, 6)

    def _check_input_dim(self, input: torch.Tensor) -> None:
        if input.dim() != 4 and input.dim() != 5:
            raise ValueError(f"expected 4D or 5D input (got {input.dim()}D input)")


class _ReflectionPadNd(Module):
    padding: tuple[int, ...]

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return F.pad(input, list(self.padding), "reflect")

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad1d(_ReflectionPadNd):
    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = _ntuple(padding, 2)


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


class ReflectionPad3d(_ReflectionPadNd):
    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = _ntuple(padding, 6)


class ReplicationPad1d(_ReplicationPadNd):
    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = _ntuple(padding, 2)


class ReplicationPad3d(_ReplicationPadNd):
    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = _ntuple(padding, 6)
