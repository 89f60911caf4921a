"""The hand-written torch.<function>s: torch.tensor, torch.as_tensor, torch.from_numpy,
torch.frombuffer, torch.asarray,
torch.nonzero (its `as_tuple` is no schema argument: it picks nonzero or nonzero_numpy).

Mirrors `torch/csrc/autograd/python_torch_functions_manual.cpp`: their PythonArgParser
signatures (`tensor(PyObject* data, *, ScalarType dtype=None, Device? device=None,
bool pin_memory=False, bool requires_grad=False)`) and the calls into
`torch/csrc/utils/tensor_new.cpp` / `tensor_numpy.cpp` (csrc/tensor_new.py, tensor_numpy.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tensortrace.aten import functions as at
from tensortrace.aten.python_torch_function_tls import PYTHON_TORCH_FUNCTION_TLS
from tensortrace.c10.device import Device
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.csrc import tensor_new
from tensortrace.csrc.device_arg import toDevice
from tensortrace.csrc.dtype import to_scalar_type
from tensortrace.csrc.python_arg_parser import PythonArgParser
from tensortrace.csrc.python_torch_function_mode import handle_torch_function_mode
from tensortrace.csrc.python_variable import TensorBase, THPVariable_Wrap, handle_th_errors
from tensortrace.csrc.python_variable_autograd import requires_grad_
from tensortrace.csrc.tensor_numpy import tensor_from_numpy
from tensortrace.trace import traced

SOURCE = "torch/csrc/autograd/python_torch_functions_manual.cpp"


def _device(value: Any) -> Device | None:
    if value is None or isinstance(value, Device):
        return value
    return toDevice(value)


_tensor_parser = PythonArgParser.lazy(
    [
        "tensor(PyObject* data, *, ScalarType dtype=None, Device? device=None, "
        "bool pin_memory=False, bool requires_grad=False)"
    ]
)
_as_tensor_parser = PythonArgParser.lazy(
    ["as_tensor(PyObject* data, *, ScalarType dtype=None, Device? device=None)"]
)


@handle_th_errors
@traced("python", "THPVariable_tensor", SOURCE, legacy="THPVariable_tensor")
def tensor(*args: Any, **kwargs: Any) -> Any:
    r = _tensor_parser.parse(args, kwargs)
    if PYTHON_TORCH_FUNCTION_TLS.stack_:  # Note [The default device at the binding layer]
        return handle_torch_function_mode(tensor, args, kwargs)
    dtype = None if r.isNone(1) else to_scalar_type(r.get(1))
    result = tensor_new.tensor_ctor(
        r.args[0], dtype, _device(r.args[2]), bool(r.get(3)), bool(r.get(4))
    )
    return THPVariable_Wrap(result)


@handle_th_errors
@traced("python", "THPVariable_as_tensor", SOURCE, legacy="THPVariable_as_tensor")
def as_tensor(*args: Any, **kwargs: Any) -> Any:
    r = _as_tensor_parser.parse(args, kwargs)
    if PYTHON_TORCH_FUNCTION_TLS.stack_:  # Note [The default device at the binding layer]
        return handle_torch_function_mode(as_tensor, args, kwargs)
    dtype = None if r.isNone(1) else to_scalar_type(r.get(1))
    return THPVariable_Wrap(tensor_new.as_tensor(r.args[0], dtype, _device(r.args[2])))


@handle_th_errors
@traced("python", "THPVariable_from_numpy", SOURCE, legacy="THPVariable_from_numpy")
def from_numpy(arg: Any) -> Any:
    """Share the ndarray's memory: Note [from_numpy shares memory]."""
    return THPVariable_Wrap(tensor_from_numpy(arg))


_frombuffer_parser = PythonArgParser.lazy(
    [
        "frombuffer(PyObject* buffer, *, ScalarType dtype, int64_t count=-1, int64_t offset=0, "
        "bool requires_grad=False)"
    ]
)


@handle_th_errors
@traced("python", "THPVariable_frombuffer", SOURCE, legacy="THPVariable_frombuffer")
def frombuffer(*args: Any, **kwargs: Any) -> Any:
    """Share a Python buffer's memory as a 1-d CPU tensor (tensor_new.tensor_frombuffer)."""
    r = _frombuffer_parser.parse(args, kwargs)
    dtype = to_scalar_type(r.get(1))
    result = tensor_new.tensor_frombuffer(
        r.args[0], dtype, int(r.get(2)), int(r.get(3)), bool(r.get(4))
    )
    return THPVariable_Wrap(result)


_asarray_parser = PythonArgParser.lazy(
    [
        "asarray(PyObject* obj, *, ScalarType? dtype=None, Device? device=None, "
        "bool? copy=None, bool requires_grad=False)"
    ]
)


@handle_th_errors
@traced("python", "THPVariable_asarray", SOURCE, legacy="THPVariable_asarray")
def asarray(*args: Any, **kwargs: Any) -> Any:
    """torch.asarray: alias or copy obj into a tensor (tensor_new.asarray)."""
    r = _asarray_parser.parse(args, kwargs)
    if PYTHON_TORCH_FUNCTION_TLS.stack_:  # Note [The default device at the binding layer]
        return handle_torch_function_mode(asarray, args, kwargs)
    dtype = None if r.isNone(1) else to_scalar_type(r.get(1))
    copy = None if r.isNone(3) else bool(r.get(3))
    requires_grad = bool(r.get(4))
    result = THPVariable_Wrap(
        tensor_new.asarray(r.args[0], dtype, _device(r.args[2]), copy, requires_grad)
    )
    if requires_grad:
        requires_grad_(result, True)
    return result


_nonzero_parser = PythonArgParser.lazy(
    ["nonzero(Tensor input, *, bool as_tuple=False, Tensor out=None)"]
)


@traced("python", "dispatch_nonzero", SOURCE, legacy="dispatch_nonzero")
def dispatch_nonzero(self: Any, out: Any = None) -> Any:
    if out is None:
        return self.nonzero()
    result = self.nonzero()  # nonzero.out: the out tensor takes the result's shape
    out.resize_(list(result.sizes()))
    return out.copy_(result)


@traced("python", "dispatch_nonzero_numpy", SOURCE, legacy="dispatch_nonzero_numpy")
def dispatch_nonzero_numpy(self: Any) -> Any:
    return at.nonzero_numpy(self)


@handle_th_errors
@traced("python", "THPVariable_nonzero", SOURCE, legacy="THPVariable_nonzero")
def nonzero(*args: Any, **kwargs: Any) -> Any:
    r = _nonzero_parser.parse(args, kwargs)
    tensor = r.args[0].cdata
    as_tuple = bool(r.get(1))
    has_out = not r.isNone(2)
    if as_tuple:
        TORCH_CHECK(not has_out, "nonzero does not support the out kwarg when as_tuple is True")
        return tuple(THPVariable_Wrap(t) for t in dispatch_nonzero_numpy(tensor))
    if has_out:
        dispatch_nonzero(tensor, r.args[2].cdata)
        return r.args[2]
    return THPVariable_Wrap(dispatch_nonzero(tensor))


_nonzero_method_parser = PythonArgParser.lazy(["nonzero()", "nonzero(*, bool as_tuple)"])


@handle_th_errors
@traced(
    "python",
    "THPVariable_nonzero",
    "torch/csrc/autograd/generated/python_variable_methods.cpp",
    legacy="THPVariable_nonzero",
)
def nonzero_method(self: TensorBase, *args: Any, **kwargs: Any) -> Any:
    """Tensor.nonzero(*, as_tuple=False), hand-written in python_variable_methods.cpp too."""
    r = _nonzero_method_parser.parse(args, kwargs)
    if r.idx == 0 or not bool(r.get(0)):
        return THPVariable_Wrap(dispatch_nonzero(self.cdata))
    return tuple(THPVariable_Wrap(t) for t in dispatch_nonzero_numpy(self.cdata))


def _tensor_predicate(name: str) -> Callable[..., bool]:
    """torch.is_complex / is_conj / is_neg / is_floating_point: manual_cpp_binding in the YAML,
    so the binding asks the TensorImpl directly, with no dispatcher call."""
    parser = PythonArgParser.lazy([f"{name}(Tensor input)"])

    @handle_th_errors
    def predicate(*args: Any, **kwargs: Any) -> bool:
        tensor = parser.parse(args, kwargs).args[0]
        return bool(getattr(tensor, name)())

    predicate.__name__ = name
    return predicate


MANUAL_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "tensor": tensor,
    "as_tensor": as_tensor,
    "from_numpy": from_numpy,
    "frombuffer": frombuffer,
    "asarray": asarray,
    "nonzero": nonzero,
    **{
        name: _tensor_predicate(name)
        for name in ("is_complex", "is_conj", "is_neg", "is_floating_point")
    },
}
