"""The hand-written torch.<function>s: torch.tensor, torch.as_tensor, torch.from_numpy.

Mirrors `torch/csrc/autograd/python_torch_functions_manual.cpp`: their PythonArgParser
signatures (`tensor(PyObject* data, *, ScalarType dtype=None, Device? device=None,
bool pin_memory=False, bool requires_grad=False)`) and the calls into
`torch/csrc/utils/tensor_new.cpp` / `tensor_numpy.cpp` (csrc/tensor_new.py, tensor_numpy.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tensortrace.c10.device import Device
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.csrc import tensor_new
from tensortrace.csrc.dtype import to_scalar_type
from tensortrace.csrc.python_arg_parser import PythonArgParser
from tensortrace.csrc.python_variable import THPVariable_Wrap, handle_th_errors
from tensortrace.csrc.tensor_numpy import tensor_from_numpy
from tensortrace.trace import traced

SOURCE = "torch/csrc/autograd/python_torch_functions_manual.cpp"


def _device(value: Any) -> Device | None:
    if value is None or isinstance(value, Device):
        return value
    return Device(value if isinstance(value, str) else f"cuda:{value}")


_tensor_parser = PythonArgParser.create([
    "tensor(PyObject* data, *, ScalarType dtype=None, Device? device=None, "
    "bool pin_memory=False, bool requires_grad=False)"])
_as_tensor_parser = PythonArgParser.create([
    "as_tensor(PyObject* data, *, ScalarType dtype=None, Device? device=None)"])


@handle_th_errors
@traced("python", "THPVariable_tensor", SOURCE, legacy="THPVariable_tensor")
def tensor(*args: Any, **kwargs: Any) -> Any:
    r = _tensor_parser.parse(args, kwargs)
    dtype = None if r.isNone(1) else to_scalar_type(r.get(1))
    result = tensor_new.tensor_ctor(r.args[0], dtype, _device(r.args[2]),
                                    bool(r.get(3)), bool(r.get(4)))
    return THPVariable_Wrap(result)


@handle_th_errors
@traced("python", "THPVariable_as_tensor", SOURCE, legacy="THPVariable_as_tensor")
def as_tensor(*args: Any, **kwargs: Any) -> Any:
    r = _as_tensor_parser.parse(args, kwargs)
    dtype = None if r.isNone(1) else to_scalar_type(r.get(1))
    return THPVariable_Wrap(tensor_new.as_tensor(r.args[0], dtype, _device(r.args[2])))


@handle_th_errors
@traced("python", "THPVariable_from_numpy", SOURCE, legacy="THPVariable_from_numpy")
def from_numpy(arg: Any) -> Any:
    """Share the ndarray's memory: Note [from_numpy shares memory]."""
    return THPVariable_Wrap(tensor_from_numpy(arg))


_nonzero_parser = PythonArgParser.create([
    "nonzero(Tensor input, *, bool as_tuple=False, Tensor out=None)"])


@handle_th_errors
@traced("python", "THPVariable_nonzero", SOURCE, legacy="THPVariable_nonzero")
def nonzero(*args: Any, **kwargs: Any) -> Any:
    """as_tuple=True is nonzero_numpy (one index tensor per dim), else nonzero (one row each)."""
    r = _nonzero_parser.parse(args, kwargs)
    self = r.args[0]
    if r.get(1):
        TORCH_CHECK(r.args[2] is None, "nonzero does not support the out kwarg when as_tuple "
                    "is True")
        return tuple(THPVariable_Wrap(t) for t in self.cdata.nonzero_numpy())
    if r.args[2] is not None:
        return _VF_nonzero(self, out=r.args[2])
    return _VF_nonzero(self)


def _VF_nonzero(*args: Any, **kwargs: Any) -> Any:  # noqa: N802
    from tensortrace.csrc.python_torch_functions import GENERATED

    return GENERATED["nonzero"](*args, **kwargs)


MANUAL_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "tensor": tensor, "as_tensor": as_tensor, "from_numpy": from_numpy, "nonzero": nonzero,
}
