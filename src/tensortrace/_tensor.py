"""torch.Tensor: the public tensor class, a subclass of the binding's TensorBase.

Mirrors `torch/_tensor.py`. Methods that PyTorch writes in Python live here (printing, numpy
conversion); everything else comes from the binding (csrc/python_variable_methods.py).
"""

from __future__ import annotations

from tensortrace.csrc import python_variable
from tensortrace.csrc.python_variable import TensorBase


class Tensor(TensorBase):
    __slots__ = ()

    def __repr__(self) -> str:
        from tensortrace._tensor_str import _str

        return _str(self)

    __str__ = __repr__


python_variable.THPVariableClass = Tensor
