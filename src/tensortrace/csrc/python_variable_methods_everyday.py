"""The hand-written Tensor properties and methods of everyday code: T, H, mH, real, imag,
type(), new_tensor.

Mirrors `torch/csrc/autograd/python_variable.cpp` (THPVariable_get_T, get_H, get_mH: properties
that call the numpy_T / matrix_H / mH ops), THPVariable_type in
`tools/autograd/templates/python_variable_methods.cpp` (with `options_to_string` /
`options_from_string` of `torch/csrc/utils/tensor_types.cpp`), and THPVariable_new_tensor with
`new_tensor` of `torch/csrc/utils/tensor_new.cpp`.
"""

from __future__ import annotations

import warnings
from typing import Any

from tensortrace.aten import functions as at
from tensortrace.autograd.variable import make_variable
from tensortrace.c10.exception import TORCH_CHECK_TYPE, TORCH_CHECK_VALUE
from tensortrace.c10.scalar_type import ScalarType
from tensortrace.csrc import tensor_new
from tensortrace.csrc.device_arg import toDevice
from tensortrace.csrc.dtype import dtype as Dtype
from tensortrace.csrc.dtype import to_scalar_type
from tensortrace.csrc.python_arg_parser import PythonArgParser
from tensortrace.csrc.python_variable import TensorBase, THPVariable_Wrap, handle_th_errors
from tensortrace.csrc.python_variable_indexing import valueToTensor
from tensortrace.csrc.python_variable_methods_conversion import dispatch_to
from tensortrace.trace import traced

SOURCE = "torch/csrc/autograd/generated/python_variable_methods.cpp"

# torch/csrc/utils/tensor_types.cpp: the legacy type names of the CPU backend
LEGACY_TYPE_NAMES: dict[str, ScalarType] = {
    f"torch.{st}Tensor": st
    for st in (
        ScalarType.Byte,
        ScalarType.Char,
        ScalarType.Short,
        ScalarType.Int,
        ScalarType.Long,
        ScalarType.Half,
        ScalarType.Float,
        ScalarType.Double,
        ScalarType.ComplexHalf,
        ScalarType.ComplexFloat,
        ScalarType.ComplexDouble,
        ScalarType.Bool,
        ScalarType.BFloat16,
    )
}


@handle_th_errors
def _get_T(self: TensorBase) -> Any:
    return THPVariable_Wrap(self.cdata.numpy_T())


@handle_th_errors
def _get_H(self: TensorBase) -> Any:
    return THPVariable_Wrap(self.cdata.matrix_H())


@handle_th_errors
def _get_mH(self: TensorBase) -> Any:
    return THPVariable_Wrap(self.cdata.mH())


def options_to_string(self: TensorBase) -> str:
    return f"torch.{self.cdata.scalar_type()}Tensor"


_type_parser = PythonArgParser.lazy(
    [
        "type(PyObject* dtype=None, bool non_blocking=False, *, MemoryFormat? memory_format=None)",
    ]
)


@handle_th_errors
@traced("python", "THPVariable_type", SOURCE, legacy="THPVariable_type")
def type_(self: TensorBase, *args: Any, **kwargs: Any) -> Any:
    """x.type(): the legacy type name; x.type(t): the tensor converted (self if nothing changes)."""
    if "async" in kwargs:  # the deprecated spelling of non_blocking
        kwargs["non_blocking"] = kwargs.pop("async")
    r = _type_parser.parse(args, kwargs)
    if r.isNone(0):
        return options_to_string(self)
    obj = r.args[0]
    if isinstance(obj, type):
        type_name = "torch.Tensor" if issubclass(obj, TensorBase) else obj.__name__
    elif isinstance(obj, str):
        type_name = obj
    elif isinstance(obj, Dtype):
        scalar_type = to_scalar_type(obj)
        return _to(self, scalar_type, bool(r.get(1)))
    else:
        raise TypeError("dtype must be a type, str, or dtype object")
    if type_name == "torch.Tensor":  # options_from_string: the default type
        return (
            self
            if self.cdata.scalar_type() == ScalarType.Float
            else _to(self, ScalarType.Float, bool(r.get(1)))
        )
    TORCH_CHECK_VALUE(type_name in LEGACY_TYPE_NAMES, "invalid type: '", type_name, "'")
    return _to(self, LEGACY_TYPE_NAMES[type_name], bool(r.get(1)))


def _to(self: TensorBase, scalar_type: ScalarType, non_blocking: bool) -> Any:
    if self.cdata.scalar_type() == scalar_type:
        return self
    return THPVariable_Wrap(dispatch_to(self.cdata, None, scalar_type, non_blocking, False, None))


_new_tensor_parser = PythonArgParser.lazy(
    [
        "new_tensor(PyObject* data, *, ScalarType dtype=None, Device? device=None, "
        "bool requires_grad=False)",
    ]
)


@handle_th_errors
@traced("python", "THPVariable_new_tensor", SOURCE, legacy="THPVariable_new_tensor")
def new_tensor(self: TensorBase, *args: Any, **kwargs: Any) -> Any:
    """torch::utils::new_tensor: data in self's dtype and device unless given (no inference)."""
    r = _new_tensor_parser.parse(args, kwargs)
    data = r.args[0]
    if isinstance(data, TensorBase):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use "
            "sourceTensor.detach().clone() or sourceTensor.detach().clone()"
            ".requires_grad_(True), rather than tensor.new_tensor(sourceTensor).",
            UserWarning,
            stacklevel=3,
        )
    TORCH_CHECK_TYPE(data is not None, "new(): invalid data type 'NoneType'")
    scalar_type = self.cdata.scalar_type() if r.isNone(1) else to_scalar_type(r.get(1))
    # the given device, else self's (typeIdWithDefault / deviceOptional in new_tensor)
    device = self.cdata.device() if r.isNone(2) else toDevice(r.get(2))
    result = tensor_new.internal_new_from_data(
        data, scalar_type, device, copy_variables=True, copy_numpy=True, type_inference=False
    )
    result.detach_()
    return THPVariable_Wrap(make_variable(result, bool(r.get(3))))


@handle_th_errors
def _get_real(self: TensorBase) -> Any:
    """THPVariable_get_real: at::real, a view of the real parts (self for a real tensor)."""
    return THPVariable_Wrap(at.real(self.cdata))


@handle_th_errors
def _get_imag(self: TensorBase) -> Any:
    return THPVariable_Wrap(at.imag(self.cdata))


def _set_part(part: str) -> Any:
    @handle_th_errors
    def setter(self: TensorBase, value: Any) -> None:
        """THPVariable_set_real / set_imag: copy the value into the view of the part."""
        view = getattr(at, part)(self.cdata)
        view.copy_(valueToTensor(view, value))

    return setter


EVERYDAY_METHODS: dict[str, Any] = {
    "T": property(_get_T),
    "H": property(_get_H),
    "mH": property(_get_mH),
    "real": property(_get_real, _set_part("real")),
    "imag": property(_get_imag, _set_part("imag")),
    "type": type_,
    "new_tensor": new_tensor,
}
