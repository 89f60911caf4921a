"""TensorImpl: sizes, strides, offset and dtype over a shared Storage.

Mirrors `c10/core/TensorImpl.h` / `TensorImpl.cpp`. A TensorImpl is refcounted
(intrusive_ptr_target); the Python handle and every at::Tensor hold intrusive_ptrs to it. Views
are TensorImpls that share their base's StorageImpl (Note [Views share storage]).
"""

from __future__ import annotations

import weakref
from enum import Enum
from typing import Any

import numpy as np

from tensortrace.c10.autograd_state import INFERENCE_VERSION, autograd_state
from tensortrace.c10.device import Device
from tensortrace.c10.dispatch_key import (
    DispatchKey,
    DispatchKeySet,
    autograd_related_keys,
    getAutogradRelatedKeySetFromBackend,
)
from tensortrace.c10.intrusive_ptr import intrusive_ptr_target, object_ids
from tensortrace.c10.scalar_type import _SCALAR_TYPE_NAMES, ScalarType, TypeMeta
from tensortrace.c10.storage_impl import Storage
from tensortrace.trace import recorder, schema, traced
from tensortrace.trace.schema import TENSOR_META, TENSOR_STORAGE


class VariableVersion:
    """The version counter shared by a tensor and its views; in-place ops bump it.

    Autograd compares versions to detect that a saved tensor was modified in place.
    """

    # No __init__ and no __slots__: every TensorImpl makes one, and `VariableVersion()` then
    # runs no Python code; the first bump() gives the instance its own count.
    version = 0

    def bump(self) -> None:
        self.version += 1

    def current_version(self) -> int:
        return self.version


class ImplType(Enum):
    VIEW = "VIEW"


_VIEW = ImplType.VIEW

# Note [NumPy's names read once]
# CPython 3.11 does not specialize an attribute read on the numpy module (`np.ndarray` looks
# the name up the generic way on every read, ~200 instructions), while a module global is one
# specialized read. So the NumPy callables a per-op path runs are read into globals once.
_ndarray = np.ndarray
# the math bits' keys as masks, read once (Note [Enum members read once])
_CONJUGATE_BIT = 1 << DispatchKey.Conjugate
_NEGATIVE_BIT = 1 << DispatchKey.Negative


# a handful of distinct key sets; a DispatchKeySet is immutable, so one is shared per mask (a
# dict keyed by the int mask: functools.cache would hash the set in Python)
_WITH_AUTOGRAD_KEYS: dict[int, DispatchKeySet] = {}


def _with_autograd_keys(key_set: DispatchKeySet) -> DispatchKeySet:
    """A dense tensor also carries its autograd keys: every op visits autograd first."""
    ks = _WITH_AUTOGRAD_KEYS.get(key_set.repr_)
    if ks is None:
        backend = key_set.highestPriorityTypeId()
        ks = key_set | getAutogradRelatedKeySetFromBackend(backend)
        _WITH_AUTOGRAD_KEYS[key_set.repr_] = ks
    return ks


class TensorImpl(intrusive_ptr_target):
    __slots__ = (
        "storage_",
        "key_set_",
        "data_type_",
        "device_opt_",
        "sizes_",
        "strides_",
        "storage_offset_",
        "numel_",
        "is_contiguous_",
        "version_counter_",
        "autograd_meta_",
        "pyobj_",
        "is_wrapped_number_",
        "is_view_",
        "tensor_summary_",
    )
    values_tracked_ = True  # Note [Only TensorImpls tracked] (c10/intrusive_ptr.py)

    @traced(
        "native",
        "c10::TensorImpl::TensorImpl",
        "c10/core/TensorImpl.cpp",
        legacy="detail::make_tensor<TensorImpl>",
    )
    def __init__(
        self,
        storage: Storage,
        key_set: DispatchKeySet,
        data_type: TypeMeta,
        impl_type: ImplType | None = None,
    ) -> None:
        """A 1-dim, 0-size tensor backed by `storage`; its sizes are set afterwards."""
        # intrusive_ptr_target's constructor, written out: one call fewer per object, and no
        # super() (a method with a __class__ cell is not traced by code swap, Note [Traced
        # functions that cost nothing while idle]); make_intrusive sets the counts to 1
        self.refcount_ = self.weakcount_ = 0
        self._id = object_id = next(object_ids)
        self.trace_name = f"{type(self).__name__}#{object_id}"
        self.storage_ = storage
        self.data_type_ = data_type
        # storage.unsafeGetStorageImpl().device(), read directly: every TensorImpl gets one
        storage_impl = storage.storage_impl_.target_
        assert storage_impl is not None, "a TensorImpl is made on a defined storage"
        self.device_opt_: Device = storage_impl.data_ptr_.device
        if autograd_state.inference_mode:
            # an inference tensor: no autograd keys, no version counter (TensorImpl.cpp)
            self.key_set_ = key_set - autograd_related_keys
            self.version_counter_: Any = INFERENCE_VERSION
        else:
            self.key_set_ = _WITH_AUTOGRAD_KEYS.get(key_set.repr_) or _with_autograd_keys(key_set)
            self.version_counter_ = VariableVersion()
        self.sizes_: tuple[int, ...] = (0,)
        self.strides_: tuple[int, ...] = (1,)
        self.storage_offset_ = 0
        self.numel_ = 0
        self.is_contiguous_ = True
        self.autograd_meta_: Any = None
        self.pyobj_: weakref.ref[Any] | None = None
        self.is_wrapped_number_ = False
        self.is_view_ = impl_type is _VIEW  # ImplType.VIEW, read once
        self.tensor_summary_: dict[str, Any] | None = None  # Note [A tensor's summary, kept]

    # ---- metadata ----------------------------------------------------------------------------
    def sizes(self) -> tuple[int, ...]:
        return self.sizes_

    def strides(self) -> tuple[int, ...]:
        return self.strides_

    def size(self, d: int) -> int:
        return self.sizes_[d]

    def stride(self, d: int) -> int:
        return self.strides_[d]

    def dim(self) -> int:
        return len(self.sizes_)

    def numel(self) -> int:
        return self.numel_

    def storage_offset(self) -> int:
        return self.storage_offset_

    def dtype(self) -> TypeMeta:
        return self.data_type_

    def scalar_type(self) -> ScalarType:
        return self.data_type_.scalar_type

    def itemsize(self) -> int:
        return self.data_type_.itemsize

    def device(self) -> Device:
        return self.device_opt_

    def key_set(self) -> DispatchKeySet:
        return self.key_set_

    def is_contiguous(self) -> bool:
        return self.is_contiguous_

    def is_conj(self) -> bool:
        """The conjugate bit, kept as the Conjugate key in the key set (as c10 does)."""
        return bool(self.key_set_.repr_ & _CONJUGATE_BIT)  # key_set_.has(Conjugate)

    def _set_conj(self, value: bool) -> None:
        self.key_set_ = (
            self.key_set_.add(DispatchKey.Conjugate)
            if value
            else self.key_set_.remove(DispatchKey.Conjugate)
        )

    def is_neg(self) -> bool:
        return bool(self.key_set_.repr_ & _NEGATIVE_BIT)  # key_set_.has(Negative)

    def _set_neg(self, value: bool) -> None:
        self.key_set_ = (
            self.key_set_.add(DispatchKey.Negative)
            if value
            else self.key_set_.remove(DispatchKey.Negative)
        )

    def storage(self) -> Storage:
        return self.storage_

    def has_storage(self) -> bool:
        return self.storage_.defined()

    def version_counter(self) -> VariableVersion:
        return self.version_counter_

    def bump_version(self) -> None:
        self.version_counter_.bump()

    def set_version_counter(self, version_counter: VariableVersion) -> None:
        self.version_counter_ = version_counter

    def data(self) -> int:
        """The address of the first element: storage data + itemsize * storage_offset."""
        if self.numel_ == 0:
            return 0
        return self.storage_.data() + self.data_type_.itemsize * self.storage_offset_

    # ---- setting sizes -----------------------------------------------------------------------
    @traced(
        "native",
        "c10::TensorImpl::set_sizes_contiguous",
        "c10/core/TensorImpl.h",
        legacy="TensorImpl::set_sizes_contiguous",
    )
    def set_sizes_contiguous(self, new_size: tuple[int, ...]) -> None:
        sizes = self.sizes_ = tuple(new_size)
        # contiguous_strides(sizes) and refresh_numel(), looked up: Note [Contiguous layouts by
        # sizes]
        layout = _CONTIGUOUS_LAYOUTS.get(sizes) or contiguous_layout(sizes)
        self.strides_, self.numel_ = layout
        self.is_contiguous_ = True
        self.tensor_summary_ = None  # Note [A tensor's summary, kept]
        if recorder.current is not None:  # _record_meta's own test, made before the call
            self._record_meta()

    def set_sizes_and_strides(
        self,
        new_size: tuple[int, ...],
        new_stride: tuple[int, ...],
        storage_offset: int | None = None,
    ) -> None:
        sizes = self.sizes_ = tuple(new_size)
        strides = self.strides_ = tuple(new_stride)
        self.tensor_summary_ = None  # Note [A tensor's summary, kept]
        if storage_offset is not None:
            self.storage_offset_ = storage_offset
        # refresh_numel() and refresh_contiguous(), from the contiguous layout of these sizes
        # (Note [Contiguous layouts by sizes]): strides equal to it are contiguous, and only
        # others need compute_contiguous's walk (size-1 dims may have any stride)
        row_major, numel = _CONTIGUOUS_LAYOUTS.get(sizes) or contiguous_layout(sizes)
        self.numel_ = numel
        # at most one element (every size 1, or a 0): contiguous whatever the strides, as
        # compute_contiguous finds (a full reduction's stride-0 view asks this every time)
        self.is_contiguous_ = (
            numel <= 1 or strides == row_major or compute_contiguous(sizes, strides, numel)
        )
        if recorder.current is not None:  # _record_meta's own test, made before the call
            self._record_meta()

    def set_storage_offset(self, storage_offset: int) -> None:
        self.storage_offset_ = storage_offset
        self._record_meta()

    def set_storage_keep_dtype(self, storage: Storage) -> None:
        old = self.storage_
        self.storage_ = storage
        if recorder.current is not None:
            recorder.current.changed.add(self)  # Note [What a step may have changed]
            recorder.current.instant(
                TENSOR_STORAGE,
                "native",
                self.trace_name,
                {"object": self.trace_name, "storage": storage.unsafeGetStorageImpl().trace_name},
            )
        old.reset()

    def refresh_numel(self) -> None:
        n = 1
        for s in self.sizes_:
            n *= s
        self.numel_ = n

    def refresh_contiguous(self) -> None:
        self.is_contiguous_ = compute_contiguous(self.sizes_, self.strides_, self.numel_)

    # ---- lifetime ----------------------------------------------------------------------------
    @traced(
        "refcount",
        "c10::TensorImpl::release_resources",
        "c10/core/TensorImpl.cpp",
        legacy="TensorImpl::release_resources",
    )
    def release_resources(self) -> None:
        """Refcount hit zero: drop autograd metadata and this TensorImpl's storage reference."""
        self.autograd_meta_ = None
        # self.storage_.reset(): its pointer's reset_ called directly (every free runs this),
        # not copied here, so the refcount rule (decref, release at zero) stays in intrusive_ptr
        self.storage_.storage_impl_.reset_()

    # ---- NumPy view of the data (what a kernel reads and writes) -------------------------------
    def numpy_view(self) -> np.ndarray:
        """A NumPy array over this tensor's elements in its storage: no copy, same memory."""
        dtype = self.data_type_.numpy
        if dtype is None:
            raise RuntimeError(f"{self.scalar_type()} needs the ml_dtypes package")
        if self.numel_ == 0:
            return np.empty(self.sizes_, dtype)
        itemsize = self.data_type_.itemsize
        # the StorageImpl read directly (Note [Direct reads on hot paths]; a null pointer raises
        # as unsafeGetStorageImpl() does)
        storage_impl = self.storage_.storage_impl_.target_ or self.storage_.unsafeGetStorageImpl()
        # np.ndarray(shape, dtype, buffer, offset, strides), passed by position: NumPy parses
        # keywords with the slow generic parser (timeit: 2.7 us a view by keyword, 1.2 us by
        # position)
        return _ndarray(  # Note [NumPy's names read once]
            self.sizes_,
            dtype,
            storage_impl.bytes_view(),
            self.storage_offset_ * itemsize,
            tuple(map(itemsize.__mul__, self.strides_)),  # no genexpr
        )

    def _trace_info(self) -> dict[str, object]:
        # what make_intrusive's instant records of every TensorImpl made while recording: the
        # fields read directly, the dtype's name from the table ScalarType.__str__ reads, list
        # displays (no call to list()); a null storage raises as unsafeGetStorageImpl() does
        storage = self.storage_
        return {
            "storage": (storage.storage_impl_.target_ or storage.unsafeGetStorageImpl()).trace_name,
            "dtype": _SCALAR_TYPE_NAMES[self.data_type_.scalar_type],
            "itemsize": self.data_type_.itemsize,
            "sizes": [*self.sizes_],
            "strides": [*self.strides_],
            "offset": self.storage_offset_,
            "is_view": self.is_view_,
        }

    def _record_meta(self) -> None:
        """Tell the trace this TensorImpl's sizes, strides or offset changed."""
        rec = recorder.current
        if rec is not None:
            rec.changed.add(self)  # Note [What a step may have changed]
            name = self.trace_name
            rec.instant(
                TENSOR_META,
                "native",
                name,
                {
                    "object": name,
                    "sizes": [*self.sizes_],  # list displays: no call to list()
                    "strides": [*self.strides_],
                    "offset": self.storage_offset_,
                },
            )

    # Note [A tensor's summary, kept]
    # ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    # A traced frame describes each at::Tensor argument and result by its TensorImpl's name,
    # sizes and dtype (Tensor._trace_summary), ~90 times per seed expression, and most of those
    # describe a tensor that has not changed since its last summary. So the summary dict is
    # made once and kept in `tensor_summary_` until the sizes or the dtype change: every place
    # that sets them drops it (set_sizes_contiguous, set_sizes_and_strides, `.data =`'s dtype,
    # BatchedTensorImpl.refreshTensorMetadata), so an event after a resize_, set_ or
    # as_strided_ shows the new sizes, as those setters refresh numel_ and is_contiguous_ (a
    # summary checked against the sizes and TypeMeta it was made from instead cost ~1% more per
    # traced seed; tests/trace/test_arguments.py pins each setter). It holds strings, ints and a
    # list only (no object is kept alive by it), and events share it: an event's args are never
    # edited (Event).
    def _trace_summary(self) -> dict[str, Any] | str:
        # schema.summary(TENSOR_IMPL, ...) written out, the dtype's name read from the table
        # ScalarType.__str__ reads: one call per TensorImpl, not three
        name = getattr(self, "trace_name", None)
        if name is None:  # the `self` of __init__: named by its type, as summarize names it,
            return type(self).__name__  # without raising (Note [A summary by one lookup])
        return {
            schema.SUMMARY: schema.TENSOR_IMPL,
            "object": name,
            "sizes": [*self.sizes_],  # list displays: no call to list()
            "strides": [*self.strides_],
            "offset": self.storage_offset_,
            "dtype": _SCALAR_TYPE_NAMES[self.data_type_.scalar_type],
        }


# Note [Contiguous layouts by sizes]
# Every new tensor gets the row-major strides and element count of its sizes
# (set_sizes_contiguous, as empty_tensor_restride does), and a program makes tensors of a few
# shapes over and over: the answer is kept per sizes tuple, which is all it depends on. Sizes are
# Python ints (a NumPy integer equal to one hashes alike, so the strides are made ints whatever
# the first caller passed: the answer must not depend on who asked first). The table is emptied
# when it grows past _CONTIGUOUS_LAYOUTS_MAX shapes, so a program of ever new shapes does not grow
# it without bound.
_CONTIGUOUS_LAYOUTS: dict[tuple[int, ...], tuple[tuple[int, ...], int]] = {}
_CONTIGUOUS_LAYOUTS_MAX = 4096


def contiguous_layout(sizes: tuple[int, ...]) -> tuple[tuple[int, ...], int]:
    """(contiguous strides, numel) of `sizes`, computed in one loop and remembered."""
    ndim = len(sizes)
    strides = [1] * ndim
    stride = numel = 1
    for d in range(ndim - 1, -1, -1):
        size = int(sizes[d])
        strides[d] = stride
        stride *= size if size > 1 else 1  # max(size, 1)
        numel *= size
    layout = (tuple(strides), numel)
    if len(_CONTIGUOUS_LAYOUTS) >= _CONTIGUOUS_LAYOUTS_MAX:
        _CONTIGUOUS_LAYOUTS.clear()
    _CONTIGUOUS_LAYOUTS[sizes] = layout
    return layout


def contiguous_strides(sizes: tuple[int, ...]) -> tuple[int, ...]:
    strides = [1] * len(sizes)
    acc = 1
    for d in range(len(sizes) - 1, -1, -1):
        strides[d] = acc
        acc *= max(sizes[d], 1)
    return tuple(strides)


def compute_contiguous(sizes: tuple[int, ...], strides: tuple[int, ...], numel: int) -> bool:
    """TensorImpl::compute_contiguous: strides are the row-major ones, size-1 dims excepted."""
    if numel == 0:
        return True
    expected = 1
    for size, stride in zip(reversed(sizes), reversed(strides)):
        if size != 1:
            if stride != expected:
                return False
            expected *= size
    return True


CPU_KEYSET = DispatchKeySet(DispatchKey.CPU)
