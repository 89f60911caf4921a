"""index_kernel, index_put_kernel, masked_fill_kernel: the loops of advanced indexing.

Mirrors `aten/src/ATen/native/cpu/IndexKernel.cpp` (cpu_index_kernel). Each element of the
iterator has a base address in the restrided source (Note [How advanced indexing iterates]); the
kernel adds `index_k * stride_k` for every index operand, with PyTorch's bounds check, and reads
(index) or writes (index_put) the element there. Here the addresses of all elements are computed
at once as NumPy arrays of byte offsets into the storage, so no element is visited from Python.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tensortrace.aten.native.cpu.loops import cpu_kernel_vec
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.native.indexing import index_put_stub, index_stub
from tensortrace.aten.native.tensor_advanced_indexing import masked_fill_stub
from tensortrace.aten.opmath_type import scalar_to
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_INDEX
from tensortrace.c10.scalar_type import ScalarType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/cpu/IndexKernel.cpp"


def _byte_offsets(arr: np.ndarray, storage: np.ndarray) -> np.ndarray:
    """The byte offset, from the start of `storage`, of every element of the view `arr`."""
    base = arr.__array_interface__["data"][0] - storage.__array_interface__["data"][0]
    offsets = np.full(arr.shape, base, dtype=np.int64)
    for d, (n, stride) in enumerate(zip(arr.shape, arr.strides)):
        shape = [1] * arr.ndim
        shape[d] = n
        offsets += (np.arange(n, dtype=np.int64) * stride).reshape(shape)
    return offsets


def _check_indices(it: TensorIteratorBase, index_size: Sequence[int]) -> None:
    """PyTorch's bounds check of every index, on the calling thread, before any element moves."""
    for i, size in enumerate(index_size):
        index = it.operand_array(2 + i)
        bad = (index < -size) | (index >= size)
        if bad.any():
            value = int(index[bad].flat[0])
            TORCH_CHECK_INDEX(
                False, "index ", value, " is out of bounds for dimension ", i, " with size ", size
            )


def _element_offsets(
    src: np.ndarray,
    indices: Sequence[np.ndarray],
    storage: np.ndarray,
    index_size: Sequence[int],
    index_stride: Sequence[int],
) -> np.ndarray:
    """Each element's offset, in elements of src's dtype, into the storage: base + index terms."""
    offsets = _byte_offsets(src, storage)
    for index, size, stride in zip(indices, index_size, index_stride):
        index = index.astype(np.int64)
        offsets += np.where(index < 0, index + size, index) * stride
    return offsets // src.dtype.itemsize


def _typed(storage: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The storage's bytes read as `dtype` (a trailing partial element is left out)."""
    return storage[: storage.size - storage.size % dtype.itemsize].view(dtype)


def _storage_bytes(it: TensorIteratorBase, operand: int) -> np.ndarray:
    return it.tensor(operand).unsafeGetTensorImpl().storage_.unsafeGetStorageImpl().bytes_view()


@traced("kernel", "at::native::index_kernel", SOURCE)
def index_kernel(
    it: TensorIteratorBase, index_size: Sequence[int], index_stride: Sequence[int]
) -> None:
    if it.numel() == 0:
        return
    _check_indices(it, index_size)
    storage = _storage_bytes(it, 1)
    flat = _typed(storage, it.operand_array(1).dtype)

    def loop(out: np.ndarray, src: np.ndarray, *indices: np.ndarray) -> None:
        # gather: *(scalar_t*)dst = *(scalar_t*)(src + offset), for one block of elements
        out[...] = flat[_element_offsets(src, indices, storage, index_size, index_stride)]

    cpu_kernel_vec(it, loop)


@traced("kernel", "at::native::index_put_kernel", SOURCE)
def index_put_kernel(
    it: TensorIteratorBase, index_size: Sequence[int], index_stride: Sequence[int], accumulate: bool
) -> None:
    if it.numel() == 0:
        return
    # operand 0 is the restrided self (the destination), operand 1 the values
    _check_indices(it, index_size)
    storage = _storage_bytes(it, 0)
    dst = it.operand_array(0)
    indices = [it.operand_array(2 + i) for i in range(len(index_size))]
    flat = _typed(storage, dst.dtype)
    elements = _element_offsets(dst, indices, storage, index_size, index_stride)
    values = np.broadcast_to(it.operand_array(1), elements.shape)
    if accumulate:
        np.add.at(flat, elements.ravel(), values.ravel())  # repeated indices all add up
    else:
        flat[elements.ravel()] = values.ravel()  # repeated indices: one of the writes wins


@traced("kernel", "at::native::masked_fill_kernel", SOURCE)
def masked_fill_kernel(it: TensorIteratorBase, value: Any) -> None:
    # value.to<scalar_t>(): a checked conversion (1000 into int8 raises), then one store
    scalar_val = scalar_to(value, it.dtype(), opmath=False)
    mask_dtype = it.input_dtype(0)
    TORCH_CHECK(
        mask_dtype == ScalarType.Bool,
        "masked_fill only supports boolean masks, but got mask with dtype ",
        mask_dtype,
    )

    def loop(out: np.ndarray, mask: np.ndarray) -> None:
        out[mask] = scalar_val

    cpu_kernel_vec(it, loop)


REGISTER_DISPATCH(index_stub, index_kernel)
REGISTER_DISPATCH(index_put_stub, index_put_kernel)
REGISTER_DISPATCH(masked_fill_stub, masked_fill_kernel)
