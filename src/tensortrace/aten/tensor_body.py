"""at::Tensor: the C++ handle to a TensorImpl, with a method for each `variants: method` op.

Mirrors `aten/src/ATen/core/TensorBase.h` and `aten/src/ATen/templates/TensorBody.h`. A Tensor
holds one intrusive_ptr<TensorImpl> and nothing else; every accessor asks the TensorImpl. The op
methods (`self.add(other)`, `self.uniform_(0, 1)`) are generated from native_functions.yaml into
`aten/generated/tensor_body.py` (`python -m tensortrace.torchgen`) and call through the
Dispatcher, as TensorBody.h's methods call `at::_ops::<op>::call`.

A Python reference to a Tensor is a borrow; only `Tensor.copy()` makes a second owner.
See Note [Python drives the refcounts].
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NoReturn

from tensortrace.c10.device import Device, kMeta
from tensortrace.c10.dispatch_key import DispatchKeySet
from tensortrace.c10.intrusive_ptr import intrusive_ptr
from tensortrace.c10.scalar_type import _SCALAR_TYPE_NAMES, ScalarType, TypeMeta, isComplexType
from tensortrace.c10.storage_impl import Storage
from tensortrace.c10.tensor_impl import TensorImpl
from tensortrace.c10.tensor_options import TensorOptions
from tensortrace.trace import schema

if TYPE_CHECKING:
    # the generated methods (aten/generated/tensor_body.py), which aten.codegen sets on Tensor
    # at import: a type checker sees them as Tensor's own
    from tensortrace.aten.generated.tensor_body import TensorMethods as _TensorMethods
else:
    _TensorMethods = object


# The pointer of every undefined Tensor: a null intrusive_ptr is never changed in place (reset_
# and copy() of it do nothing to it), so one is shared, as C++ shares UndefinedTensorImpl.
_NULL_IMPL: intrusive_ptr[TensorImpl] = intrusive_ptr(None)


def null_deref() -> NoReturn:
    raise RuntimeError("intrusive_ptr is null")  # what intrusive_ptr.get() raises


# Note [Direct reads on hot paths]
# Every accessor reads the TensorImpl straight from the pointer's field instead of calling
# intrusive_ptr.get(): the same check (a null pointer raises as get() does) without a Python
# call, which the seed expression would otherwise make ~75 times. `target_ or null_deref()` is that
# check in one expression: a TensorImpl is always truthy (no __len__ or __bool__).
class Tensor(_TensorMethods):
    __slots__ = ("impl_", "__weakref__")

    def __init__(self, impl: intrusive_ptr[TensorImpl] | None = None) -> None:
        self.impl_: intrusive_ptr[TensorImpl] = impl if impl is not None else _NULL_IMPL

    # ---- ownership ---------------------------------------------------------------------------
    def copy(self) -> Tensor:
        """The C++ copy constructor: a second owner of the same TensorImpl (refcount + 1)."""
        return Tensor(self.impl_.copy())

    def reset(self) -> None:
        self.impl_.reset_()

    def defined(self) -> bool:
        return self.impl_.target_ is not None  # hot: asked ~20 times per op

    def unsafeGetTensorImpl(self) -> TensorImpl:
        return self.impl_.target_ or null_deref()

    def is_same(self, other: Tensor) -> bool:
        return self.impl_.target_ is other.impl_.target_

    def use_count(self) -> int:
        return (self.impl_.target_ or null_deref()).refcount_

    # ---- metadata, all read from the TensorImpl ------------------------------------------------
    def sizes(self) -> tuple[int, ...]:
        return (self.impl_.target_ or null_deref()).sizes_

    def strides(self) -> tuple[int, ...]:
        return (self.impl_.target_ or null_deref()).strides_

    def size(self, dim: int) -> int:
        return (self.impl_.target_ or null_deref()).sizes_[dim]

    def stride(self, dim: int) -> int:
        return (self.impl_.target_ or null_deref()).strides_[dim]

    def dim(self) -> int:
        return len((self.impl_.target_ or null_deref()).sizes_)

    def numel(self) -> int:
        return (self.impl_.target_ or null_deref()).numel_

    def storage_offset(self) -> int:
        return (self.impl_.target_ or null_deref()).storage_offset_

    def scalar_type(self) -> ScalarType:
        return (self.impl_.target_ or null_deref()).data_type_.scalar_type

    def dtype(self) -> TypeMeta:
        return (self.impl_.target_ or null_deref()).data_type_

    def element_size(self) -> int:
        return (self.impl_.target_ or null_deref()).data_type_.itemsize

    def device(self) -> Device:
        return (self.impl_.target_ or null_deref()).device_opt_

    def is_cpu(self) -> bool:
        return (self.impl_.target_ or null_deref()).device_opt_.is_cpu()

    def is_meta(self) -> bool:
        """TensorBase::is_meta: on the meta device (sizes, strides, dtype and no data)."""
        return (self.impl_.target_ or null_deref()).device_opt_.type_ is kMeta  # read once

    def key_set(self) -> DispatchKeySet:
        return (self.impl_.target_ or null_deref()).key_set_

    def is_contiguous(self) -> bool:
        return (self.impl_.target_ or null_deref()).is_contiguous_

    def storage(self) -> Storage:
        return (self.impl_.target_ or null_deref()).storage_

    def options(self) -> TensorOptions:
        impl = self.impl_.get()
        return TensorOptions(impl.data_type_.scalar_type, impl.device_opt_, "strided", False)

    def toType(self, t: ScalarType) -> Tensor:
        """TensorBody.h: to(options().dtype(t)), which is aten::to.dtype_layout with the
        tensor's own layout and device (softmax's dtype= converts with it)."""
        impl = self.impl_.get()
        return self.to(  # type: ignore[no-any-return]
            dtype=t, layout="strided", device=impl.device_opt_, non_blocking=False, copy=False
        )

    def data_ptr(self) -> int:
        return (self.impl_.target_ or null_deref()).data()

    def requires_grad(self) -> bool:
        meta = self.impl_.get().autograd_meta_
        return bool(meta is not None and meta.requires_grad_)

    def is_floating_point(self) -> bool:
        from tensortrace.c10.scalar_type import isFloatingType

        return isFloatingType(self.scalar_type())

    def is_complex(self) -> bool:
        return isComplexType((self.impl_.target_ or null_deref()).data_type_.scalar_type)

    def is_conj(self) -> bool:
        return self.impl_.get().is_conj()

    def _set_conj(self, value: bool) -> None:
        self.impl_.get()._set_conj(value)

    def is_neg(self) -> bool:
        return self.impl_.get().is_neg()

    def _set_neg(self, value: bool) -> None:
        self.impl_.get()._set_neg(value)

    def numpy_view(self) -> Any:
        return (self.impl_.target_ or null_deref()).numpy_view()

    def _trace_summary(self) -> dict[str, Any]:
        impl = self.impl_.target_  # hot: the trace summarizes ~90 per seed
        if impl is None:
            return schema.summary(schema.TENSOR, impl=None)
        summary = impl.tensor_summary_  # Note [A tensor's summary, kept] (c10/tensor_impl.py)
        if summary is None:
            # schema.summary(TENSOR, ...) written out: one call per tensor argument, not two
            summary = impl.tensor_summary_ = {
                _SUMMARY: _TENSOR,
                "impl": impl.trace_name,
                "sizes": [*impl.sizes_],  # a list display: no call to list()
                "dtype": _SCALAR_TYPE_NAMES[impl.data_type_.scalar_type],
            }
        return summary

    def __repr__(self) -> str:
        return f"at::{schema.render_summary(self._trace_summary())}"


_SUMMARY, _TENSOR = schema.SUMMARY, schema.TENSOR


def expect_contiguous(t: Tensor) -> Tensor:
    """TensorBase::contiguous() / expect_contiguous: the tensor itself when it is contiguous
    (an inline check in C++, so no aten::contiguous is recorded), else the contiguous copy."""
    return t if t.is_contiguous() else t.contiguous()  # type: ignore[attr-defined]
