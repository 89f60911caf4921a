"""The Tensor methods: generated from native_functions.yaml, plus the hand-written ones.

Mirrors `tools/autograd/templates/python_variable_methods.cpp`: the generated
`THPVariable_<op>` methods, and the hand-written methods and operators that are not plain ops
(size, stride, dim, data_ptr, to, __add__ / __radd__ / __iadd__ ...). Binary operators map to
the same bindings as their named methods, with a TypeError turned into NotImplemented so Python
can try the other operand (TypeError_to_NotImplemented_).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from tensortrace.aten.dispatcher import OperatorHandle
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.csrc.dtype import to_scalar_type
from tensortrace.csrc.python_bindings import collect_overloads, make_binding
from tensortrace.csrc.python_variable import TensorBase, THPVariable_Wrap, handle_th_errors
from tensortrace.csrc.python_variable_indexing import THPVariable_getitem
from tensortrace.csrc.size import Size


def TypeError_to_NotImplemented_(fn: Callable[..., Any]) -> Callable[..., Any]:  # noqa: N802
    @functools.wraps(fn)
    def wrapper(self: Any, other: Any) -> Any:
        try:
            return fn(self, other)
        except TypeError:
            return NotImplemented

    return wrapper


@handle_th_errors
def size(self: TensorBase, dim: int | None = None) -> Any:
    if dim is None:
        return Size(self.cdata.sizes())
    return self.cdata.sizes()[maybe_wrap_dim(dim, self.cdata.dim(), False)]


@handle_th_errors
def stride(self: TensorBase, dim: int | None = None) -> Any:
    if dim is None:
        return tuple(self.cdata.strides())
    return self.cdata.strides()[maybe_wrap_dim(dim, self.cdata.dim(), False)]


def dim(self: TensorBase) -> int:
    return self.cdata.dim()


def numel(self: TensorBase) -> int:
    return self.cdata.numel()


def storage_offset(self: TensorBase) -> int:
    return self.cdata.storage_offset()


def is_contiguous(self: TensorBase, memory_format: Any = None) -> bool:
    return self.cdata.is_contiguous()


def data_ptr(self: TensorBase) -> int:
    return self.cdata.data_ptr()


def element_size(self: TensorBase) -> int:
    return self.cdata.element_size()


def is_floating_point(self: TensorBase) -> bool:
    return self.cdata.is_floating_point()


def __len__(self: TensorBase) -> int:  # noqa: N807
    if self.cdata.dim() == 0:
        raise TypeError("len() of a 0-d tensor")
    return self.cdata.sizes()[0]


@handle_th_errors
def to(self: TensorBase, dtype: Any, non_blocking: bool = False, copy: bool = False) -> Any:
    """Tensor.to(dtype): the dtype overload of THPVariable_to."""
    return THPVariable_Wrap(self.cdata.to(to_scalar_type(dtype), non_blocking, copy))


HAND_WRITTEN: dict[str, Any] = {
    "size": size, "stride": stride, "dim": dim, "ndimension": dim, "numel": numel,
    "nelement": numel, "storage_offset": storage_offset, "is_contiguous": is_contiguous,
    "data_ptr": data_ptr, "element_size": element_size,
    "is_floating_point": is_floating_point, "__len__": __len__, "to": to,
    "__getitem__": THPVariable_getitem,
}

# Python operator -> (binding name, reflected)
OPERATORS: dict[str, str] = {"__add__": "add", "__radd__": "add", "__iadd__": "add_"}


def install(ops: Sequence[OperatorHandle]) -> None:
    bindings: dict[str, Callable[..., Any]] = {}
    for name, overloads in collect_overloads(ops, is_method=True).items():
        bindings[name] = make_binding(name, overloads, is_method=True)
        setattr(TensorBase, name, bindings[name])
    for dunder, name in OPERATORS.items():
        overloads = collect_overloads(ops, is_method=True)[name]
        binding = make_binding(name, overloads, is_method=True, python_name=dunder)
        setattr(TensorBase, dunder, TypeError_to_NotImplemented_(binding))
    for name, fn in HAND_WRITTEN.items():
        setattr(TensorBase, name, fn)
