"""torch.from_numpy and Tensor.numpy(): one block of memory seen by NumPy and by a tensor.

Mirrors `torch/csrc/utils/tensor_numpy.cpp`.

Note [from_numpy shares memory]
`tensor_from_numpy` does not copy and does not allocate: like `at::from_blob`, it wraps the
ndarray's own memory in a StorageImpl whose DataPtr context keeps the ndarray alive (the
Py_INCREF) and whose deleter only lets go of it (the Py_DECREF). Nothing is reported to the CPU
allocator, so `memory_allocated()` does not move; writes through either side are seen by the
other. `tensor_to_numpy` goes the other way: an ndarray over the tensor's memory whose base
object is a Python tensor (here, the holder that carries it), so the tensor's storage lives as
long as the array.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.empty_tensor import CPU_KS, computeStorageNbytes, make_tensor
from tensortrace.aten.tensor_body import Tensor as AtTensor
from tensortrace.autograd.grad_mode import is_grad_enabled
from tensortrace.c10.allocator import DataPtr
from tensortrace.c10.device import CPU
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_TYPE, TORCH_CHECK_VALUE
from tensortrace.c10.intrusive_ptr import make_intrusive
from tensortrace.c10.scalar_type import ScalarType, TypeMeta
from tensortrace.c10.storage_impl import Storage, StorageImpl
from tensortrace.csrc.python_variable import THPVariable_Wrap
from tensortrace.trace import recorder, traced

SOURCE = "torch/csrc/utils/tensor_numpy.cpp"

_NUMPY_TO_ATEN: dict[np.dtype, ScalarType] = {
    np.dtype(np.float64): ScalarType.Double,
    np.dtype(np.float32): ScalarType.Float,
    np.dtype(np.float16): ScalarType.Half,
    np.dtype(np.complex64): ScalarType.ComplexFloat,
    np.dtype(np.complex128): ScalarType.ComplexDouble,
    np.dtype(np.int64): ScalarType.Long,
    np.dtype(np.int32): ScalarType.Int,
    np.dtype(np.int16): ScalarType.Short,
    np.dtype(np.int8): ScalarType.Char,
    np.dtype(np.uint8): ScalarType.Byte,
    np.dtype(np.bool_): ScalarType.Bool,
}
# dtypes PyTorch has but tensortrace does not model
_NOT_MODELLED = {"uint16", "uint32", "uint64"}


def numpy_dtype_to_aten(dtype: np.dtype) -> ScalarType:
    dtype = np.dtype(dtype)
    st = _NUMPY_TO_ATEN.get(dtype.newbyteorder("=") if dtype.byteorder != "|" else dtype)
    if st is not None:
        return st
    TORCH_CHECK_TYPE(
        dtype.name not in _NOT_MODELLED,
        "tensortrace does not model dtype ",
        dtype.name,
        " (torch would give torch.",
        dtype.name,
        ")",
    )
    TORCH_CHECK_TYPE(
        False,
        "can't convert np.ndarray of type numpy.",
        dtype.type.__name__,
        ". The only supported types are: float64, float32, float16, complex64, "
        "complex128, int64, int32, int16, int8, uint64, uint32, uint16, uint8, "
        "and bool.",
    )
    raise AssertionError  # unreachable


def aten_to_numpy_dtype(st: ScalarType) -> np.dtype:
    for dt, s in _NUMPY_TO_ATEN.items():
        if s == st:
            return dt
    TORCH_CHECK_TYPE(False, "Got unsupported ScalarType ", st)
    raise AssertionError  # unreachable


@traced(
    "refcount",
    "tensor_from_numpy deleter (Py_DECREF)",
    SOURCE,
    legacy="[obj](void* data) { Py_DECREF(obj); }",
)
def _release_ndarray(ctx: Any) -> None:
    """The DataPtr's deleter: drop the reference to the ndarray; the allocator is not told."""
    del ctx


def _byte_window(array: np.ndarray, nbytes: int) -> np.ndarray:
    """A uint8 view of the `nbytes` starting at the first element (its base keeps `array`)."""
    if nbytes == 0:
        return np.empty(0, np.uint8)
    first = array[(slice(0, 1),) * array.ndim].reshape(1).view(np.uint8)
    return np.lib.stride_tricks.as_strided(
        first, shape=(nbytes,), strides=(1,), writeable=array.flags.writeable
    )


@traced("python", "torch::utils::tensor_from_numpy", SOURCE, legacy="tensor_from_numpy")
def tensor_from_numpy(obj: Any, warn_if_not_writeable: bool = True) -> AtTensor:
    TORCH_CHECK_TYPE(
        isinstance(obj, np.ndarray), "expected np.ndarray (got ", type(obj).__name__, ")"
    )
    array: np.ndarray = obj
    if not array.flags.writeable and warn_if_not_writeable:
        warnings.warn(
            "The given NumPy array is not writable, and PyTorch does not support "
            "non-writable tensors. This means writing to this tensor will result in "
            "undefined behavior. You may want to copy the array to protect its data "
            "or make it writable before converting it to a tensor. This type of "
            "warning will be suppressed for the rest of this program.",
            UserWarning,
            stacklevel=3,
        )
    sizes = list(array.shape)
    itemsize = array.itemsize
    strides = []
    for stride in array.strides:
        TORCH_CHECK_VALUE(
            stride % itemsize == 0,
            "given numpy array strides not a multiple of "
            "the element byte size. Copy the numpy array to reallocate the memory.",
        )
        strides.append(stride // itemsize)
    for s in strides:
        TORCH_CHECK_VALUE(
            s >= 0,
            "At least one stride in the given numpy array is negative, and "
            "tensors with negative strides are not currently supported. (You can "
            "probably work around this by making a copy of your array  with "
            "array.copy().) ",
        )
    TORCH_CHECK_VALUE(
        array.dtype.byteorder in ("=", "|") or array.dtype.isnative,
        "given numpy array has byte order different from the native byte order. "
        "Conversion between byte orders is currently not supported.",
    )
    scalar_type = numpy_dtype_to_aten(array.dtype)
    return at.lift_fresh(from_blob(array, sizes, strides, scalar_type))


@traced("native", "at::from_blob", "aten/src/ATen/templates/Functions.h", legacy="from_blob")
def from_blob(
    array: np.ndarray, sizes: list[int], strides: list[int], scalar_type: ScalarType
) -> AtTensor:
    """A tensor over memory it does not own: Note [from_numpy shares memory]."""
    meta = TypeMeta.fromScalarType(scalar_type)
    nbytes = computeStorageNbytes(sizes, strides, meta.itemsize)
    window = _byte_window(array, nbytes)
    data_ptr = DataPtr(array.ctypes.data, window, _release_ndarray, CPU)
    storage = make_intrusive(StorageImpl, nbytes, None, False, data_ptr)
    if recorder.current is not None:  # the ndarray writes it from outside the runtime: Note
        recorder.current.escaped.add(storage.get())  # [What a step may have changed]
    tensor = make_tensor(Storage(storage), CPU_KS, meta)
    tensor.unsafeGetTensorImpl().set_sizes_and_strides(tuple(sizes), tuple(strides))
    return tensor


class _TensorArrayBase:
    """PyArray_SetBaseObject(array, py_tensor): the ndarray's base keeps the tensor alive."""

    __slots__ = ("__array_interface__", "tensor")

    def __init__(self, interface: dict[str, Any], tensor: Any) -> None:
        self.__array_interface__ = interface
        self.tensor = tensor


@traced("python", "torch::utils::tensor_to_numpy", SOURCE, legacy="tensor_to_numpy")
def tensor_to_numpy(tensor: AtTensor, force: bool = False) -> np.ndarray:
    if not force:
        TORCH_CHECK_TYPE(
            tensor.is_cpu(),
            "can't convert ",
            tensor.device(),
            " device type "
            "tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory "
            "first.",
        )
        TORCH_CHECK(  # under no_grad (a custom op's kernel, Function.forward) it may
            not (is_grad_enabled() and tensor.requires_grad()),
            "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.",
        )
        TORCH_CHECK(
            not tensor.unsafeGetTensorImpl().is_conj(),
            "Can't call numpy() on Tensor "
            "that has conjugate bit set. Use tensor.resolve_conj().numpy() instead.",
        )
        TORCH_CHECK(
            not tensor.unsafeGetTensorImpl().is_neg(),
            "Can't call numpy() on Tensor "
            "that has negative bit set. Use tensor.resolve_neg().numpy() instead.",
        )
    # tensor.detach().cpu().resolve_conj().resolve_neg()
    prepared = tensor.detach().to(device=CPU).resolve_conj().resolve_neg()
    dtype = aten_to_numpy_dtype(prepared.scalar_type())
    itemsize = prepared.element_size()
    shape = tuple(prepared.sizes())
    if prepared.numel() == 0:
        return np.empty(shape, dtype)
    interface = {
        "version": 3,
        "shape": shape,
        "typestr": dtype.str,
        "data": (prepared.data_ptr(), False),
        "strides": tuple(s * itemsize for s in prepared.strides()),
    }
    py_tensor = THPVariable_Wrap(prepared)
    # the tensor's storage may not be resized while an array views it
    prepared.storage().unsafeGetStorageImpl().resizable_ = False
    if recorder.current is not None:  # the array writes it from outside the runtime: Note [What
        recorder.current.escaped.add(prepared.storage().unsafeGetStorageImpl())  # a step may...]
    return np.asarray(_TensorArrayBase(interface, py_tensor))
