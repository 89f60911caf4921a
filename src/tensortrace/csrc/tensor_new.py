"""torch.tensor and torch.as_tensor: a tensor from Python data (nested sequences, scalars,
tensors, ndarrays), with PyTorch's dtype inference.

Mirrors `torch/csrc/utils/tensor_new.cpp`: `infer_scalar_type` (int -> int64, float -> the
default dtype, bool -> bool, a NumPy scalar or array -> its dtype, a tensor -> its dtype, a
sequence -> the promotion of its items, an empty one -> the default dtype), `compute_sizes`
(follow the first item down while it is a sequence), `recursive_store` (check each sequence's
length, `expected sequence of length 3 at dim 1 (got 2)`, and store each scalar converted as
`store_scalar` does), and `internal_new_from_data`, which makes the tensor with `at::empty`,
stores into it, moves it with `to`, and `lift_fresh`es it; `tensor_ctor` then `detach_`es it
and sets requires_grad.
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.tensor_body import Tensor as AtTensor
from tensortrace.autograd.variable import make_variable
from tensortrace.c10.default_dtype import get_default_complex_dtype, get_default_dtype
from tensortrace.c10.device import CPU, Device
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_TYPE, TORCH_CHECK_VALUE
from tensortrace.c10.local_dispatch_key_set import AutoDispatchBelowADInplaceOrView
from tensortrace.c10.scalar import checked_convert
from tensortrace.c10.scalar_type import (
    ScalarType,
    elementSize,
    isComplexType,
    isFloatingType,
    numpy_dtype,
    promoteTypes,
)
from tensortrace.csrc.python_variable import TensorBase
from tensortrace.csrc.tensor_numpy import (
    aten_to_numpy_dtype,
    from_blob,
    numpy_dtype_to_aten,
    tensor_from_numpy,
)
from tensortrace.trace import traced

SOURCE = "torch/csrc/utils/tensor_new.cpp"

# unpackIntegral's type names (store_scalar), which its overflow message uses
_INTEGRAL_NAMES = {
    ScalarType.Byte: "uint8",
    ScalarType.Char: "int8",
    ScalarType.Short: "int16",
    ScalarType.Int: "int32",
    ScalarType.Long: "int64",
}


def _is_sequence(obj: Any) -> bool:
    """PySequence_Check: lists, tuples, ranges, ndarrays... not dicts, not tensors."""
    if isinstance(obj, (TensorBase, dict, str, bytes)):
        return isinstance(obj, (str, bytes))
    return isinstance(obj, (Sequence, np.ndarray))


def infer_scalar_type(obj: Any) -> ScalarType:
    if isinstance(obj, np.ndarray):
        return numpy_dtype_to_aten(obj.dtype)
    if isinstance(obj, np.generic):
        return numpy_dtype_to_aten(np.asarray(obj).dtype)
    if isinstance(obj, float):
        return get_default_dtype()
    if isinstance(obj, int) and not isinstance(obj, bool):
        return ScalarType.Long
    if isinstance(obj, complex):
        return get_default_complex_dtype()
    if isinstance(obj, bool):
        return ScalarType.Bool
    if isinstance(obj, TensorBase):
        return obj.cdata.scalar_type()
    TORCH_CHECK_TYPE(
        not isinstance(obj, str), "new(): invalid data type '", type(obj).__name__, "'"
    )
    if _is_sequence(obj):
        if len(obj) == 0:
            return get_default_dtype()  # NumPy's rule, with the default dtype for double
        scalar_type: ScalarType | None = None
        for item in obj:
            TORCH_CHECK_TYPE(item is not obj, "new(): self-referential lists are incompatible")
            item_type = infer_scalar_type(item)
            scalar_type = item_type if scalar_type is None else promoteTypes(scalar_type, item_type)
        assert scalar_type is not None
        return scalar_type
    TORCH_CHECK(False, "Could not infer dtype of ", type(obj).__name__)
    raise AssertionError  # unreachable


def compute_sizes(seq: Any) -> list[int]:
    sizes: list[int] = []
    while _is_sequence(seq) and not isinstance(seq, (str, bytes)):
        length = len(seq)
        sizes.append(length)
        if length == 0:
            break
        seq = seq[0]
    return sizes


def _unpack_long(obj: Any) -> int:
    """THPUtils_unpackLong: PyLong_AsLongLongAndOverflow (it calls __index__)."""
    value = operator.index(obj)
    if not -(2**63) <= value < 2**63:
        raise ValueError("Overflow when unpacking long long")
    return value


def _unpack_double(obj: Any) -> float:
    """THPUtils_unpackDouble: PyFloat_AsDouble (it calls __float__, then __index__)."""
    if isinstance(obj, float):
        return obj
    if hasattr(type(obj), "__float__"):
        return float(obj)
    if hasattr(type(obj), "__index__"):
        return float(operator.index(obj))
    raise TypeError(f"must be real number, not {type(obj).__name__}")


def _unpack_complex(obj: Any) -> complex:
    """THPUtils_unpackComplexDouble: PyComplex_AsCComplex (__complex__, __float__, __index__)."""
    if isinstance(obj, complex):
        return obj
    if hasattr(type(obj), "__complex__"):
        return complex(obj)
    return complex(_unpack_double(obj))


def store_scalar(obj: Any, scalar_type: ScalarType) -> Any:
    """The value one Python object stores as an element of `scalar_type`."""
    if scalar_type in _INTEGRAL_NAMES:
        name = _INTEGRAL_NAMES[scalar_type]
        if isinstance(obj, float):
            return checked_convert(obj, scalar_type, name)
        return checked_convert(_unpack_long(obj), scalar_type, name)
    if scalar_type == ScalarType.Bool:
        # THPUtils_unpackNumberAsBool: a NumPy bool is taken as it is (it has no __index__);
        # as an integer element (tensor([np.True_, 2])) it is refused, as in torch
        if isinstance(obj, (float, np.bool_)):
            return bool(obj)
        return bool(_unpack_long(obj))  # overflow is not checked: any big value is true
    return _unpack_double(obj)  # float types: a plain cast (1e39 -> inf in float32)


def _flatten(obj: Any, sizes: list[int], dim: int, out: list[Any]) -> None:
    if dim == len(sizes):
        out.append(obj)
        return
    n = sizes[dim]
    if isinstance(obj, TensorBase) or not _is_sequence(obj):
        raise TypeError("not a sequence")
    seq = list(obj)
    if len(seq) != n:
        raise ValueError(f"expected sequence of length {n} at dim {dim} (got {len(seq)})")
    for item in seq:
        _flatten(item, sizes, dim + 1, out)


@traced("python", "torch::utils::(anonymous)::recursive_store", SOURCE, legacy="recursive_store")
def recursive_store(tensor: AtTensor, data: Any, sizes: list[int]) -> None:
    """Walk the nested data in order, checking lengths, and store every scalar."""
    scalar_type = tensor.scalar_type()
    flat: list[Any] = []
    _flatten(data, sizes, 0, flat)
    dtype = numpy_dtype(scalar_type)
    if isComplexType(scalar_type):
        TORCH_CHECK(
            scalar_type != ScalarType.ComplexHalf,
            "tensortrace does not store complex32 (torch.chalf) elements",
        )
        values_c = np.array([_unpack_complex(v) for v in flat], dtype=np.complex128)
        with np.errstate(over="ignore"):
            converted = values_c.astype(dtype)
    elif isFloatingType(scalar_type):
        values = np.array([_unpack_double(v) for v in flat], dtype=np.float64)
        with np.errstate(over="ignore"):
            converted = (
                values.astype(np.float32).astype(dtype)
                if scalar_type == (ScalarType.BFloat16)
                else values.astype(dtype)
            )
    else:
        converted = np.array([store_scalar(v, scalar_type) for v in flat]).astype(dtype)
    tensor.numpy_view()[...] = converted.reshape(sizes)


@traced("python", "torch::utils::internal_new_from_data", SOURCE, legacy="internal_new_from_data")
def internal_new_from_data(
    data: Any,
    scalar_type: ScalarType,
    device: Device | None,
    copy_variables: bool,
    copy_numpy: bool,
    type_inference: bool,
    pin_memory: bool = False,
) -> AtTensor:
    TORCH_CHECK_TYPE(
        not isinstance(data, str), "new(): invalid data type '", type(data).__name__, "'"
    )
    if isinstance(data, TensorBase):
        TORCH_CHECK(not pin_memory, "Can't pin tensor constructed from a variable")
        var = data.cdata
        if copy_variables:
            var = var.detach()
        inferred = var.scalar_type() if type_inference else scalar_type
        return at._ops["to.device"].call(
            var, device or var.device(), inferred, False, copy_variables, None
        )
    if isinstance(data, np.ndarray):
        TORCH_CHECK(not pin_memory, "Can't pin tensor constructed from numpy")
        tensor = tensor_from_numpy(data, warn_if_not_writeable=not copy_numpy)
        inferred = tensor.scalar_type() if type_inference else scalar_type
        return at._ops["to.device"].call(tensor, device or CPU, inferred, False, copy_numpy, None)
    sizes = compute_sizes(data)
    inferred = infer_scalar_type(data) if type_inference else scalar_type
    with AutoDispatchBelowADInplaceOrView():
        tensor = at.empty(sizes, dtype=inferred, pin_memory=pin_memory)
        if tensor.numel() != 0:
            recursive_store(tensor, data, sizes)
        tensor = at._ops["to.device"].call(tensor, device or CPU, inferred, False, False, None)
    with AutoDispatchBelowADInplaceOrView():
        tensor = at.lift_fresh(tensor)
    return tensor


def tensor_ctor(
    data: Any,
    dtype: ScalarType | None,
    device: Device | None,
    pin_memory: bool,
    requires_grad: bool,
) -> AtTensor:
    if isinstance(data, TensorBase):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use "
            "sourceTensor.detach().clone() or sourceTensor.detach().clone()"
            ".requires_grad_(True), rather than torch.tensor(sourceTensor).",
            UserWarning,
            stacklevel=3,
        )
    new_tensor = internal_new_from_data(
        data,
        dtype if dtype is not None else get_default_dtype(),
        device,
        copy_variables=True,
        copy_numpy=True,
        type_inference=dtype is None,
        pin_memory=pin_memory,
    )
    new_tensor.detach_()
    return make_variable(new_tensor, requires_grad)


def as_tensor(data: Any, dtype: ScalarType | None, device: Device | None) -> AtTensor:
    return internal_new_from_data(
        data,
        dtype if dtype is not None else get_default_dtype(),
        device,
        copy_variables=False,
        copy_numpy=False,
        type_inference=dtype is None,
    )


__all__ = [
    "as_tensor",
    "compute_sizes",
    "infer_scalar_type",
    "internal_new_from_data",
    "recursive_store",
    "tensor_ctor",
]


@traced("python", "torch::utils::tensor_frombuffer", SOURCE, legacy="tensor_frombuffer")
def tensor_frombuffer(
    buffer: Any, dtype: ScalarType, count: int, offset: int, requires_grad: bool
) -> AtTensor:
    """A 1-d CPU tensor over a Python buffer's memory (shared, not copied): at::for_blob with a
    deleter that keeps the buffer's owner alive."""
    elsize = elementSize(dtype)
    try:
        view = memoryview(buffer)  # PyObject_GetBuffer
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    if view.readonly:
        warnings.warn(
            "The given buffer is not writable, and PyTorch does not support non-writable "
            "tensors. This means you can write to the underlying (supposedly non-writable) "
            "buffer using the tensor. You may want to copy the buffer to protect its data or "
            "make it writable before converting it to a tensor. This type of warning will be "
            "suppressed for the rest of this program.",
            UserWarning,
            stacklevel=3,
        )
    length = view.nbytes
    TORCH_CHECK_VALUE(
        length > 0 and count != 0,
        "both buffer length (",
        length,
        ") and count (",
        count,
        ") must not be 0",
    )
    TORCH_CHECK_VALUE(
        0 <= offset < length,
        "offset (",
        offset,
        " bytes) must be non-negative and no greater than buffer length (",
        length,
        " bytes) minus 1",
    )
    TORCH_CHECK_VALUE(
        count > 0 or (length - offset) % elsize == 0,
        "buffer length (",
        length - offset,
        " bytes) after offset (",
        offset,
        " bytes) must be a multiple of element size (",
        elsize,
        ")",
    )
    actual_count = (length - offset) // elsize if count < 0 else count
    TORCH_CHECK_VALUE(
        offset + actual_count * elsize <= length,
        "requested buffer length (",
        actual_count,
        " * ",
        elsize,
        " bytes) after offset (",
        offset,
        " bytes) must not be greater than actual buffer length (",
        length,
        " bytes)",
    )
    raw = np.frombuffer(view.cast("B"), dtype=np.uint8)
    window = raw[offset : offset + actual_count * elsize].view(aten_to_numpy_dtype(dtype))
    tensor = at.lift_fresh(from_blob(window, [actual_count], [1], dtype))
    return make_variable(tensor, requires_grad)


@traced("python", "torch::utils::asarray", SOURCE, legacy="asarray")
def asarray(
    obj: Any,
    dtype: ScalarType | None,
    device: Device | None,
    copy: bool | None,
    requires_grad: bool,
) -> AtTensor:
    """torch.asarray: alias what can be aliased (a tensor, a NumPy array, a buffer) unless
    copy=True or the dtype / device differ (with copy=None); copy a Python sequence."""
    force_copy = bool(copy)
    force_alias = copy is False
    dtype_unwrapped = dtype if dtype is not None else get_default_dtype()
    tensor: AtTensor | None = None
    if isinstance(obj, TensorBase):  # case 1: a tensor
        tensor = obj.cdata
    is_numpy_array, is_numpy_scalar = isinstance(obj, np.ndarray), isinstance(obj, np.generic)
    if is_numpy_array or is_numpy_scalar:  # case 2: a NumPy array or scalar
        arr = obj
        if is_numpy_scalar:
            TORCH_CHECK(
                not force_alias,
                "can't alias NumPy scalars. Either remove copy=False or transform it in a "
                "ndarray. ",
            )
            arr = np.asarray(obj)
        tensor = tensor_from_numpy(arr, warn_if_not_writeable=False)
        if is_numpy_scalar:
            tensor = tensor.clone()  # a storage of its own
            force_copy = False
    if tensor is None and _has_buffer(obj):  # case 4: the buffer protocol
        tensor = tensor_frombuffer(obj, dtype_unwrapped, -1, 0, requires_grad)
    if tensor is None:
        # a sequence (or a number): always copied
        TORCH_CHECK_VALUE(not force_alias, "can't alias arbitrary sequence into a tensor.")
        tensor = internal_new_from_data(
            obj,
            dtype_unwrapped,
            device,
            copy_variables=False,
            copy_numpy=False,
            type_inference=dtype is None,
        )
        return make_variable(tensor, requires_grad)
    wrong_device = device is not None and device != tensor.device()
    wrong_dtype = dtype is not None and dtype != tensor.scalar_type()
    needs_copying = copy is None and (wrong_device or wrong_dtype)
    if force_copy or needs_copying:
        if wrong_device or wrong_dtype:
            tensor = at._ops["to.device"].call(
                tensor,
                device if device is not None else tensor.device(),
                dtype if dtype is not None else tensor.scalar_type(),
                False,
                force_copy,
                None,
            )
        else:
            tensor = tensor.clone()
    else:
        TORCH_CHECK_VALUE(
            not wrong_device,
            "can't alias tensor from device '",
            tensor.device(),
            "' to '",
            device,
            "'.",
        )
        TORCH_CHECK_VALUE(
            not wrong_dtype,
            "can't alias tensor with dtype '",
            tensor.scalar_type(),
            "' into dtype '",
            dtype,
            "'.",
        )
    return tensor  # the binding sets requires_grad (tensor.requires_grad_(true) in the C++)


def _has_buffer(obj: Any) -> bool:
    """PyObject_CheckBuffer."""
    try:
        memoryview(obj)
    except TypeError:
        return False
    return True
