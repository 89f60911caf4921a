"""Factory functions: empty, empty_like, zeros, ones, full, eye, tril/triu_indices...

Mirrors `aten/src/ATen/native/TensorFactories.cpp` (its random factories, rand, randn and
randint, are in tensor_factories_random.py). Each factory makes an empty tensor through
the dispatcher (so `aten::empty` nests under `aten::rand`, as in torch.profiler) and fills it in
place: `zero_`, `fill_`, `uniform_(0, 1)`, `normal_(0, 1)`, `random_(low, high)`. The `*_like`
factories start from `empty_like`, which keeps the source's strides (Note [empty_like keeps the
layout]); the `.out` variants resize the given tensor with `resize_` instead.

Note [empty_like keeps the layout]
With the default memory_format (preserve), empty_like of a non-overlapping and dense tensor gets
the very same strides (a transposed tensor gives a transposed result), and any other strided
tensor gets dense strides in the same dimension order (infer_dense_strides), so that a following
elementwise op walks both tensors the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tensortrace.aten import empty_tensor
from tensortrace.aten import functions as at
from tensortrace.aten.memory_overlap import is_non_overlapping_and_dense
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.opmath_type import scalar_to
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import sort_dims
from tensortrace.c10.default_dtype import get_default_complex_dtype, get_default_dtype
from tensortrace.c10.device import Device
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_NOT_IMPLEMENTED, torchCheckFail
from tensortrace.c10.scalar import Scalar, isBoolean, isIntegral
from tensortrace.c10.scalar_type import ScalarType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/TensorFactories.cpp"


_MEMORY_FORMATS = ("contiguous_format", "preserve_format")


def _check_memory_format(memory_format: str | None) -> None:
    if memory_format is not None and memory_format not in _MEMORY_FORMATS:
        torchCheckFail("tensortrace supports only torch.contiguous_format, got ", memory_format)


@native_function(SOURCE, legacy="empty_cpu")
def empty_cpu(
    size: Sequence[int],
    dtype: ScalarType | None = None,
    layout: str | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
    memory_format: str | None = None,
) -> Tensor:
    _check_memory_format(memory_format)
    return empty_tensor.empty_cpu(size, dtype, device, pin_memory)


@native_function(SOURCE, legacy="at::empty_strided")
def empty_strided_cpu(
    size: Sequence[int],
    stride: Sequence[int],
    dtype: ScalarType | None = None,
    layout: str | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    return empty_tensor.empty_strided_cpu(size, stride, dtype, device, pin_memory)


# ---- clone (views and indexing) -----------------------------------------------------------
@native_function(SOURCE, name="clone", legacy="at::native::clone")
def clone(self: Tensor, memory_format: str | None = None) -> Tensor:
    """A copy with its own storage: same strides if self is dense (preserve_format)."""
    memory_format = memory_format if memory_format is not None else "preserve_format"
    if memory_format == "preserve_format":
        if is_non_overlapping_and_dense(self.sizes(), self.strides()):
            result = at.empty_strided(
                list(self.sizes()),
                list(self.strides()),
                dtype=self.scalar_type(),
                device=self.device(),
            )
        else:
            result = at.empty_like(self)
    else:
        result = at.empty_like(self, memory_format=memory_format)
    result.copy_(self)
    return result


# ---- empty_like ----------------------------------------------------------------------------------
def infer_dense_strides(sizes: Sequence[int], strides: Sequence[int]) -> list[int]:
    """Dense strides that keep the dimension order of `strides` (TensorUtils.cpp).

    The insertion sort is TensorIterator's: zero strides are ambiguous and stay in place; for
    equal strides the smaller dimension goes first.
    """
    ndim = len(sizes)
    if ndim == 0:
        return []
    if ndim == 1:
        return [1]
    perm = list(range(ndim - 1, -1, -1))

    def should_swap(dim0: int, dim1: int) -> int:
        stride0, stride1 = strides[dim0], strides[dim1]
        if stride0 == 0 or stride1 == 0:
            return 0
        if stride0 < stride1:
            return -1
        if stride0 > stride1:
            return 1
        return 1 if sizes[dim0] > sizes[dim1] else 0

    sort_dims(perm, should_swap)
    out = [0] * ndim
    curr = 1
    for idx in perm:
        out[idx] = curr
        if sizes[idx] > 1:
            curr *= sizes[idx]
    return out


@native_function(SOURCE, legacy="at::native::empty_like")
def empty_like(
    self: Tensor,
    dtype: ScalarType | None = None,
    layout: str | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
    memory_format: str | None = None,
) -> Tensor:
    """Same sizes; dtype and device from the arguments or from self. Note [empty_like keeps...]."""
    _check_memory_format(memory_format)
    dtype = dtype if dtype is not None else self.scalar_type()
    device = device if device is not None else self.device()
    if memory_format in (None, "preserve_format"):
        sizes, strides = self.sizes(), self.strides()
        if not is_non_overlapping_and_dense(sizes, strides):
            strides = tuple(infer_dense_strides(sizes, strides))
        return at.empty_strided(
            list(sizes),
            list(strides),
            dtype=dtype,
            layout=layout,
            device=device,
            pin_memory=pin_memory,
        )
    return at.empty(
        list(self.sizes()),
        dtype=dtype,
        layout=layout,
        device=device,
        pin_memory=pin_memory,
        memory_format=memory_format,
    )


# ---- zeros, ones, full ---------------------------------------------------------------------------
@native_function(SOURCE, name="zeros_symint", legacy="at::native::zeros")
def zeros(
    size: Sequence[int],
    dtype: ScalarType | None = None,
    layout: str | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    # torch 2.9+ checks zeros' sizes itself, before empty's "negative dimension" check
    TORCH_CHECK(all(s >= 0 for s in size), "zeros: Dimension size must be non-negative.")
    result = at.empty(size, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)
    return result.zero_()


@native_function(SOURCE, legacy="at::native::zeros_out")
def zeros_out(size: Sequence[int], out: Tensor) -> Tensor:
    out.resize_(size)
    return out.zero_()


def _empty_like(
    self: Tensor,
    dtype: ScalarType | None,
    layout: str | None,
    device: Device | None,
    pin_memory: bool | None,
    memory_format: str | None,
) -> Tensor:
    """at::empty_like(self, options, memory_format): where every *_like factory starts."""
    return at.empty_like(
        self,
        dtype=dtype,
        layout=layout,
        device=device,
        pin_memory=pin_memory,
        memory_format=memory_format,
    )


@native_function(SOURCE, legacy="at::native::zeros_like")
def zeros_like(
    self: Tensor,
    dtype: ScalarType | None = None,
    layout: str | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
    memory_format: str | None = None,
) -> Tensor:
    result = _empty_like(self, dtype, layout, device, pin_memory, memory_format)
    return result.zero_()


def infer_full_options(fill_value: Scalar, dtype: ScalarType | None) -> ScalarType:
    """full's dtype when none is given: bool, int64, the default float or the default complex,
    from the value."""
    if dtype is not None:
        return dtype
    if isBoolean(fill_value):
        return ScalarType.Bool
    if isIntegral(fill_value, includeBool=False):
        return ScalarType.Long
    if isinstance(fill_value, complex):
        return get_default_complex_dtype()
    return get_default_dtype()


def _full(
    size: Sequence[int],
    fill_value: Scalar,
    dtype: ScalarType | None = None,
    layout: str | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    TORCH_CHECK(layout in (None, "strided"), "full(...) is not implemented for sparse layout")
    result = at.empty(
        size,
        dtype=infer_full_options(fill_value, dtype),
        layout=layout,
        device=device,
        pin_memory=pin_memory,
    )
    return result.fill_(fill_value)


def _full_out(size: Sequence[int], fill_value: Scalar, out: Tensor) -> Tensor:
    out.resize_(size)
    return out.fill_(fill_value)


full = native_function(SOURCE, name="full", legacy="at::native::full")(_full)
full_out = native_function(SOURCE, name="full_out", legacy="at::native::full_out")(_full_out)


@native_function(SOURCE, legacy="at::native::full_like")
def full_like(
    self: Tensor,
    fill_value: Scalar,
    dtype: ScalarType | None = None,
    layout: str | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
    memory_format: str | None = None,
) -> Tensor:
    result = _empty_like(self, dtype, layout, device, pin_memory, memory_format)
    return result.fill_(fill_value)


@native_function(SOURCE, name="ones", legacy="at::native::ones")
def ones(
    size: Sequence[int],
    dtype: ScalarType | None = None,
    layout: str | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    # native::full, not at::full: no aten::full frame between aten::ones and aten::empty
    return _full(size, 1.0, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)


@native_function(SOURCE, legacy="at::native::ones_out")
def ones_out(size: Sequence[int], out: Tensor) -> Tensor:
    return _full_out(size, 1.0, out)


@native_function(SOURCE, legacy="at::native::ones_like")
def ones_like(
    self: Tensor,
    dtype: ScalarType | None = None,
    layout: str | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
    memory_format: str | None = None,
) -> Tensor:
    result = _empty_like(self, dtype, layout, device, pin_memory, memory_format)
    return result.fill_(1.0)


# ---- eye ---------------------------------------------------------------------------------------
@native_function(SOURCE, name="eye", legacy="at::native::eye")
def eye(
    n: int,
    m: int | None = None,
    dtype: ScalarType | None = None,
    layout: str | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    """An empty tensor to be resized, then at::eye_out (so aten::eye nests in aten::eye)."""
    tensor = at.empty([0], dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)
    return at.eye(n, n if m is None else m, out=tensor)


@traced("kernel", "at::native::eye_out_cpu (diagonal loop)", SOURCE, legacy="THTensor_(eye)")
def _fill_diagonal(result: Tensor, size: int) -> None:
    """result_data[i * (stride0 + stride1)] = 1 for i < min(n, m): one strided NumPy write."""
    if size:
        idx = list(range(size))
        result.numpy_view()[idx, idx] = 1


@native_function(SOURCE, name="eye_out_cpu", legacy="at::native::eye_out_cpu")
def eye_out_cpu(n: int, m: int | None = None, out: Tensor | None = None) -> Tensor:
    assert out is not None
    m = n if m is None else m
    TORCH_CHECK(n >= 0, "n must be greater or equal to 0, got ", n)
    TORCH_CHECK(m >= 0, "m must be greater or equal to 0, got ", m)
    out.resize_([n, m])
    if out.is_meta():
        return out
    out.zero_()
    _fill_diagonal(out, min(n, m))
    return out


@native_function(SOURCE, legacy="at::native::scalar_tensor")
def scalar_tensor(
    s: bool | int | float,
    dtype: ScalarType | None = None,
    layout: str | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    """A 0-dim tensor holding s: on the CPU, empty_cpu then at::native::fill_ (the fast track
    with no dispatcher call); on another device, at::empty({}, options).fill_(s).

    fill_ converts with Scalar::to<scalar_t>(), so a value out of the dtype's range raises."""
    if device is not None and not device.is_cpu():
        result = at.empty([], dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)
        return result.fill_(s)
    result = empty_tensor.empty_cpu((), dtype if dtype is not None else get_default_dtype())
    result.numpy_view()[()] = scalar_to(s, result.scalar_type(), opmath=False)
    return result


@native_function(SOURCE, name="new_empty_strided", legacy="at::native::new_empty_strided")
def new_empty_strided(
    self: Tensor,
    size: Sequence[int],
    stride: Sequence[int],
    dtype: ScalarType | None = None,
    layout: str | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    """new_empty_strided_symint: empty_strided with self's dtype and device unless given
    (AccumulateGrad makes a leaf's first gradient with it, in the leaf's layout)."""
    return at.empty_strided(
        size,
        stride,
        dtype=self.scalar_type() if dtype is None else dtype,
        layout=layout,
        device=self.device() if device is None else device,
        pin_memory=pin_memory,
    )


def _tri_indices(
    name: str,
    row: int,
    col: int,
    offset: int,
    dtype: ScalarType | None,
    upper: bool,
    options: dict[str, Any],
) -> Tensor:
    dtype = ScalarType.Long if dtype is None else dtype
    TORCH_CHECK_NOT_IMPLEMENTED(
        dtype in (ScalarType.Long, ScalarType.Int),
        '"',
        name,
        "\" not implemented for '",
        dtype,
        "'",
    )
    TORCH_CHECK(row >= 0, "row must be non-negative, got", row)
    TORCH_CHECK(col >= 0, "col must be non-negative, got", col)
    rows, cols = (np.triu_indices if upper else np.tril_indices)(row, offset, col)
    # empty_cpu / empty_cuda with the call's layout, device and pin_memory
    result = at.empty([2, rows.size], dtype=dtype, **options)
    if rows.size:
        _tri_indices_kernel(result, rows, cols)
    return result


@traced("kernel", "at::native::tril_indices_cpu (loop)", SOURCE, legacy="tril_indices_cpu")
def _tri_indices_kernel(result: Tensor, rows: Any, cols: Any) -> None:
    out = result.numpy_view()
    out[0] = rows
    out[1] = cols


@native_function(SOURCE)
def tril_indices_cpu(
    row: int,
    col: int,
    offset: int = 0,
    dtype: ScalarType | None = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: Any = None,
) -> Tensor:
    options = {"layout": layout, "device": device, "pin_memory": pin_memory}
    return _tri_indices("tril_indices", row, col, offset, dtype, False, options)


@native_function(SOURCE)
def triu_indices_cpu(
    row: int,
    col: int,
    offset: int = 0,
    dtype: ScalarType | None = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: Any = None,
) -> Tensor:
    options = {"layout": layout, "device": device, "pin_memory": pin_memory}
    return _tri_indices("triu_indices", row, col, offset, dtype, True, options)
