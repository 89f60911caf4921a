"""Advanced indexing: index (x[idx] with tensors), index_put_ (x[idx] = v) and nonzero.

Mirrors `aten/src/ATen/native/TensorAdvancedIndexing.cpp` (make_info, AdvancedIndex,
restride_src, reshape_indexer, the structured `index` kernel, index_put_ / _index_put_impl_ with
the masked_fill_ shortcut, nonzero_cpu; masked_fill_ itself is in tensor_advanced_indexing.py)
and `aten/src/ATen/native/IndexingUtils.h` (expandTensors: a boolean mask becomes the columns
of its nonzero(); hasContiguousSubspace and transposeToFront).

Note [How advanced indexing iterates]
make_info turns `src[i0, i1]` into a TensorIterator over (result, src', i0', i1'): src' is src
restrided (as_strided) so the indexed dims are replaced by the index shape with stride 0, and each
index is reshaped (reshape_indexer) to broadcast in that place. The kernel then reads, for each
element, `src' + sum(index_k * stride_k)`: the index picks the element along the indexed dims.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.expand_utils import infer_size
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.native.resize import resize_output
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorBase, TensorIteratorConfig
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_INDEX
from tensortrace.c10.scalar_type import ScalarType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/TensorAdvancedIndexing.cpp"
UTILS = "aten/src/ATen/native/IndexingUtils.h"

index_stub = DECLARE_DISPATCH("index_stub", "aten/src/ATen/native/IndexKernel.h")
index_put_stub = DECLARE_DISPATCH("index_put_stub", "aten/src/ATen/native/IndexKernel.h")

_MASK_TYPES = (ScalarType.Byte, ScalarType.Bool)
_INDEX_TYPES = (ScalarType.Long, ScalarType.Int, ScalarType.Byte, ScalarType.Bool)
IndexList = Sequence["Tensor | None"]


# ---- IndexingUtils.h -----------------------------------------------------------------------------
def checkIndexTensorTypes(indices: IndexList) -> None:
    for t in indices:
        if t is not None and t.defined():
            TORCH_CHECK_INDEX(
                t.scalar_type() in _INDEX_TYPES,
                "tensors used as indices must be long, int, byte or bool tensors",
            )


@traced("native", "at::native::expandTensors", UTILS)
def expandTensors(self: Tensor, indices: IndexList) -> list[Tensor | None]:
    """A byte/bool mask becomes one long index per mask dim: the columns of mask.nonzero()."""
    result: list[Tensor | None] = []
    for index in indices:
        if index is None or not index.defined():
            result.append(None)
            continue
        if index.scalar_type() in _MASK_TYPES:
            if index.scalar_type() == ScalarType.Byte:
                warnings.warn(
                    "indexing with dtype torch.uint8 is now deprecated, please use a "
                    "dtype torch.bool instead.",
                    UserWarning,
                    stacklevel=2,
                )
            # the mask's shape must match the dims it covers, starting at this position
            for j in range(index.dim()):
                src_idx = len(result) + j
                TORCH_CHECK_INDEX(
                    src_idx < self.dim() and index.size(j) == self.size(src_idx),
                    "The shape of the mask ",
                    list(index.sizes()),
                    " at index ",
                    j,
                    " does not match the shape of the indexed tensor ",
                    list(self.sizes()),
                    " at index ",
                    src_idx,
                )
            nonzero = index.nonzero()
            for j in range(index.dim()):
                result.append(nonzero.select(1, j))
        else:
            result.append(index)
    return result


def hasContiguousSubspace(tl: IndexList) -> bool:
    """Are the defined indices next to each other (then the result keeps their place)?"""
    defined = [i for i, t in enumerate(tl) if t is not None]
    return not defined or defined[-1] - defined[0] + 1 == len(defined)


def transposeToFront(self: Tensor, indices: IndexList) -> tuple[Tensor, list[Tensor | None]]:
    """Move the indexed dims to the front (NumPy's rule for non-adjacent advanced indices)."""
    dims: list[int] = []
    transposed: list[Tensor | None] = []
    for i, t in enumerate(indices):
        if t is not None:
            dims.append(i)
            transposed.append(t)
    for i, t in enumerate(indices):
        if t is None:
            dims.append(i)
            transposed.append(None)
    return self.permute(dims), transposed


def expand_outplace(indices: IndexList) -> list[Tensor | None]:
    """Broadcast the defined indices to one shape (ExpandUtils.h); equal shapes are not touched."""
    sizes: tuple[int, ...] | None = None
    for t in indices:
        if t is not None:
            sizes = tuple(t.sizes()) if sizes is None else infer_size(sizes, t.sizes())
    result: list[Tensor | None] = []
    for t in indices:
        if t is None or tuple(t.sizes()) == sizes:
            result.append(t)
        else:
            assert sizes is not None
            result.append(t.expand(list(sizes)))
    return result


# ---- AdvancedIndex (TensorAdvancedIndexing.cpp) --------------------------------------------------
def restride_src(
    src: Tensor, dims_before: int, dims_indexed: int, replacement_shape: Sequence[int]
) -> Tensor:
    shape = list(src.sizes())
    strides = list(src.strides())
    end = dims_before + dims_indexed
    shape[dims_before:end] = list(replacement_shape)
    strides[dims_before:end] = [0] * len(replacement_shape)
    return src.as_strided(shape, strides)


def reshape_indexer(index: Tensor, dims_before: int, dims_after: int) -> Tensor:
    shape = [1] * dims_before + list(index.sizes()) + [1] * dims_after
    return index.reshape(shape)


class AdvancedIndex:
    """The restrided source, the reshaped indices and the indexed dims' sizes and byte strides."""

    def __init__(self, src: Tensor, indices_list: IndexList) -> None:
        element_size_bytes = src.element_size()
        dims_before = dims_after = dims_indexed = 0
        replacement_shape: Sequence[int] = ()
        self.indexed_sizes: list[int] = []
        self.indexed_strides: list[int] = []
        for dim, index in enumerate(indices_list):
            if index is None:
                if dims_indexed == 0:
                    dims_before += 1
                else:
                    dims_after += 1
            else:
                dims_indexed += 1
                replacement_shape = index.sizes()
                self.indexed_sizes.append(src.size(dim))
                self.indexed_strides.append(src.stride(dim) * element_size_bytes)
        # an index into a size-0 dim can only be out of bounds (unless it picks nothing)
        if 0 in self.indexed_sizes and 0 not in replacement_shape:
            TORCH_CHECK_INDEX(False, "index is out of bounds for dimension with size 0")
        self.dims_before = dims_before
        self.dims_after = dims_after
        self.src = restride_src(src, dims_before, dims_indexed, replacement_shape)
        self.indices = [
            reshape_indexer(index, dims_before, dims_after)
            for index in indices_list
            if index is not None
        ]


@traced("native", "at::native::make_info", SOURCE)
def make_info(self: Tensor, orig: IndexList) -> AdvancedIndex:
    checkIndexTensorTypes(orig)
    # first expand BoolTensor (masks) or ByteTensor (masks) into 1 or more LongTensors
    indices = expandTensors(self, orig)
    # next broadcast all index tensors together
    indices = expand_outplace(indices)
    # add missing null Tensors so that it matches self.dim()
    indices = indices + [None] * (self.dim() - len(indices))
    # if the non-null indices are not all adjacent, transpose self and indices together so
    # that they're adjacent at the front
    if not hasContiguousSubspace(indices):
        self, indices = transposeToFront(self, indices)
    # ensure indices are on the same device as self (CPU indices index a CUDA tensor)
    device = self.device()
    indices = [
        i.to(device=device) if i is not None and i.defined() and i.device() != device else i
        for i in indices
    ]
    return AdvancedIndex(self, indices)


# ---- index (structured) --------------------------------------------------------------------------
@meta_function("index.Tensor", SOURCE)
def meta_index(it: TensorIteratorBase, self: Tensor, indices: IndexList) -> None:
    TORCH_CHECK_INDEX(
        len(indices) <= self.dim(),
        "too many indices for tensor of dimension ",
        self.dim(),
        " (got ",
        len(indices),
        ")",
    )
    info = make_info(self, indices)
    # build_index_op: the iterator owns what it needs from info (src', the indices)
    config = (
        TensorIteratorConfig()
        .set_check_mem_overlap(False)
        .check_all_same_dtype(False)
        .add_output(it.maybe_get_output())
        .add_const_input(info.src)
    )
    for index in info.indices:
        config.add_const_input(index)
    it.build(config)
    # TORCH_PRECOMPUTE_STRUCT2(index, Tensor): the impl receives these
    it.index_precomputed_ = (info.indexed_sizes, info.indexed_strides)  # type: ignore[attr-defined]


@impl_function("index_out", SOURCE, legacy="at::native::index")
def index_out(it: TensorIteratorBase, self: Tensor, indices: IndexList, result: Tensor) -> None:
    sizes, strides = it.index_precomputed_  # type: ignore[attr-defined]
    index_stub(it.device_type(), it, sizes, strides)


# ---- index_put_ ----------------------------------------------------------------------------------
@native_function(SOURCE, name="index_put_", legacy="at::native::index_put_")
def index_put_(
    self: Tensor, indices: IndexList, values: Tensor, accumulate: bool = False
) -> Tensor:
    return at._index_put_impl_(self, indices, values, accumulate, False)


@native_function(SOURCE, name="index_put", legacy="at::native::index_put")
def index_put(self: Tensor, indices: IndexList, values: Tensor, accumulate: bool = False) -> Tensor:
    return self.clone(memory_format="contiguous_format").index_put_(indices, values, accumulate)


def canDispatchToMaskedFill(
    self: Tensor, indices: IndexList, value: Tensor
) -> tuple[bool, Tensor | None]:
    """One bool mask and a one-element value: index_put_ is a masked_fill_."""
    # a meta value is the one a meta self can take (torch's meta index_put_ needs no mask
    # positions either: the output is self)
    if not (value.numel() == 1 and (value.device().is_cpu() or value.is_meta())):
        return False, None
    num_ind = 0
    mask: Tensor | None = None
    for index in indices:
        if index is None or not index.defined():
            num_ind += 1
            continue
        if (
            index.scalar_type() not in _MASK_TYPES
            or index.device() != self.device()
            or mask is not None
        ):
            return False, None
        mask = index
        for j in range(index.dim()):
            src_idx = num_ind + j
            TORCH_CHECK_INDEX(
                src_idx < self.dim() and index.size(j) == self.size(src_idx),
                "The shape of the mask ",
                list(index.sizes()),
                " at index ",
                j,
                " does not match the shape of the indexed tensor ",
                list(self.sizes()),
                " at index ",
                src_idx,
            )
        num_ind += mask.dim()
    if mask is None:
        return False, None
    for _ in range(num_ind, self.dim()):
        mask = mask.unsqueeze(-1)
    return True, mask


def is_expandable_to(shape: Sequence[int], desired: Sequence[int]) -> bool:
    if len(shape) > len(desired):
        return False
    for s, d in zip(reversed(shape), reversed(desired)):
        if s != d and s != 1:
            return False
    return True


@native_function(SOURCE, name="_index_put_impl_", legacy="at::native::_index_put_impl_")
def _index_put_impl_(
    self: Tensor, indices: IndexList, values: Tensor, accumulate: bool = False, unsafe: bool = False
) -> Tensor:
    TORCH_CHECK_INDEX(
        len(indices) <= self.dim(),
        "too many indices for tensor of dimension ",
        self.dim(),
        " (got ",
        len(indices),
        ")",
    )
    if not accumulate:
        can_fill, mask = canDispatchToMaskedFill(self, indices, values)
        if can_fill and mask is not None:
            # a meta value has no item(): masked_fill_.Tensor takes the 0-dim tensor itself
            return self.masked_fill_(mask, values if values.is_meta() else values.item())
    if values.device() != self.device() and values.numel() == 1 and values.dim() == 0:
        values = values.to(device=self.device())  # a CPU scalar value for a CUDA self
    info = make_info(self, indices)
    TORCH_CHECK(
        is_expandable_to(values.sizes(), info.src.sizes()),
        "shape mismatch: value tensor of shape ",
        list(values.sizes()),
        " cannot be broadcast to indexing result of shape ",
        list(info.src.sizes()),
    )
    TORCH_CHECK(
        values.scalar_type() == info.src.scalar_type(),
        "Index put requires the source and destination dtypes match, got ",
        info.src.scalar_type(),
        " for the destination and ",
        values.scalar_type(),
        " for the source.",
    )
    # make_index_put_iterator: src' (0-strided over the indexed dims) is the output
    config = (
        TensorIteratorConfig()
        .set_check_mem_overlap(False)
        .resize_outputs(False)
        .check_all_same_dtype(False)
        .add_output(info.src)
        .add_const_input(values)
    )
    for index in info.indices:
        config.add_const_input(index)
    it = config.build()
    index_put_stub(it.device_type(), it, info.indexed_sizes, info.indexed_strides, accumulate)
    return self


# ---- nonzero -----------------------------------------------------------------------------------
@native_function(SOURCE, name="nonzero_cpu", legacy="at::native::nonzero_cpu")
def nonzero_cpu(self: Tensor) -> Tensor:
    """The coordinates of the nonzero elements, one row each, in column-major memory.

    The result lives on the input's device (nonzero_cuda in Nonzero.cu is this body too)."""
    result = at.empty([0], dtype=ScalarType.Long, device=self.device())
    coords = (
        np.nonzero(self.numpy_view())
        if self.dim() > 0
        else (np.zeros(int(bool(self.numpy_view())), np.int64),)
    )
    num_nonzero = len(coords[0])
    ndim = self.dim()
    # nonzero_out_cpu fills the transposed layout: the coordinates of one dim are contiguous
    resize_output(result, [ndim, num_nonzero])
    if num_nonzero * ndim > 0:
        result.numpy_view()[...] = np.stack(coords).astype(np.int64)
    return result.as_strided_([num_nonzero, ndim], [1, num_nonzero])


@native_function(SOURCE, name="nonzero_numpy")
def nonzero_numpy(self: Tensor) -> list[Tensor]:
    """nonzero(as_tuple=True): one 1-D tensor of coordinates per dim, as numpy.nonzero gives."""
    # special case scalar for compatibility with numpy, as TensorAdvancedIndexing.cpp does
    if self.dim() == 0:
        return self.unsqueeze(0).nonzero().unbind(1)
    return self.nonzero().unbind(1)
