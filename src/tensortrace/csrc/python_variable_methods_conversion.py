"""The hand-written conversion methods of Tensor: to, float/double/..., cpu, item, tolist,
numpy, and the number protocol (__bool__, __float__, __int__, __index__).

Mirrors the conversion part of `tools/autograd/templates/python_variable_methods.cpp`
(THPVariable_to with `parse_to_conversion` and `dispatch_to`, THPVariable_to_type,
THPVariable_item, THPVariable_tolist, THPVariable_numpy, THPVariable_bool_scalar,
THPVariable_float_scalar, THPVariable_integral_scalar, THPVariable_index_scalar), kept in a
module of its own; python_variable_methods.py installs them with the other hand-written ones.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.tensor_body import Tensor as AtTensor
from tensortrace.c10.cuda.cuda_functions import current_device
from tensortrace.c10.device import CPU, Device
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_TYPE, TORCH_CHECK_VALUE
from tensortrace.c10.scalar import checked_convert
from tensortrace.c10.scalar_type import ScalarType, isFloatingType, isIntegralType
from tensortrace.csrc.device_arg import toDevice
from tensortrace.csrc.dtype import memory_format as MemoryFormat
from tensortrace.csrc.dtype import to_scalar_type
from tensortrace.csrc.python_arg_parser import PythonArgParser
from tensortrace.csrc.python_variable import (
    TensorBase,
    THPVariable_Wrap,
    check_noargs,
    handle_th_errors,
)
from tensortrace.csrc.tensor_numpy import tensor_to_numpy
from tensortrace.trace import traced

SOURCE = "torch/csrc/autograd/generated/python_variable_methods.cpp"

_to_parser = PythonArgParser.lazy(
    [
        "to(Device device=None, ScalarType dtype=None, bool non_blocking=False, "
        "bool copy=False, *, MemoryFormat? memory_format=None)",
        "to(ScalarType dtype, bool non_blocking=False, bool copy=False, *, "
        "MemoryFormat? memory_format=None)",
        "to(Tensor tensor, bool non_blocking=False, bool copy=False, *, "
        "MemoryFormat? memory_format=None)",
    ]
)


def _memory_format(value: Any) -> str | None:
    return value.name if isinstance(value, MemoryFormat) else value


def _device(value: Any) -> Device:
    return toDevice(value)


def parse_to_conversion(r: Any) -> tuple[Device | None, ScalarType | None, bool, bool, str | None]:
    """(device, dtype, non_blocking, copy, memory_format) of whichever signature matched."""
    if r.idx == 0:
        return (
            None if r.isNone(0) else _device(r.args[0]),
            None if r.isNone(1) else to_scalar_type(r.args[1]),
            bool(r.get(2)),
            bool(r.get(3)),
            _memory_format(r.args[4]),
        )
    if r.idx == 1:
        return (
            None,
            to_scalar_type(r.args[0]),
            bool(r.get(1)),
            bool(r.get(2)),
            _memory_format(r.args[3]),
        )
    other: AtTensor = r.args[0].cdata
    return (
        other.device(),
        other.scalar_type(),
        bool(r.get(1)),
        bool(r.get(2)),
        _memory_format(r.args[3]),
    )


@traced("python", "dispatch_to", SOURCE, legacy="dispatch_to")
def dispatch_to(
    self: AtTensor,
    device: Device | None,
    dtype: ScalarType | None,
    non_blocking: bool,
    copy: bool,
    memory_format: str | None,
) -> AtTensor:
    """The four dispatch_to overloads: which aten::to overload gets called."""
    if dtype is None:  # self.to(self.options().device(device)...): to.dtype_layout
        return at._ops["to.dtype_layout"].call(
            self,
            self.scalar_type(),
            "strided",
            device or self.device(),
            None,
            non_blocking,
            copy,
            memory_format,
        )
    if device is None:
        return at._ops["to.dtype"].call(self, dtype, non_blocking, copy, memory_format)
    return at._ops["to.device"].call(self, device, dtype, non_blocking, copy, memory_format)


@handle_th_errors
@traced("python", "THPVariable_to", SOURCE, legacy="THPVariable_to")
def to(self: TensorBase, *args: Any, **kwargs: Any) -> Any:
    r = _to_parser.parse(args, kwargs)
    device, dtype, non_blocking, copy, memory_format = parse_to_conversion(r)
    if device is not None:
        TORCH_CHECK_TYPE(
            device.type_.name in ("CPU", "CUDA", "Meta"),
            "tensortrace has CPU and (emulated) CUDA backends only, got device '",
            device,
            "'",
        )
    if device is None and dtype is None and not copy and memory_format is None:
        return self
    return THPVariable_Wrap(
        dispatch_to(self.cdata, device, dtype, non_blocking, copy, memory_format)
    )


def _to_type(scalar_type: ScalarType, name: str) -> Any:
    """THPVariable_<name>: `self.to(dtype)` with no device, no copy."""

    parser = PythonArgParser.lazy([f"{name}(*, MemoryFormat? memory_format=None)"])

    @handle_th_errors
    @traced("python", f"THPVariable_{name}", SOURCE, legacy=f"THPVariable_{name}")
    def method(self: TensorBase, *args: Any, **kwargs: Any) -> Any:
        memory_format = parser.parse(args, kwargs).args[0] if args or kwargs else None
        return THPVariable_Wrap(
            dispatch_to(self.cdata, None, scalar_type, False, False, _memory_format(memory_format))
        )

    method.__name__ = name
    return method


_cpu_parser = PythonArgParser.lazy(["cpu(*, MemoryFormat? memory_format=None)"])


@handle_th_errors
@traced("python", "THPVariable_cpu", SOURCE, legacy="THPVariable_cpu")
def cpu(self: TensorBase, *args: Any, **kwargs: Any) -> Any:
    memory_format = _cpu_parser.parse(args, kwargs).args[0] if args or kwargs else None
    return THPVariable_Wrap(
        dispatch_to(self.cdata, CPU, None, False, False, _memory_format(memory_format))
    )


_cuda_parser = PythonArgParser.lazy(
    [
        "cuda(Device? device=None, bool non_blocking=False, *, MemoryFormat? memory_format=None)",
    ]
)


@handle_th_errors
@traced("python", "THPVariable_cuda", SOURCE, legacy="THPVariable_cuda")
def cuda(self: TensorBase, *args: Any, **kwargs: Any) -> Any:
    """`self.cuda()`: a copy on the current (or the given) CUDA device; no copy if already there."""
    r = _cuda_parser.parse(args, kwargs)
    device = Device("cuda") if r.isNone(0) else _device(r.args[0])
    TORCH_CHECK(device.is_cuda(), "Invalid device, must be cuda device")
    if device.index is None:
        device = Device("cuda", current_device())
    return THPVariable_Wrap(
        dispatch_to(self.cdata, device, None, bool(r.get(1)), False, _memory_format(r.args[2]))
    )


@handle_th_errors
@traced("python", "THPVariable_item", SOURCE, legacy="THPVariable_item")
def item(self: TensorBase, *args: Any, **kwargs: Any) -> Any:
    check_noargs("item", args, kwargs)  # METH_NOARGS
    return self.cdata.item()


def _scalar(self: AtTensor) -> Any:
    """dispatch_to<T>(self): one element, or `only one element tensors can be converted`."""
    TORCH_CHECK_VALUE(
        self.numel() == 1, "only one element tensors can be converted to Python scalars"
    )
    return self.item()


@handle_th_errors
@traced("python", "THPVariable_float_scalar", SOURCE, legacy="THPVariable_float_scalar")
def __float__(self: TensorBase) -> float:
    value = _scalar(self.cdata)
    if isinstance(value, complex):  # Scalar::toDouble: a nonzero imaginary part overflows
        value = checked_convert(value, ScalarType.Double)
    return float(value)


@handle_th_errors
@traced("python", "THPVariable_integral_scalar", SOURCE, legacy="THPVariable_integral_scalar")
def __int__(self: TensorBase) -> int:
    # a float goes through double and THPUtils_packDoubleAsInt: truncation, no overflow check
    value = _scalar(self.cdata)
    if isinstance(value, complex):  # Scalar::toLong: a nonzero imaginary part overflows
        value = checked_convert(value, ScalarType.Long)
    return int(value)


@handle_th_errors
@traced("python", "THPVariable_complex_scalar", SOURCE, legacy="THPVariable_complex_scalar")
def __complex__(self: TensorBase) -> complex:
    return complex(_scalar(self.cdata))


@handle_th_errors
@traced("python", "THPVariable_index_scalar", SOURCE, legacy="THPVariable_index_scalar")
def __index__(self: TensorBase) -> int:
    TORCH_CHECK_TYPE(
        isIntegralType(self.cdata.scalar_type(), True) and self.cdata.numel() == 1,
        "only integer tensors of a single element can be converted to an index",
    )
    return int(self.cdata.item())


@handle_th_errors
@traced("python", "THPVariable_bool_scalar", SOURCE, legacy="THPVariable_bool_scalar")
def __bool__(self: TensorBase) -> bool:
    return bool(self.cdata.is_nonzero())


@handle_th_errors
@traced("python", "THPVariable_tolist", SOURCE, legacy="THPVariable_tolist")
def tolist(self: TensorBase, *args: Any, **kwargs: Any) -> Any:
    """tensor_to_list (torch/csrc/utils/tensor_list.cpp): nested lists of Python numbers."""
    check_noargs("tolist", args, kwargs)  # METH_NOARGS
    data = self.cdata.resolve_conj().resolve_neg()
    if data.is_meta():  # data.toBackend(Backend::CPU): copy_ refuses a meta source
        data = at._to_copy(data, device=CPU)
    values = data.numpy_view()
    if isFloatingType(data.scalar_type()):
        values = values.astype(np.float64)  # c10::Scalar holds a double
    return values.tolist()


@handle_th_errors
@traced("python", "THPVariable_numpy", SOURCE, legacy="THPVariable_numpy")
def numpy(self: TensorBase, *args: Any, **kwargs: Any) -> np.ndarray:
    force = bool(_numpy_parser.parse(args, kwargs).get(0))
    return tensor_to_numpy(self.cdata, force=force)


_numpy_parser = PythonArgParser.lazy(["numpy(*, bool force=False)"])


CONVERSION_METHODS: dict[str, Any] = {
    "to": to,
    "cpu": cpu,
    "cuda": cuda,
    "item": item,
    "tolist": tolist,
    "numpy": numpy,
    "__bool__": __bool__,
    "__float__": __float__,
    "__int__": __int__,
    "__index__": __index__,
    "__complex__": __complex__,
    "float": _to_type(ScalarType.Float, "float"),
    "double": _to_type(ScalarType.Double, "double"),
    "half": _to_type(ScalarType.Half, "half"),
    "bfloat16": _to_type(ScalarType.BFloat16, "bfloat16"),
    "long": _to_type(ScalarType.Long, "long"),
    "int": _to_type(ScalarType.Int, "int"),
    "short": _to_type(ScalarType.Short, "short"),
    "char": _to_type(ScalarType.Char, "char"),
    "byte": _to_type(ScalarType.Byte, "byte"),
    "bool": _to_type(ScalarType.Bool, "bool"),
    "cfloat": _to_type(ScalarType.ComplexFloat, "cfloat"),
    "cdouble": _to_type(ScalarType.ComplexDouble, "cdouble"),
    "chalf": _to_type(ScalarType.ComplexHalf, "chalf"),
}
