"""nn.Parameter: a Tensor that a Module registers as one of its parameters.

Mirrors `torch/nn/parameter.py`. Parameter(data) is `Tensor._make_subclass(Parameter, data,
requires_grad)`: a detached alias of `data` (same storage, new TensorImpl) that requires grad,
so it is a leaf. Assigning one to a Module attribute registers it (Module.__setattr__).
"""

from __future__ import annotations

import sys
from typing import Any

import tensortrace as torch


class Parameter(torch.Tensor):
    def __new__(cls, data: torch.Tensor | None = None, requires_grad: bool = True) -> Any:
        if data is None:
            data = torch.empty(0)
        return torch.Tensor._make_subclass(cls, data, requires_grad)  # type: ignore[attr-defined]

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        pass  # everything happened in __new__ (torch.Tensor.__init__ would parse `data`)

    def __deepcopy__(self, memo: dict[int, Any]) -> Parameter:
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.clone(memory_format=torch.preserve_format), self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __reduce_ex__(self, proto: Any) -> Any:
        raise TypeError("tensortrace does not pickle tensors (a Trace is saved as JSON)")


if "tensortrace.multiprocessing.reductions" in sys.modules:  # loaded before torch.nn was
    sys.modules["tensortrace.multiprocessing.reductions"].register_parameter()
