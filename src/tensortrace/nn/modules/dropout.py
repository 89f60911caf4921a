"""nn.Dropout (torch/nn/modules/dropout.py): F.dropout with the module's training flag."""

from __future__ import annotations

import tensortrace as torch
from tensortrace.nn import functional as F
from tensortrace.nn.modules.module import Module


class Dropout(Module):
    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)
