"""Views and reshapes: as_strided, select, slice, view, reshape, permute, expand, split, ...

Mirrors `aten/src/ATen/native/TensorShape.cpp` (its helpers from `InferSize.h`,
`TensorUtils.cpp` and `ExpandUtils.cpp` are in aten/infer_size.py, tensor_utils.py and
expand_utils.py). A view computes new sizes, strides and offset and either calls
as_strided (select, slice, permute, transpose, expand, squeeze, unsqueeze, diagonal: the
`aten::<op> > aten::as_strided` tree torch.profiler shows) or makes the TensorImpl itself with
alias_with_sizes_and_strides (view, _reshape_alias, alias: no child op). Either way the new
TensorImpl shares the base's storage (Note [Views share storage]).
"""

from __future__ import annotations

from collections.abc import Sequence

from tensortrace.aten import functions as at
from tensortrace.aten.expand_utils import inferExpandGeometry
from tensortrace.aten.infer_size import infer_size_dv
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.native.resize import checkInBoundsForStorage, resize_impl_cpu_, setStrided
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_utils import computeStride
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.exception import (
    TORCH_CHECK,
    TORCH_CHECK_INDEX,
    torchCheckFail,
    what,
)
from tensortrace.c10.intrusive_ptr import intrusive_ptr
from tensortrace.c10.storage_impl import Storage
from tensortrace.c10.tensor_impl import ImplType, TensorImpl
from tensortrace.trace import traced

_VIEW = ImplType.VIEW  # read once: Note [Enum members read once]

SOURCE = "aten/src/ATen/native/TensorShape.cpp"


# ---- helpers -------------------------------------------------------------------------------------
def _prod(values: Sequence[int]) -> int:
    n = 1
    for v in values:
        n *= v
    return n


@traced("native", "at::native::alias_with_sizes_and_strides", SOURCE)
def alias_with_sizes_and_strides(
    self: Tensor, sizes: Sequence[int], strides: Sequence[int]
) -> Tensor:
    """A VIEW TensorImpl over self's storage, made directly (no as_strided call)."""
    impl = self.unsafeGetTensorImpl()
    view = TensorImpl(impl.storage_.copy(), impl.key_set_, impl.data_type_, _VIEW)
    result = Tensor(intrusive_ptr.make(view))
    view.set_sizes_and_strides(tuple(sizes), tuple(strides), impl.storage_offset_)
    return result


# ---- as_strided, select, slice, narrow -----------------------------------------------------------
@native_function(
    SOURCE,
    name="as_strided_tensorimpl",
    legacy="as_strided_tensorimpl (CPU: as_strided_tensorimpl)",
)
def as_strided_tensorimpl(
    self: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None
) -> Tensor:
    impl = self.unsafeGetTensorImpl()
    offset = storage_offset if storage_offset is not None else impl.storage_offset_
    # make_tensor<TensorImpl>(VIEW, Storage(self.storage()), ...): copying the Storage handle is
    # the incref that keeps the base's memory alive while the view lives.
    view = TensorImpl(impl.storage_.copy(), impl.key_set_, impl.data_type_, _VIEW)
    result = Tensor(intrusive_ptr.make(view))
    setStrided(result, size, stride, offset)
    return result


# the Meta kernel: the same view over the meta storage (TensorShape.cpp's
# as_strided_tensorimpl_meta_symint)
native_function(SOURCE, name="as_strided_tensorimpl_meta_symint")(
    getattr(as_strided_tensorimpl, "__wrapped__", as_strided_tensorimpl)
)


@native_function(SOURCE, name="as_strided__symint", legacy="at::native::as_strided_")
def as_strided_(
    self: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None
) -> Tensor:
    """In place: give self this geometry over the storage it already has."""
    offset = storage_offset if storage_offset is not None else self.storage_offset()
    setStrided(self, size, stride, offset)
    return self


@native_function(SOURCE, name="select_symint", legacy="at::native::select")
def select(self: Tensor, dim: int, index: int) -> Tensor:
    ndim = self.dim()
    if ndim == 0:  # Note [TORCH_CHECK tests first]
        TORCH_CHECK_INDEX(False, "select() cannot be applied to a 0-dim tensor.")
    dim = maybe_wrap_dim(dim, ndim)
    size = self.size(dim)
    if not -size <= index < size:  # Note [TORCH_CHECK tests first]: list(sizes) only then
        TORCH_CHECK_INDEX(
            False,
            "select(): index ",
            index,
            " out of range for tensor of size ",
            list(self.sizes()),
            " at dimension ",
            dim,
        )
    if index < 0:
        index += size
    sizes = list(self.sizes())
    strides = list(self.strides())
    storage_offset = self.storage_offset() + index * strides[dim]
    del sizes[dim]
    del strides[dim]
    return self.as_strided(sizes, strides, storage_offset)


@native_function(SOURCE, name="slice", legacy="at::native::slice")
def slice_(
    self: Tensor, dim: int = 0, start: int | None = None, end: int | None = None, step: int = 1
) -> Tensor:
    ndim = self.dim()
    TORCH_CHECK_INDEX(ndim != 0, "slice() cannot be applied to a 0-dim tensor.")
    dim = maybe_wrap_dim(dim, ndim)
    sizes = list(self.sizes())
    strides = list(self.strides())
    TORCH_CHECK(step > 0, "slice step must be positive")
    start_val = start if start is not None else 0
    end_val = end if end is not None else sizes[dim]
    # clamp like Python slicing (get_slice_range): out-of-range bounds are not errors
    if start_val < 0:
        start_val += sizes[dim]
    if end_val < 0:
        end_val += sizes[dim]
    start_val = min(max(start_val, 0), sizes[dim])
    end_val = min(max(end_val, start_val), sizes[dim])
    storage_offset = self.storage_offset() + start_val * strides[dim]
    length = end_val - start_val
    sizes[dim] = (length + step - 1) // step
    strides[dim] *= step
    return self.as_strided(sizes, strides, storage_offset)


@native_function(SOURCE, name="narrow_symint", legacy="at::native::narrow")
def narrow(self: Tensor, dim: int, start: int, length: int) -> Tensor:
    TORCH_CHECK(self.dim() > 0, "narrow() cannot be applied to a 0-dim tensor.")
    TORCH_CHECK(length >= 0, "narrow(): length must be non-negative.")
    dim = maybe_wrap_dim(dim, self.dim())
    cur_size = self.size(dim)
    TORCH_CHECK_INDEX(
        -cur_size <= start <= cur_size,
        "start out of range (expected to be in range of [",
        -cur_size,
        ", ",
        cur_size,
        "], but got ",
        start,
        ")",
    )
    if start < 0:
        start += cur_size
    TORCH_CHECK(
        start <= cur_size - length,
        "start (",
        start,
        ") + length (",
        length,
        ") exceeds dimension size (",
        cur_size,
        ").",
    )
    return at.slice(self, dim, start, start + length, 1)


# ---- view, reshape, flatten, unflatten, alias ----------------------------------------------------
def view_impl(self: Tensor, size: Sequence[int]) -> Tensor:
    inferred_size = infer_size_dv(size, self.numel())
    stride = computeStride(self.sizes(), self.strides(), inferred_size)
    TORCH_CHECK(
        stride is not None,
        "view size is not compatible with input tensor's size and "
        "stride (at least one dimension spans across two contiguous subspaces). Use "
        ".reshape(...) instead.",
    )
    assert stride is not None
    return alias_with_sizes_and_strides(self, inferred_size, stride)


@native_function(SOURCE, name="view", legacy="at::native::view")
def view(self: Tensor, size: Sequence[int]) -> Tensor:
    return view_impl(self, size)


@native_function(SOURCE, name="_reshape_alias", legacy="at::native::_reshape_alias")
def _reshape_alias(self: Tensor, size: Sequence[int], stride: Sequence[int]) -> Tensor:
    # the caller (reshape) has checked that size and stride fit self's storage
    return alias_with_sizes_and_strides(self, size, stride)


@native_function(SOURCE, name="_unsafe_view", legacy="at::native::_unsafe_view")
def _unsafe_view(self: Tensor, size: Sequence[int]) -> Tensor:
    # "unsafe" only for autograd: self is a fresh clone nobody else sees, so no view tracking
    return view_impl(self, size)


@native_function(SOURCE, name="reshape_symint", legacy="at::native::reshape")
def reshape(self: Tensor, shape: Sequence[int]) -> Tensor:
    """A view when the memory allows it, else a contiguous copy (clone + _unsafe_view)."""
    if self.is_contiguous():
        return self.view(shape)
    inferred = infer_size_dv(shape, self.numel())
    stride = computeStride(self.sizes(), self.strides(), inferred)
    if stride is not None:
        return at._reshape_alias(self, inferred, stride)
    return at._unsafe_view(self.clone(memory_format="contiguous_format"), inferred)


@native_function(SOURCE, name="flatten", legacy="at::native::flatten")
def flatten(self: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    start_dim = maybe_wrap_dim(start_dim, self.dim())
    end_dim = maybe_wrap_dim(end_dim, self.dim())
    TORCH_CHECK(
        start_dim <= end_dim, "flatten() has invalid args: start_dim cannot come after end_dim"
    )
    if self.dim() == 0:
        return self.reshape([1])
    if start_dim == end_dim:
        return self
    sizes = list(self.sizes())
    shape = sizes[:start_dim] + [_prod(sizes[start_dim : end_dim + 1])] + sizes[end_dim + 1 :]
    # native::reshape_symint called directly: no aten::reshape frame under aten::flatten
    return reshape(self, shape)


@native_function(SOURCE, name="unflatten_symint", legacy="at::native::unflatten")
def unflatten(self: Tensor, dim: int, sizes: Sequence[int]) -> Tensor:
    dim = maybe_wrap_dim(dim, self.dim())
    TORCH_CHECK(len(sizes) > 0, "unflatten: sizes must be non-empty")
    unexpected: str | None = None
    try:
        inferred = infer_size_dv(sizes, self.size(dim))
    except RuntimeError as e:
        # handle_unflatten_exception, raising after this block: a raise inside it would keep `e`
        # and the frames of its traceback alive in a reference cycle
        unexpected = "" if "is invalid for input of size" in str(e) else what(e)
    if unexpected:
        torchCheckFail("unflatten got an unexpected error:\n", unexpected)
    if unexpected is not None:
        torchCheckFail(
            "unflatten: Provided sizes ",
            list(sizes),
            " don't multiply up to the size of dim ",
            dim,
            " (",
            self.size(dim),
            ") in the input tensor",
        )
    shape = list(self.sizes())
    shape[dim : dim + 1] = inferred
    return self.view(shape)


@native_function(SOURCE, name="alias", legacy="at::native::alias")
def alias(self: Tensor) -> Tensor:
    return alias_with_sizes_and_strides(self, self.sizes(), self.strides())


# ---- permute, transpose, t, squeeze, unsqueeze, expand, diagonal -------------------------------
@native_function(SOURCE, name="permute", legacy="at::native::permute")
def permute(self: Tensor, dims: Sequence[int]) -> Tensor:
    ndim = self.dim()
    TORCH_CHECK(
        ndim == len(dims),
        "permute(sparse_coo): number of dimensions in the tensor "
        "input does not match the length of the desired ordering of dimensions i.e. "
        "input.dim() = ",
        ndim,
        " is not equal to len(dims) = ",
        len(dims),
    )
    sizes, strides = self.sizes(), self.strides()
    new_sizes: list[int] = []
    new_strides: list[int] = []
    seen = [False] * ndim
    for d in dims:
        dim = maybe_wrap_dim(d, ndim)
        TORCH_CHECK(not seen[dim], "permute(): duplicate dims are not allowed.")
        seen[dim] = True
        new_sizes.append(sizes[dim])
        new_strides.append(strides[dim])
    return self.as_strided(new_sizes, new_strides)


@native_function(SOURCE, name="transpose", legacy="at::native::transpose")
def transpose(self: Tensor, dim0: int, dim1: int) -> Tensor:
    ndims = self.dim()
    dim0 = maybe_wrap_dim(dim0, ndims)
    dim1 = maybe_wrap_dim(dim1, ndims)
    if dim0 == dim1:
        return self.alias()
    sizes, strides = list(self.sizes()), list(self.strides())
    sizes[dim0], sizes[dim1] = sizes[dim1], sizes[dim0]
    strides[dim0], strides[dim1] = strides[dim1], strides[dim0]
    return self.as_strided(sizes, strides)


@native_function(SOURCE, name="t", legacy="at::native::t")
def t(self: Tensor) -> Tensor:
    TORCH_CHECK(
        self.dim() <= 2, "t() expects a tensor with <= 2 dimensions, but self is ", self.dim(), "D"
    )
    if self.dim() < 2:
        return self.transpose(0, 0)
    return self.transpose(0, 1)


@native_function(SOURCE, name="unsqueeze", legacy="at::native::unsqueeze")
def unsqueeze(self: Tensor, dim: int) -> Tensor:
    dim = maybe_wrap_dim(dim, self.dim() + 1)
    sizes, strides = list(self.sizes()), list(self.strides())
    # inferUnsqueezeGeometry: the new dim's stride keeps the tensor's layout contiguous-looking
    new_stride = 1 if dim >= self.dim() else sizes[dim] * strides[dim]
    sizes.insert(dim, 1)
    strides.insert(dim, new_stride)
    return self.as_strided(sizes, strides)


def _squeeze_geometry(self: Tensor, dims: set[int]) -> tuple[list[int], list[int]]:
    sizes: list[int] = []
    strides: list[int] = []
    for d in range(self.dim()):
        if d not in dims or self.size(d) != 1:
            sizes.append(self.size(d))
            strides.append(self.stride(d))
    return sizes, strides


@native_function(SOURCE, name="squeeze", legacy="at::native::squeeze")
def squeeze(self: Tensor) -> Tensor:
    sizes, strides = _squeeze_geometry(self, set(range(self.dim())))
    return self.as_strided(sizes, strides)


@native_function(SOURCE, name="squeeze_dim", legacy="at::native::squeeze (dim)")
def squeeze_dim(self: Tensor, dim: int) -> Tensor:
    wrapped = maybe_wrap_dim(dim, self.dim())
    sizes, strides = _squeeze_geometry(self, {wrapped})
    return self.as_strided(sizes, strides)


@native_function(SOURCE, name="squeeze_dims", legacy="at::native::squeeze (dims)")
def squeeze_dims(self: Tensor, dim: Sequence[int]) -> Tensor:
    ndim = self.dim()
    seen: set[int] = set()
    for d in dim:
        wrapped = maybe_wrap_dim(d, ndim)
        TORCH_CHECK(
            wrapped not in seen, "dim ", wrapped, " appears multiple times in the list of dims"
        )
        seen.add(wrapped)
    sizes, strides = _squeeze_geometry(self, seen)
    return self.as_strided(sizes, strides)


def _type_string(self: Tensor) -> str:
    """toString() of a legacy type: torch.FloatTensor, torch.LongTensor (ScalarType's name)."""
    return f"torch.{self.scalar_type()}Tensor"


@native_function(SOURCE, name="expand", legacy="at::native::expand")
def expand(self: Tensor, size: Sequence[int], implicit: bool = False) -> Tensor:
    if len(size) < self.dim():  # the message names the legacy type: built only on failure
        TORCH_CHECK(
            False,
            "expand(",
            _type_string(self),
            "{",
            list(self.sizes()),
            "}, size=",
            list(size),
            "): the number of sizes provided (",
            len(size),
            ") must be greater or equal to the number of dimensions in the tensor (",
            self.dim(),
            ")",
        )
    expanded_sizes, expanded_strides = inferExpandGeometry(self.sizes(), self.strides(), size)
    return self.as_strided(expanded_sizes, expanded_strides)


@native_function(SOURCE, name="expand_as", legacy="at::native::expand_as")
def expand_as(self: Tensor, other: Tensor) -> Tensor:
    return self.expand(list(other.sizes()))


@native_function(SOURCE, name="diagonal", legacy="at::native::diagonal")
def diagonal(self: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    nDims = self.dim()  # PyTorch's name
    dim1 = maybe_wrap_dim(dim1, nDims)
    dim2 = maybe_wrap_dim(dim2, nDims)
    TORCH_CHECK(dim1 != dim2, "diagonal dimensions cannot be identical ", dim1, ", ", dim2)
    storage_offset = self.storage_offset()
    if offset >= 0:
        diag_size = max(min(self.size(dim1), self.size(dim2) - offset), 0)
    else:
        diag_size = max(min(self.size(dim1) + offset, self.size(dim2)), 0)
    # an empty diagonal keeps the offset where it is (PyTorch avoids pointing past the end)
    if diag_size > 0:
        if offset >= 0:
            storage_offset += offset * self.stride(dim2)
        else:
            storage_offset -= offset * self.stride(dim1)
    sizes, strides = list(self.sizes()), list(self.strides())
    # dim1 < dim2 or not, drop the larger first so the smaller's index stays valid
    for d in sorted((dim1, dim2), reverse=True):
        del sizes[d]
        del strides[d]
    sizes.append(diag_size)
    strides.append(self.stride(dim1) + self.stride(dim2))
    return self.as_strided(sizes, strides, storage_offset)


# ---- set_ ----------------------------------------------------------------------------------------
@native_function(SOURCE, name="set_storage_cpu_", legacy="at::native::set_storage_cpu_")
def set_storage_cpu_(
    self: Tensor,
    source: Storage,
    storage_offset: int,
    size: Sequence[int],
    stride: Sequence[int] = (),
) -> Tensor:
    """Point self at `source` with the given geometry (checkSetStorage, then resize_impl_cpu_).

    Like PyTorch, a geometry that reaches past the end of `source` grows the storage.
    """
    impl = self.unsafeGetTensorImpl()
    # an empty stride list (the schema's default) means "contiguous"
    stride_opt = list(stride) if len(stride) > 0 or len(size) == 0 else None
    if stride_opt is not None:
        TORCH_CHECK(
            len(size) == len(stride_opt),
            "unequal size length (",
            len(size),
            ") and stride length (",
            len(stride_opt),
            ")",
        )
    if not impl.storage_.is_alias_of(source):
        # checkSetStorage (Resize.h): a storage of another device would break device caching
        TORCH_CHECK(
            impl.storage_.device() == source.device(),
            'Attempted to set the storage of a tensor on device "',
            impl.storage_.device(),
            '" to a storage on different device "',
            source.device(),
            '".  This is no longer allowed; the devices must match.',
        )
        impl.set_storage_keep_dtype(source.copy())
    TORCH_CHECK(storage_offset >= 0, "Tensor: invalid storage offset ", storage_offset)
    impl.set_storage_offset(storage_offset)
    # grows the storage if the geometry needs more (unless the geometry is unchanged) ...
    resize_impl_cpu_(impl, size, stride_opt)
    # ... which leaves a geometry that did not change to be checked against the new storage
    checkInBoundsForStorage(
        impl.sizes_, impl.strides_, storage_offset, impl.itemsize(), impl.storage_.nbytes()
    )
    return self
