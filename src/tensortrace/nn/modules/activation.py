"""The activation modules: ReLU, Sigmoid, Tanh, Softmax.

Mirrors `torch/nn/modules/activation.py`: each forward is the nn.functional call.
"""

from __future__ import annotations

import tensortrace as torch
from tensortrace.nn import functional as F
from tensortrace.nn.modules.module import Module


class ReLU(Module):
    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Sigmoid(Module):
    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(input)


class Tanh(Module):
    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return torch.tanh(input)


class Softmax(Module):
    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return F.softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"
