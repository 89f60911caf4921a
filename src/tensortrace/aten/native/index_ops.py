"""index_select, index_add, index_copy, index_fill, index_reduce, masked_select,
masked_scatter and take: select or update whole slices (or masked elements) of a tensor.

Mirrors those ops of `aten/src/ATen/native/TensorAdvancedIndexing.cpp` (index_select_out_cpu_,
TORCH_IMPL_FUNC(index_add_cpu_out / index_reduce_cpu_out), index_copy_ via index_copy_stub,
index_fill_, masked_select_out_cpu, masked_scatter_, take_out) with their checks and
messages. The functional forms clone self (keeping its layout) and run the in-place form, as
their generated functional wrappers do. The loops are the kernels below: one NumPy step per op.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.expand_utils import infer_size
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.scalar_ops import Scalar
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_INDEX, torchCheckFail
from tensortrace.c10.scalar_type import ScalarType, isFloatingType, isIntegralType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/TensorAdvancedIndexing.cpp"
KERNEL = "aten/src/ATen/native/cpu/IndexKernel.cpp"
INDEX_TYPES = (ScalarType.Long, ScalarType.Int)


def _nd(a: np.ndarray) -> np.ndarray:
    return a.reshape(1) if a.ndim == 0 else a


def _flat_index(index: Tensor) -> np.ndarray:
    return index.numpy_view().reshape(-1).astype(np.intp)


def _slot(dim: int, idx: Any) -> tuple[Any, ...]:
    return (slice(None),) * dim + (idx,)


# ---- index_select --------------------------------------------------------------------------------
@traced(
    "kernel", "at::native::index_select_out_cpu_ (loop)", SOURCE, legacy="index_select_out_cpu_"
)
def index_select_kernel(result: Tensor, self: Tensor, dim: int, index: np.ndarray) -> None:
    src = _nd(self.numpy_view())
    bad = (index < 0) | (index >= src.shape[dim])
    if bad.any():
        # dim 1 of a tensor with more dims, into a contiguous result, is index_select_out_cpu_dim1_
        # (caffe2's message); the general loop checks each index with TORCH_CHECK_INDEX
        if dim == 1 and self.dim() > 1 and result.is_contiguous():
            torchCheckFail(
                "INDICES element is out of DATA bounds, id=",
                int(index[bad][0]),
                " axis_dim=",
                src.shape[dim],
            )
        TORCH_CHECK_INDEX(False, "index out of range in self")
    _nd(result.numpy_view())[...] = np.take(src, index, axis=dim)


@native_function(SOURCE, name="index_select_cpu_")
def index_select(self: Tensor, dim: int, index: Tensor) -> Tensor:
    dim = maybe_wrap_dim(dim, self.dim())
    TORCH_CHECK_INDEX(index.dim() <= 1, "index_select(): Index is supposed to be a vector")
    TORCH_CHECK(
        index.scalar_type() in INDEX_TYPES,
        "index_select(): Expected dtype int32 or int64 for index",
    )
    sizes = list(self.sizes())
    if sizes:
        sizes[dim] = index.numel()
    result = at.empty(sizes, dtype=self.scalar_type(), device=self.device())  # self.options()
    if result.numel():
        index_select_kernel(result, self, dim, _flat_index(index))
    return result


# ---- index_add / index_reduce (index_func_meta_impl) --------------------------------------------
def index_func_meta_impl(self: Tensor, dim: int, index: Tensor, source: Tensor, func: str) -> int:
    dim = maybe_wrap_dim(dim, self.dim())
    numel = index.numel()
    TORCH_CHECK_INDEX(index.dim() <= 1, func, "_(): Index is supposed to be a vector")
    TORCH_CHECK(
        index.scalar_type() in INDEX_TYPES, func, "_(): Expected dtype int32/int64 for index"
    )
    TORCH_CHECK(
        self.scalar_type() == source.scalar_type(),
        func,
        "_(): self (",
        self.scalar_type(),
        ") and source (",
        source.scalar_type(),
        ") must have the same scalar type",
    )
    TORCH_CHECK(
        dim == 0 or dim < source.dim(),
        func,
        "_(): Indexing dim ",
        dim,
        " is out of bounds of the source tensor with dim ",
        source.dim(),
    )
    source_size = source.size(dim) if source.dim() else 1
    TORCH_CHECK(
        numel == source_size,
        func,
        "_(): Number of indices (",
        numel,
        ") should be equal to source.size(dim): (",
        source_size,
        "), for dim: ",
        dim,
    )
    self_sizes, source_sizes = list(self.sizes()), list(source.sizes())
    if self.dim() > 1 and source.dim() > 1:
        for d in range(self.dim()):
            if d != dim:
                TORCH_CHECK(
                    self_sizes[d] == source_sizes[d] if d < len(source_sizes) else True,
                    func,
                    "_(): self (",
                    self_sizes,
                    ") and source (",
                    source_sizes,
                    ") must have the same size in every dimension but ",
                    dim,
                )
    return dim


def _check_bounds(
    index: np.ndarray, dim: int, size: int, exc: Any = TORCH_CHECK, prefix: str = ""
) -> None:
    bad = (index < -size) | (index >= size)
    if bad.any():
        exc(
            False,
            prefix,
            "index ",
            int(index[bad][0]),
            " is out of bounds for dimension ",
            dim,
            " with size ",
            size,
        )


@traced("kernel", "at::native::index_add_cpu_ (loop)", SOURCE, legacy="index_add_cpu_")
def index_add_kernel(
    self: Tensor, dim: int, index: np.ndarray, source: Tensor, alpha: Scalar
) -> None:
    out = _nd(self.numpy_view())
    _check_bounds(index, dim, out.shape[dim])
    src = _nd(source.numpy_view())
    if alpha != 1:
        src = (src * np.asarray(alpha).astype(out.dtype)).astype(out.dtype)
    np.add.at(out, _slot(dim, index), src.reshape(out[_slot(dim, index)].shape))


@native_function(SOURCE, name="index_add_cpu_")
def index_add_(self: Tensor, dim: int, index: Tensor, source: Tensor, alpha: Scalar = 1) -> Tensor:
    dim = index_func_meta_impl(self, dim, index, source, "index_add")
    if index.numel():
        index_add_kernel(self, dim, _flat_index(index), source, alpha)
    return self


@native_function(SOURCE, name="index_add")
def index_add(self: Tensor, dim: int, index: Tensor, source: Tensor, alpha: Scalar = 1) -> Tensor:
    return self.clone(memory_format="preserve_format").index_add_(dim, index, source, alpha=alpha)


_REDUCE_INIT = {"prod": 1, "mean": 0}
_WARNED: set[str] = set()


@traced(
    "kernel", "at::native::index_reduce_func_impl (loop)", SOURCE, legacy="index_reduce_func_impl"
)
def index_reduce_kernel(
    self: Tensor, dim: int, index: np.ndarray, source: Tensor, reduce: str, include_self: bool
) -> None:
    out = _nd(self.numpy_view())
    _check_bounds(index, dim, out.shape[dim], TORCH_CHECK_INDEX)
    src = _nd(source.numpy_view()).reshape(out[_slot(dim, index)].shape)
    touched = np.unique(index)
    if not include_self:  # the touched slices start from the reduction's identity
        if reduce in _REDUCE_INIT:
            init: Any = _REDUCE_INIT[reduce]
        elif isFloatingType(self.scalar_type()):
            init = -np.inf if reduce == "amax" else np.inf
        else:
            info = np.iinfo(out.dtype) if out.dtype != np.bool_ else None
            init = (info.min if reduce == "amax" else info.max) if info else 0
        out[_slot(dim, touched)] = init
    if reduce == "prod":
        np.multiply.at(out, _slot(dim, index), src)
    elif reduce == "amax":
        np.maximum.at(out, _slot(dim, index), src)
    elif reduce == "amin":
        np.minimum.at(out, _slot(dim, index), src)
    else:  # mean: sum, then divide by the count (self counts once when included)
        np.add.at(out, _slot(dim, index), src)
        counts = np.bincount(index, minlength=out.shape[dim]).astype(np.float64)
        counts = counts + (1 if include_self else 0)
        counts[counts == 0] = 1
        shape = [1] * out.ndim
        shape[dim] = out.shape[dim]
        counts = counts.reshape(shape)
        if isIntegralType(self.scalar_type(), True):
            out[...] = np.floor_divide(out, counts.astype(out.dtype))
        else:
            out[...] = out / counts.astype(out.dtype)


@native_function(SOURCE, name="index_reduce_cpu_")
def index_reduce_(
    self: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, include_self: bool = True
) -> Tensor:
    if "index_reduce" not in _WARNED:
        _WARNED.add("index_reduce")
        warnings.warn(
            "index_reduce() is in beta and the API may change at any time.",
            UserWarning,
            stacklevel=2,
        )
    dim = index_func_meta_impl(self, dim, index, source, "index_reduce")
    TORCH_CHECK(
        reduce in ("prod", "mean", "amax", "amin"),
        "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got ",
        reduce,
        ".",
    )
    if index.numel():
        index_reduce_kernel(self, dim, _flat_index(index), source, reduce, include_self)
    return self


@native_function(SOURCE, name="index_reduce")
def index_reduce(
    self: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, include_self: bool = True
) -> Tensor:
    return self.clone(memory_format="preserve_format").index_reduce_(
        dim, index, source, reduce, include_self=include_self
    )


# ---- index_copy, index_fill ---------------------------------------------------------------------
@traced("kernel", "at::native::(anonymous)::index_copy_kernel", KERNEL, legacy="index_copy_kernel")
def index_copy_kernel(self: Tensor, dim: int, index: np.ndarray, source: Tensor) -> None:
    out = _nd(self.numpy_view())
    size = out.shape[dim]
    bad = (index < 0) | (index >= size)
    TORCH_CHECK_INDEX(
        not bad.any(),
        "index_copy_(): index ",
        int(index[bad][0]) if bad.any() else 0,
        " is out of bounds for dimension ",
        dim,
        " with size ",
        size,
    )
    out[_slot(dim, index)] = _nd(source.numpy_view()).reshape(out[_slot(dim, index)].shape)


@native_function(SOURCE, name="index_copy_")
def index_copy_(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    dim = maybe_wrap_dim(dim, self.dim())
    TORCH_CHECK_INDEX(
        index.dim() < 2, "index_copy_(): Index should have dimension 1 or 0 (got ", index.dim(), ")"
    )
    num_indices = index.numel()
    source_size = source.size(dim) if source.dim() else 1
    if source.dim() == 0 and num_indices != 1:
        TORCH_CHECK_INDEX(
            False,
            "index_copy_(): When source is scalar, index should have one element (got ",
            num_indices,
            ")",
        )
    TORCH_CHECK_INDEX(
        source.dim() == 0 or num_indices == source_size,
        "index_copy_(): Number of indices (",
        num_indices,
        ") should be equal to source.size(dim) (",
        source_size,
        ")",
    )
    TORCH_CHECK(
        index.scalar_type() == ScalarType.Long,
        "index_copy_(): Expected a long tensor for index, but got ",
        index.scalar_type(),
    )
    TORCH_CHECK(
        self.scalar_type() == source.scalar_type(),
        "index_copy_(): self and source expected to have the same dtype, but got (self) ",
        self.scalar_type(),
        " and (source) ",
        source.scalar_type(),
    )
    if num_indices:
        index_copy_kernel(self, dim, _flat_index(index), source)
    return self


@native_function(SOURCE, name="index_copy")
def index_copy(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    return self.clone(memory_format="preserve_format").index_copy_(dim, index, source)


@traced("kernel", "at::native::(anonymous)::index_fill_kernel", KERNEL, legacy="index_fill_kernel")
def index_fill_kernel(self: Tensor, dim: int, index: np.ndarray, value: Scalar) -> None:
    out = _nd(self.numpy_view())
    _check_bounds(index, dim, out.shape[dim], TORCH_CHECK_INDEX)
    out[_slot(dim, index)] = value


@native_function(SOURCE, name="index_fill_")
def index_fill_(self: Tensor, dim: int, index: Tensor, value: Scalar | Tensor) -> Tensor:
    """index_fill_.int_Scalar and index_fill_.int_Tensor (a 0-dim value, read with item())."""
    if isinstance(value, Tensor):
        TORCH_CHECK(
            value.dim() == 0,
            "index_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
            value.dim(),
            " dimension(s).",
        )
        fill: Scalar = value.item()
    else:
        fill = value
    dim = maybe_wrap_dim(dim, self.dim())
    TORCH_CHECK_INDEX(
        index.scalar_type() == ScalarType.Long, "index_fill_(): Expected dtype int64 for index."
    )
    TORCH_CHECK(index.dim() <= 1, "Index has to be a vector/scalar")
    if index.numel() and self.numel():
        index_fill_kernel(self, dim, _flat_index(index), fill)
    return self


@native_function(SOURCE, name="index_fill")
def index_fill(self: Tensor, dim: int, index: Tensor, value: Scalar | Tensor) -> Tensor:
    return self.clone(memory_format="preserve_format").index_fill_(dim, index, value)


# ---- masked_select, masked_scatter ---------------------------------------------------------------
@traced(
    "kernel",
    "at::native::(anonymous)::masked_select_serial_kernel",
    KERNEL,
    legacy="masked_select_serial_kernel",
)
def masked_select_kernel(result: Tensor, self: np.ndarray, mask: np.ndarray) -> None:
    result.numpy_view()[...] = self[mask]


@native_function(SOURCE, name="masked_select_cpu")
def masked_select(self: Tensor, mask: Tensor) -> Tensor:
    TORCH_CHECK(
        mask.scalar_type() == ScalarType.Bool, "masked_select: expected BoolTensor for mask"
    )
    shape = list(infer_size(mask.sizes(), self.sizes()))
    src = np.broadcast_to(self.numpy_view(), shape)
    m = np.broadcast_to(mask.numpy_view(), shape)
    result = at.empty([int(np.count_nonzero(m))], dtype=self.scalar_type(), device=self.device())
    if result.numel():
        masked_select_kernel(result, src, m)
    return result


@traced(
    "kernel",
    "at::native::(anonymous)::masked_scatter_kernel",
    KERNEL,
    legacy="masked_scatter_kernel",
)
def masked_scatter_kernel(self: Tensor, mask: np.ndarray, source: Tensor) -> None:
    out = self.numpy_view()
    n = int(np.count_nonzero(mask))
    src = source.numpy_view().reshape(-1)
    TORCH_CHECK(src.size >= n, "Number of elements of source < number of ones in mask")
    out[mask] = src[:n]


@native_function(SOURCE, name="masked_scatter__cpu")
def masked_scatter_(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    TORCH_CHECK(
        self.scalar_type() == source.scalar_type(),
        "masked_scatter: expected self and source to have same dtypes but got",
        self.scalar_type(),
        " and ",
        source.scalar_type(),
    )
    TORCH_CHECK(
        mask.scalar_type() == ScalarType.Bool,
        "masked_scatter_ only supports boolean masks, but got mask with dtype ",
        mask.scalar_type(),
    )
    shape = list(infer_size(self.sizes(), mask.sizes()))
    TORCH_CHECK(
        tuple(shape) == tuple(self.sizes()),
        "masked_scatter_: expected mask to be broadcastable to self",
    )
    if self.numel():
        masked_scatter_kernel(self, np.broadcast_to(mask.numpy_view(), shape), source)
    return self


@native_function(SOURCE, name="masked_scatter")
def masked_scatter(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """expand_outplace(self, mask), clone, masked_scatter_."""
    shape = list(infer_size(self.sizes(), mask.sizes()))
    expanded = self.expand(shape) if tuple(shape) != tuple(self.sizes()) else self
    result = expanded.clone(memory_format="contiguous_format")
    return result.masked_scatter_(mask, source)


# ---- take ---------------------------------------------------------------------------------------
@traced("kernel", "at::native::(anonymous)::take_kernel", KERNEL, legacy="take_kernel")
def take_kernel(result: Tensor, self: Tensor, index: Tensor) -> None:
    flat = self.numpy_view().reshape(-1)
    idx = index.numpy_view().astype(np.intp)
    n = flat.size
    bad = (idx < -n) | (idx >= n)
    TORCH_CHECK_INDEX(
        not bad.any(),
        "out of range: tried to access index ",
        int(idx[bad].flat[0]) if bad.any() else 0,
        " on a tensor of ",
        n,
        " elements.",
    )
    result.numpy_view()[...] = flat[idx]


@native_function(SOURCE, name="take")
def take(self: Tensor, index: Tensor) -> Tensor:
    TORCH_CHECK(
        index.scalar_type() == ScalarType.Long,
        "take(): Expected a long tensor for index, but got ",
        index.scalar_type(),
    )
    result = at.empty(list(index.sizes()), dtype=self.scalar_type(), device=self.device())
    if index.numel():
        TORCH_CHECK_INDEX(self.numel() > 0, "take(): tried to take from an empty tensor")
        take_kernel(result, self, index)
    return result


# ---- take_along_dim, argwhere --------------------------------------------------------------------
@native_function(SOURCE)
def take_along_dim(self: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    """gather along dim after broadcasting self and indices in the other dims (without a dim:
    gather from the flattened self)."""
    if dim is None:
        return self.view([-1]).gather(0, indices.view([-1]))
    dim = maybe_wrap_dim(dim, self.dim())
    TORCH_CHECK(
        self.dim() == indices.dim(),
        "torch.take_along_dim(): input and indices should "
        "have the same number of dimensions, but got ",
        self.dim(),
        " dimensions for input, and ",
        indices.dim(),
        " dimensions for indices",
    )
    TORCH_CHECK(
        indices.scalar_type() == ScalarType.Long,
        "torch.take_along_dim(): dtype of indices should be Long but got ",
        indices.scalar_type(),
    )
    self_sizes = list(self.sizes())
    self_sizes[dim] = indices.size(dim)
    shape = list(infer_size(self_sizes, indices.sizes()))
    indices_b = indices.expand(shape)
    shape[dim] = self.size(dim)
    return self.expand(shape).gather(dim, indices_b)


@native_function(SOURCE)
def argwhere(self: Tensor) -> Tensor:
    return self.nonzero()
