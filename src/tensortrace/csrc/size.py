"""torch.Size: the tuple `tensor.shape` returns, printed as `torch.Size([3, 4])`.

Mirrors `torch/csrc/Size.cpp`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import SupportsInt


class Size(tuple[int, ...]):
    __slots__ = ()

    def __new__(cls, sizes: Iterable[SupportsInt] = ()) -> Size:
        return super().__new__(cls, (int(s) for s in sizes))

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(str(s) for s in self)}])"

    def __getitem__(self, key):  # type: ignore[no-untyped-def, override]
        result = super().__getitem__(key)
        return Size(result) if isinstance(key, slice) else result

    def __add__(self, other: tuple[int, ...]) -> Size:  # type: ignore[override]
        return Size(tuple(self) + tuple(other))
