"""TensorBase._make_subclass: a new Python object of a Tensor subclass around a detached tensor.

Mirrors THPVariable_make_subclass in `torch/csrc/autograd/python_variable.cpp`, which
nn.Parameter.__new__ calls: the data is detach()ed (a new TensorImpl sharing the storage, so
the trace shows aten::detach), requires_grad is set on it, and the subclass instance becomes
its Python handle.
"""

from __future__ import annotations

from typing import Any

from tensortrace.csrc.python_variable import TensorBase, THPVariable_NewWithVar
from tensortrace.trace import traced

SOURCE = "torch/csrc/autograd/python_variable.cpp"


@traced("python", "THPVariable_make_subclass", SOURCE)
def THPVariable_make_subclass(cls: type, data: TensorBase, require_grad: bool = False  # noqa: N802
                              ) -> Any:
    if not isinstance(data, TensorBase):
        raise TypeError(f"data must be a Tensor, not {type(data).__name__}")
    var = data.cdata.detach()
    obj = THPVariable_NewWithVar(object.__new__(cls), var)  # not cls.__new__: Parameter has one
    if require_grad:
        obj.requires_grad_(True)
    return obj


def install() -> None:
    TensorBase._make_subclass = staticmethod(THPVariable_make_subclass)  # type: ignore[attr-defined]
