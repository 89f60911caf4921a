"""nn.Dropout, nn.Dropout1d, nn.Dropout2d and nn.Dropout3d (torch/nn/modules/dropout.py): the
shared constructor and repr of torch's _DropoutNd, each forward the functional form with the
module's training flag."""

from __future__ import annotations

import tensortrace as torch
from tensortrace.nn import functional as F
from tensortrace.nn.modules.module import Module


class _DropoutNd(Module):
    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return F.dropout3d(input, self.p, self.training, self.inplace)
