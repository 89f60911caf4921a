"""nn.Flatten: flatten dims start_dim..end_dim into one (default: all but the batch dim).

Mirrors `torch/nn/modules/flatten.py`; the forward is Tensor.flatten, so the trace shows
aten::flatten > aten::view (or a copy when the dims cannot be viewed together).
"""

from __future__ import annotations

import tensortrace as torch
from tensortrace.nn.modules.module import Module


class Flatten(Module):
    __constants__ = ["start_dim", "end_dim"]

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"
