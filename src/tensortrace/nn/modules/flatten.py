"""nn.Flatten: flatten dims start_dim..end_dim into one (default: all but the batch dim), and
nn.Unflatten, which splits one dim into several.

Mirrors `torch/nn/modules/flatten.py`; the forwards are Tensor.flatten and Tensor.unflatten, so
the trace shows aten::flatten > aten::view (or a copy when the dims cannot be viewed together)
and aten::unflatten > aten::view.
"""

from __future__ import annotations

from typing import Any

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


class Unflatten(Module):
    """Unflattens dim `dim` into the sizes `unflattened_size` (Tensor.unflatten)."""

    __constants__ = ["dim", "unflattened_size"]

    def __init__(self, dim: int, unflattened_size: tuple[int, ...] | list[int]) -> None:
        super().__init__()
        self._require_tuple_int(unflattened_size)
        self.dim = dim
        self.unflattened_size = unflattened_size

    def _require_tuple_int(self, input: Any) -> None:
        if isinstance(input, (tuple, list)):
            for idx, elem in enumerate(input):
                if not isinstance(elem, int):
                    raise TypeError(
                        "unflattened_size must be tuple of ints, "
                        + f"but found element of type {type(elem).__name__} at pos {idx}"
                    )
            return
        raise TypeError(
            f"unflattened_size must be a tuple of ints, but found type {type(input).__name__}"
        )

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
