"""nn.Sequential: child modules called one after the other.

Mirrors `torch/nn/modules/container.py`. The children are registered under "0", "1", ... (or the
names of an OrderedDict), so their parameters are "0.weight", "0.bias" ... in state_dict.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from typing import Any, cast

from tensortrace.nn.modules.module import Module


class Sequential(Module):
    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def _get_item_by_idx(self, iterator: Any, idx: int) -> Any:
        size = len(self)
        idx = idx.__index__()
        if not -size <= idx < size:
            raise IndexError(f"index {idx} is out of range")
        idx %= size
        for _ in range(idx):
            next(iterator)
        return next(iterator)

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        return self._get_item_by_idx(iter(self._modules.values()), idx)

    def __setitem__(self, idx: int, module: Module) -> None:
        key = self._get_item_by_idx(iter(self._modules.keys()), idx)
        setattr(self, key, module)

    def __delitem__(self, idx: int | slice) -> None:
        if isinstance(idx, slice):
            for key in list(self._modules.keys())[idx]:
                delattr(self, key)
        else:
            delattr(self, self._get_item_by_idx(iter(self._modules.keys()), idx))
        # renumber, so the keys stay 0, 1, 2 ...
        str_indices = [str(i) for i in range(len(self._modules))]
        self._modules = OrderedDict(list(zip(str_indices, self._modules.values())))

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        # an add_module(name, None) entry comes out as None, as in torch (whose annotation this is)
        return cast("Iterator[Module]", iter(self._modules.values()))

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), module)
        return self

    def forward(self, input: Any) -> Any:
        for module in self:
            input = module(input)
        return input
