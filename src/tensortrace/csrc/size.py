"""torch.Size: the tuple `tensor.shape` returns, printed as `torch.Size([3, 4])`.

Mirrors `torch/csrc/Size.cpp`.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from typing import Any, cast


def _index(item: object, i: int) -> int:
    """THPSize_pynew: an int, or anything whose __index__ gives one (a 0-d integer tensor)."""
    try:
        return operator.index(item)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(
            f"torch.Size() takes an iterable of 'int' (item {i} is '{type(item).__name__}')"
        ) from None


class Size(tuple[int, ...]):
    __slots__ = ()

    def __new__(cls, sizes: object = ()) -> Size:
        items = tuple(cast("Iterable[Any]", sizes))  # PyTuple_Type.tp_new
        if all(type(s) is int for s in items):  # the common case, checked once
            return super().__new__(cls, items)
        return super().__new__(cls, [_index(s, i) for i, s in enumerate(items)])

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
