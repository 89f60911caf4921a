"""torch.UntypedStorage and torch.TypedStorage: Python handles to a tensor's StorageImpl.

Mirrors `torch/csrc/Storage.cpp` (THPStorage, THPStorage_Wrap with one Python object per
StorageImpl), `torch/csrc/StorageMethods.cpp` (nbytes, data_ptr, element access, tolist) and
the Python side in `torch/storage.py` (TypedStorage, a dtype-aware view of an UntypedStorage).
A storage handle owns a c10::Storage, so it keeps the memory alive like a tensor does
(Note [Views share storage]): `t.untyped_storage()` of every view of `t` is the same object.
"""

from __future__ import annotations

import _thread
import warnings
import weakref
from typing import Any

import numpy as np

from tensortrace.c10.allocator import GetAllocator
from tensortrace.c10.cpu_allocator import GetCPUAllocator
from tensortrace.c10.device import Device, DeviceType
from tensortrace.c10.exception import TORCH_CHECK_INDEX
from tensortrace.c10.intrusive_ptr import make_intrusive
from tensortrace.c10.scalar_type import TypeMeta
from tensortrace.c10.storage_impl import Storage, StorageImpl
from tensortrace.trace import traced

SOURCE = "torch/csrc/Storage.cpp"

# PyObject preservation: the live Python handle of each StorageImpl (held weakly both ways)
_pyobjs: weakref.WeakKeyDictionary[StorageImpl, weakref.ref[UntypedStorage]] = (
    weakref.WeakKeyDictionary()
)


class UntypedStorage:
    """torch.UntypedStorage: the bytes of a StorageImpl, indexed as uint8."""

    __slots__ = ("_cdata", "__weakref__")

    _cdata: Storage

    def __init__(self, size: int = 0, *, device: Any = None) -> None:
        """UntypedStorage(n): n fresh (uninitialized) bytes from the CPU allocator; with
        device="meta", n bytes that hold no data (the MetaAllocator's null pointer)."""
        TORCH_CHECK_INDEX(size >= 0, "Storage size must be non-negative, got ", size)
        meta = device is not None and Device(device).type_ is DeviceType.Meta
        allocator = GetAllocator(DeviceType.Meta) if meta else GetCPUAllocator()
        storage = Storage(make_intrusive(StorageImpl, size, allocator, True))
        self._cdata = storage
        _pyobjs[storage.unsafeGetStorageImpl()] = weakref.ref(self)

    def __del__(self) -> None:
        cdata = getattr(self, "_cdata", None)
        if cdata is not None:
            try:
                cdata.reset()  # this handle's reference to the StorageImpl goes
            except KeyboardInterrupt:
                _thread.interrupt_main()  # __del__ cannot raise: re-deliver Ctrl-C

    # ---- StorageMethods.cpp --------------------------------------------------------------------
    def nbytes(self) -> int:
        return self._cdata.nbytes()

    def size(self) -> int:
        return self._cdata.nbytes()

    def __len__(self) -> int:
        return self._cdata.nbytes()

    def element_size(self) -> int:
        return 1

    def data_ptr(self) -> int:
        return self._cdata.data()

    @property
    def device(self) -> Any:
        return self._cdata.unsafeGetStorageImpl().device()

    def resizable(self) -> bool:
        return self._cdata.unsafeGetStorageImpl().resizable()

    def untyped(self) -> UntypedStorage:
        return self

    def _bytes(self) -> np.ndarray:
        return self._cdata.unsafeGetStorageImpl().bytes_view()

    def _check_index(self, idx: int) -> int:
        n = self.nbytes()
        TORCH_CHECK_INDEX(-n <= idx < n, "index ", idx, " out of range for storage of size ", n)
        return idx + n if idx < 0 else idx

    def __getitem__(self, idx: int) -> int:
        return int(self._bytes()[self._check_index(int(idx))])

    def __setitem__(self, idx: int, value: int) -> None:
        # a byte: the value wraps modulo 256 like a C cast to uint8_t
        self._bytes()[self._check_index(int(idx))] = int(value) & 0xFF

    def __iter__(self) -> Any:
        return iter(self.tolist())

    def tolist(self) -> list[int]:
        return [int(b) for b in self._bytes()[: self.nbytes()]]

    def __repr__(self) -> str:
        info = f"[torch.storage.UntypedStorage(device={self.device}) of size {len(self)}]"
        if self.device.type == "meta":  # _StorageBase.__str__: no data to show
            return "...\n" + info
        body = "".join(f" {b}\n" for b in self.tolist())
        return body + info

    __str__ = __repr__


@traced("python", "THPStorage_Wrap", SOURCE, legacy="THPStorage_New")
def THPStorage_Wrap(storage: Storage) -> UntypedStorage:
    """The Python handle of `storage`'s StorageImpl: the live one, or a new owner."""
    impl = storage.unsafeGetStorageImpl()
    ref = _pyobjs.get(impl)
    existing = ref() if ref is not None else None
    if existing is not None:
        return existing
    obj = UntypedStorage.__new__(UntypedStorage)
    obj._cdata = storage.copy()  # the handle is one more owner (refcount + 1)
    _pyobjs[impl] = weakref.ref(obj)
    return obj


class TypedStorage:
    """torch.TypedStorage (deprecated in PyTorch): an UntypedStorage read as elements of a dtype."""

    __slots__ = ("_untyped_storage", "dtype")

    def __init__(self, wrap_storage: UntypedStorage, dtype: Any) -> None:
        self._untyped_storage = wrap_storage
        self.dtype = dtype

    def untyped(self) -> UntypedStorage:
        return self._untyped_storage

    def element_size(self) -> int:
        return int(self.dtype.itemsize)

    _element_size = element_size  # torch's internal spelling, without the deprecation warning

    # ---- shared memory (torch/storage.py): the UntypedStorage underneath does the work -------
    def share_memory_(self) -> TypedStorage:
        _warn_typed_storage_removal()
        return self._share_memory_()

    def _share_memory_(self) -> TypedStorage:
        self._untyped_storage.share_memory_()  # type: ignore[attr-defined]
        return self

    def is_shared(self) -> bool:
        _warn_typed_storage_removal()
        return self._is_shared()

    def _is_shared(self) -> bool:
        return bool(self._untyped_storage.is_shared())  # type: ignore[attr-defined]

    def _new_shared(self, size: int, *, device: Any = None) -> TypedStorage:
        """A new storage of `size` elements of this dtype in shared memory."""
        untyped = UntypedStorage._new_shared(  # type: ignore[attr-defined]
            size * self._element_size(), device="cpu" if device is None else device
        )
        return TypedStorage(wrap_storage=untyped, dtype=self.dtype)

    def size(self) -> int:
        return self._untyped_storage.nbytes() // self.element_size()

    def __len__(self) -> int:
        return self.size()

    def nbytes(self) -> int:
        return self._untyped_storage.nbytes()

    def data_ptr(self) -> int:
        return self._untyped_storage.data_ptr()

    @property
    def device(self) -> Any:
        return self._untyped_storage.device

    def _array(self) -> np.ndarray:
        np_dtype = TypeMeta.fromScalarType(self.dtype.scalar_type).numpy
        assert np_dtype is not None
        return self._untyped_storage._bytes()[: self.size() * self.element_size()].view(np_dtype)

    def __getitem__(self, idx: int) -> Any:
        n = self.size()
        TORCH_CHECK_INDEX(-n <= idx < n, "index ", idx, " out of range for storage of size ", n)
        return self._array()[idx].item()

    def tolist(self) -> list[Any]:
        return self._array().tolist()

    def __repr__(self) -> str:
        if self.device.type == "meta":  # TypedStorage.__str__: no data to show
            return (
                f"...\n[torch.storage.TypedStorage(dtype={self.dtype}, device={self.device}) "
                f"of size {len(self)}]"
            )
        body = "".join(f" {v}\n" for v in self.tolist())
        return (
            f"{body}[torch.storage.TypedStorage(dtype={self.dtype}, device={self.device}) "
            f"of size {len(self)}]"
        )


def _warn_typed_storage_removal() -> None:
    warnings.warn(
        "TypedStorage is deprecated. It will be removed in the future and "
        "UntypedStorage will be the only storage class. This should only matter to "
        "you if you are using storages directly.  To access UntypedStorage directly, "
        "use tensor.untyped_storage() instead of tensor.storage()",
        UserWarning,
        stacklevel=3,
    )


def storage_of(obj: Any) -> Storage:
    """The c10::Storage behind a Python storage argument (PythonArgs::storage)."""
    if isinstance(obj, TypedStorage):
        obj = obj.untyped()
    return obj._cdata
