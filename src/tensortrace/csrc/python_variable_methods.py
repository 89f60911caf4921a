"""The Tensor methods: generated from native_functions.yaml, plus the hand-written ones.

Mirrors `tools/autograd/templates/python_variable_methods.cpp`: the generated
`THPVariable_<op>` methods, and the hand-written methods and operators that are not plain ops
(size, stride, dim, data_ptr, to, __add__ / __radd__ / __iadd__ ...). Binary operators map to
the same bindings as their named methods, with a TypeError turned into NotImplemented so Python
can try the other operand (TypeError_to_NotImplemented_).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.scalar_type import isIntegralType
from tensortrace.csrc.python_arg_parser import PythonArgParser
from tensortrace.csrc.python_torch_functions_manual import nonzero_method
from tensortrace.csrc.python_variable import (
    TensorBase,
    THPVariable_Wrap,
    check_noargs,
    end_handle_th_errors,
    handle_th_errors,
)
from tensortrace.csrc.python_variable_indexing import (
    THPVariable_delitem,
    THPVariable_getitem,
    THPVariable_setitem,
)
from tensortrace.csrc.python_variable_methods_conversion import CONVERSION_METHODS
from tensortrace.csrc.python_variable_methods_everyday import EVERYDAY_METHODS
from tensortrace.csrc.size import Size
from tensortrace.csrc.storage import THPStorage_Wrap, TypedStorage, _warn_typed_storage_removal


def TypeError_to_NotImplemented_(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A TypeError becomes NotImplemented, so Python can try the other operand.

    In C++ this template calls THPVariable_<op>, whose HANDLE_TH_ERRORS is inline: one frame.
    So a binding wrapped in handle_th_errors is unwrapped and both run in this one frame (a
    binary operator is a Python call fewer).
    """
    body = fn.__wrapped__ if getattr(fn, "__handles_th_errors__", False) else None  # type: ignore[attr-defined]
    if body is None:

        @functools.wraps(fn)
        def wrapper(self: Any, other: Any) -> Any:
            try:
                return fn(self, other)
            except TypeError:
                return NotImplemented

        return wrapper

    @functools.wraps(fn)
    def operator_wrapper(self: Any, other: Any) -> Any:
        try:
            return body(self, other)
        except TypeError:
            return NotImplemented
        except Exception as exc:  # handle_th_errors' clause
            # the operands stay referenced by this frame, as by the two frames this one replaces
            # (the recording shows a failed `a + b` as its last line, their frees after it)
            raise end_handle_th_errors(exc) from exc.__cause__

    return operator_wrapper


# Note [Hand-written methods parse like torch]: python_variable_methods.cpp parses these with a
# PythonArgParser too (or declares them METH_NOARGS), so a bad argument gets torch's TypeError.
_size_parser = PythonArgParser.lazy(["size(int64_t? dim=None)"])
_stride_parser = PythonArgParser.lazy(["stride(int64_t? dim=None)"])
_is_contiguous_parser = PythonArgParser.lazy(
    ["is_contiguous(*, MemoryFormat memory_format=contiguous_format)"]
)


@handle_th_errors
def size(self: TensorBase, *args: Any, **kwargs: Any) -> Any:
    # x.size() and x.size(int) skip the parser: they are the calls user code makes in loops
    fast = not kwargs and (not args or (len(args) == 1 and type(args[0]) is int))
    dim = (args[0] if args else None) if fast else _size_parser.parse(args, kwargs).args[0]
    if dim is None:
        return Size(self.cdata.sizes())
    return self.cdata.sizes()[maybe_wrap_dim(dim, self.cdata.dim(), False)]


@handle_th_errors
def stride(self: TensorBase, *args: Any, **kwargs: Any) -> Any:
    # x.stride() and x.stride(int) skip the parser: they are the calls user code makes in loops
    fast = not kwargs and (not args or (len(args) == 1 and type(args[0]) is int))
    dim = (args[0] if args else None) if fast else _stride_parser.parse(args, kwargs).args[0]
    if dim is None:
        return tuple(self.cdata.strides())
    return self.cdata.strides()[maybe_wrap_dim(dim, self.cdata.dim(), False)]


def dim(self: TensorBase, *args: Any, **kwargs: Any) -> int:
    if args or kwargs:
        check_noargs("dim", args, kwargs)
    return self.cdata.dim()


def numel(self: TensorBase, *args: Any, **kwargs: Any) -> int:
    if args or kwargs:
        check_noargs("numel", args, kwargs)
    return self.cdata.numel()


def storage_offset(self: TensorBase, *args: Any, **kwargs: Any) -> int:
    if args or kwargs:
        check_noargs("storage_offset", args, kwargs)
    return self.cdata.storage_offset()


def is_contiguous(self: TensorBase, *args: Any, **kwargs: Any) -> bool:
    if args or kwargs:
        _is_contiguous_parser.parse(args, kwargs)
    return self.cdata.is_contiguous()


def data_ptr(self: TensorBase, *args: Any, **kwargs: Any) -> int:
    if args or kwargs:
        check_noargs("data_ptr", args, kwargs)
    return self.cdata.data_ptr()


def element_size(self: TensorBase, *args: Any, **kwargs: Any) -> int:
    if args or kwargs:
        check_noargs("element_size", args, kwargs)
    return self.cdata.element_size()


def is_floating_point(self: TensorBase) -> bool:
    return self.cdata.is_floating_point()


def is_complex(self: TensorBase) -> bool:
    return self.cdata.is_complex()


def is_conj(self: TensorBase) -> bool:
    return self.cdata.is_conj()


def is_neg(self: TensorBase) -> bool:
    return self.cdata.is_neg()


def __len__(self: TensorBase) -> int:
    if self.cdata.dim() == 0:
        raise TypeError("len() of a 0-d tensor")
    return self.cdata.sizes()[0]


_contiguous_parser = PythonArgParser.lazy(
    ["contiguous(*, MemoryFormat memory_format=contiguous_format)"]
)


@handle_th_errors
def contiguous(self: TensorBase, *args: Any, **kwargs: Any) -> Any:
    """THPVariable_contiguous: an already-contiguous tensor comes back without dispatching."""
    memory_format = _contiguous_parser.parse(args, kwargs).args[0] if args or kwargs else None
    if self.cdata.is_contiguous():
        return self
    fmt = "contiguous_format" if memory_format is None else memory_format.name
    return THPVariable_Wrap(self.cdata.contiguous(memory_format=fmt))


def untyped_storage(self: TensorBase) -> Any:
    """THPVariable_storage: the Python handle of this tensor's StorageImpl."""
    return THPStorage_Wrap(self.cdata.storage())


def storage(self: TensorBase) -> Any:
    """Tensor.storage() (torch/_tensor.py): the deprecated TypedStorage of this tensor."""
    _warn_typed_storage_removal()
    return TypedStorage(untyped_storage(self), self.dtype)


HAND_WRITTEN: dict[str, Any] = {
    "size": size,
    "stride": stride,
    "dim": dim,
    "ndimension": dim,
    "numel": numel,
    "nelement": numel,
    "storage_offset": storage_offset,
    "is_contiguous": is_contiguous,
    "data_ptr": data_ptr,
    "element_size": element_size,
    "is_floating_point": is_floating_point,
    "is_complex": is_complex,
    "is_conj": is_conj,
    "is_neg": is_neg,
    "__len__": __len__,
    "__getitem__": THPVariable_getitem,
    "__setitem__": THPVariable_setitem,
    "__delitem__": THPVariable_delitem,
    "contiguous": contiguous,
    "untyped_storage": untyped_storage,
    "storage": storage,
}
HAND_WRITTEN.update(CONVERSION_METHODS)  # to, float(), item, tolist, numpy, __bool__ ...
HAND_WRITTEN["nonzero"] = nonzero_method  # as_tuple picks nonzero or nonzero_numpy


@handle_th_errors
def _get_mT(self: TensorBase) -> Any:
    """THPVariable_get_mT: `x.mT` is a property in Python, the mT op underneath."""
    return THPVariable_Wrap(self.cdata.mT())


HAND_WRITTEN["mT"] = property(_get_mT)
HAND_WRITTEN.update(EVERYDAY_METHODS)  # T, H, mH, type(), new_tensor


@handle_th_errors
def __invert__(self: TensorBase) -> Any:
    """THPVariable_invert: ~ is bitwise_not, for integer and bool tensors only."""
    if not isIntegralType(self.cdata.scalar_type(), True):
        raise TypeError(
            "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
        )
    return THPVariable_Wrap(self.cdata.bitwise_not())


HAND_WRITTEN["__invert__"] = __invert__

# Python operator -> the binding it calls (python_variable_methods.cpp's method table). Each is
# wrapped in TypeError_to_NotImplemented_, so `1 - t` can fall back to t.__rsub__. __eq__ is
# THPVariable___eq__ in torch, which only adds NumPy-array handling before calling eq.
# The reflected and in-place operators torch writes in Python are in _tensor.py.
OPERATORS: dict[str, str] = {
    "__add__": "add",
    "__radd__": "add",
    "__iadd__": "add_",
    "__mul__": "mul",
    "__rmul__": "mul",
    "__imul__": "mul_",
    "__sub__": "sub",
    "__isub__": "sub_",
    "__div__": "div",
    "__truediv__": "div",
    "__idiv__": "div_",
    "__floordiv__": "floor_divide",
    "__ifloordiv__": "floor_divide_",
    "__mod__": "remainder",
    "__imod__": "remainder_",
    "__eq__": "eq",
    "__ne__": "ne",
    "__lt__": "lt",
    "__le__": "le",
    "__gt__": "gt",
    "__ge__": "ge",
    "__rand__": "bitwise_and",
    "__ror__": "bitwise_or",
    "__rxor__": "bitwise_xor",
    "__matmul__": "matmul",
}


def install(
    methods: dict[str, Callable[..., Any]], operators: dict[str, Callable[..., Any]]
) -> None:
    """Set the generated bindings (csrc/generated/python_variable_methods.py's METHODS and
    OPERATOR_METHODS, the bindings of OPERATORS) and the hand-written methods on TensorBase."""
    for name, binding in methods.items():
        # a dunder op of the YAML (__and__, __ior__) is a binary operator too
        is_dunder = name.startswith("__") and name.endswith("__")
        setattr(TensorBase, name, TypeError_to_NotImplemented_(binding) if is_dunder else binding)
    for dunder, binding in operators.items():
        setattr(TensorBase, dunder, TypeError_to_NotImplemented_(binding))
    for name, fn in HAND_WRITTEN.items():
        setattr(TensorBase, name, fn)
