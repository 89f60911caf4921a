"""What the generated bindings call at run time: typed arguments in, wrapped results out.

Mirrors the inline helpers the generated `python_torch_functions_*.cpp` and
`python_variable_methods.cpp` call: PythonArgs' typed accessors (`r.tensor(i)`, `r.intlist(i)`,
`r.scalar(i)`, `r.toInt64(i)` in `torch/csrc/utils/python_arg_parser.h`), the out= call of a
`dispatch_<op>` lambda (`tools/autograd/gen_python_functions.py` folds the out= overload into
the functional one), and `wrap` (`torch/csrc/autograd/utils/wrap_outputs.h`). The bindings
themselves are written by tensortrace.torchgen from csrc/python_bindings.py's signatures.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from tensortrace.aten.function_schema import FunctionSchema
from tensortrace.aten.scalar_ops import wrapped_scalar_tensor
from tensortrace.aten.tensor_body import Tensor as AtTensor
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType
from tensortrace.csrc.device_arg import toDevice
from tensortrace.csrc.dtype import get_dtype, layout, memory_format, to_scalar_type
from tensortrace.csrc.generator import Generator
from tensortrace.csrc.python_arg_parser import INT64_MAX, INT64_MIN, ParameterType, PythonArgs
from tensortrace.csrc.python_bindings import FACTORY_OPTIONS
from tensortrace.csrc.python_variable import TensorBase, THPVariable_Wrap


def convert(r: PythonArgs, i: int) -> Any:
    """The typed accessor for parameter i: r.tensor(i), r.intlist(i), r.scalartype(i), ..."""
    value = r.get(i)
    if value is None:
        return None
    t = r.signature.params[i].type_
    if t == ParameterType.TENSOR:
        if isinstance(value, TensorBase):
            return value.cdata
        return wrapped_scalar_tensor(scalar_arg(value))  # PythonArgs::tensor_slow
    if t == ParameterType.INT_LIST:
        return r.intlist(i)
    if t == ParameterType.TENSOR_LIST:
        return [v.cdata for v in value]
    if t == ParameterType.FLOAT_LIST:
        return [float(v) for v in value]
    if t == ParameterType.SCALARTYPE:
        return to_scalar_type(value)
    if t == ParameterType.DEVICE:
        return toDevice(value)
    if t == ParameterType.GENERATOR:
        return value._cdata if isinstance(value, Generator) else value
    if t == ParameterType.LAYOUT:
        return value.name if isinstance(value, layout) else value
    if t == ParameterType.MEMORY_FORMAT:
        return value.name if isinstance(value, memory_format) else value
    if t == ParameterType.SCALAR:
        return scalar_arg(value)
    if t == ParameterType.STORAGE:
        from tensortrace.csrc.storage import storage_of

        return storage_of(value)
    if t in (ParameterType.INT64, ParameterType.SYM_INT):
        return int64_arg(value)
    if t == ParameterType.DOUBLE:
        return float(value)
    return value


def scalar_arg(value: Any) -> Any:
    """PythonArgs::scalar_slow: a Python number as it is, a 0-dim tensor's item, a NumPy
    scalar unpacked as the number it is (Note [NumPy scalars as Scalars])."""
    kind = type(value)
    if kind is int:
        if not INT64_MIN <= value <= INT64_MAX:
            # past int64, PyLong_AsUnsignedLongLong's own errors
            if value < 0:
                raise OverflowError("can't convert negative int to unsigned")
            if value >> 64:
                raise OverflowError("int too big to convert")
        return value
    if kind is float or kind is bool or kind is complex:
        return value
    if isinstance(value, TensorBase):
        return value.item()
    if isinstance(value, np.generic):
        return _unpack_numpy_scalar(value)
    return value


# Note [NumPy scalars as Scalars]
# THPUtils_checkScalar accepts NumPy scalars (is_numpy_scalar: an integer, bool, floating or
# complex scalar), and scalar_slow / tensor_slow unpack them by the C API checks they pass:
# THPUtils_checkLong takes a NumPy integer (PyLong_AsLongLongAndOverflow; past int64,
# PyLong_AsUnsignedLongLong, which wants a real int: "an integer is required"); PyComplex_Check
# takes complex128 only (a subclass of complex); everything else, np.bool_ and complex64
# included, is THPUtils_unpackDouble: PyFloat_AsDouble, so True is 1.0 and complex64 keeps
# its real part.
def _unpack_numpy_scalar(value: np.generic) -> Any:
    if isinstance(value, np.integer):
        number = int(value)
        if not INT64_MIN <= number <= INT64_MAX:
            raise TypeError("an integer is required")
        return number
    if isinstance(value, complex):
        return complex(value)
    with warnings.catch_warnings():  # float(complex64): NumPy's ComplexWarning, as in torch
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        return float(value)  # type: ignore[arg-type]


def int64_arg(value: Any) -> int:
    """PythonArgs::toInt64: THPUtils_unpackLong, with its overflow error."""
    value = int(value)
    if not INT64_MIN <= value <= INT64_MAX:
        raise ValueError("Overflow when unpacking long long")
    return value


def _check_out_options(out: AtTensor, options: dict[str, Any]) -> None:
    dtype = options.get("dtype")
    TORCH_CHECK(
        dtype is None or dtype == out.scalar_type(),
        "dtype ",
        dtype,
        " does not match dtype of out parameter (",
        out.scalar_type(),
        ")",
    )
    # check_out_type_matches (torch/csrc/utils/out_types.cpp): the device's type must be the
    # out tensor's (a default device fills device=, so zeros(3, out=cpu_t) under cuda raises)
    device = options.get("device")
    TORCH_CHECK(
        device is None or device.type_ == out.device().type_,
        "device type ",
        device.type if device is not None else "",
        " does not match device type of out parameter (",
        out.device().type,
        ")",
    )


def call_out(
    out_op: Any,
    name: str,
    is_factory: bool,
    self: AtTensor | None,
    kwargs: dict[str, Any],
    out: Any,
) -> Any:
    """A dispatch_<op> called with out=: the out= overload, with `out` in its write arguments."""
    if is_factory:
        _check_out_options(out, kwargs)
        kwargs = {k: v for k, v in kwargs.items() if k not in FACTORY_OPTIONS}
    args = ({"self": self} if self is not None else {}) | kwargs
    written = [a.name for a in out_op.schema.arguments if a.kwarg_only and a.type.is_write]
    if len(written) == 1:
        args[written[0]] = out
    else:  # out=(values, indices) fills the schema's write arguments in order
        TORCH_CHECK(
            len(out) == len(written),
            name,
            "(): expected ",
            len(written),
            " out tensors, got ",
            len(out),
        )
        args.update(zip(written, out))
    names = [a.name for a in out_op.schema.arguments]
    return out_op.call(*(args.get(n, _default(out_op.schema, n)) for n in names))


def _default(schema: FunctionSchema, name: str) -> Any:
    arg = next(a for a in schema.arguments if a.name == name)
    return arg.default_value()


def wrap_result(result: Any, structseq: type[tuple[Any, ...]] | None = None) -> Any:
    if isinstance(result, AtTensor):
        return THPVariable_Wrap(result)
    if isinstance(result, tuple):
        wrapped = tuple(wrap_result(r) for r in result)
        return structseq(wrapped) if structseq is not None else wrapped
    if isinstance(result, list) and all(isinstance(r, AtTensor) for r in result):
        return tuple(wrap_result(r) for r in result)  # wrap(TensorList) makes a tuple
    if isinstance(result, list):
        return [wrap_result(r) for r in result]
    if isinstance(result, ScalarType):
        return get_dtype(result)  # a ScalarType return (result_type) is a torch.dtype
    return result
