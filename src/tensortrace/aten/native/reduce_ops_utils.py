"""The shared machinery of reductions: dim masks, result shapes, and make_reduction.

Mirrors `aten/src/ATen/native/ReduceOpsUtils.h` (make_dim_mask, shape_from_dim_mask,
resize_reduction, review_reduce_result, make_reduction, get_dtype_from_self) and
`aten/src/ATen/WrapDimUtilsMulti.h` (dim_list_to_bitset).

Note [A reduction's output has stride 0 along the reduced dims]
A reduction is a TensorIterator over (out, self) in which `out` has the input's rank: for
`x.sum(1)` on a (3, 4) tensor, the (3,) result is re-viewed (review_reduce_result, an
as_strided call) as (3, 1) with stride 0 along dim 1. compute_shape broadcasts that against
the input, so the iteration shape is (3, 4) and the kernel knows a dim is reduced because the
output does not move along it.
"""

from __future__ import annotations

from collections.abc import Sequence

from tensortrace.aten import functions as at
from tensortrace.aten.native.resize import resize_output
from tensortrace.aten.native.tensor_shape import as_strided_tensorimpl
from tensortrace.aten.tensor_body import Tensor, null_deref
from tensortrace.aten.tensor_iterator import TensorIterator, TensorIteratorBase
from tensortrace.aten.tensor_iterator_operands import options_for
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.device import kCPU
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_INDEX, torchCheckFail
from tensortrace.c10.scalar_type import ScalarType, isIntegralType
from tensortrace.c10.tensor_options import TensorOptions
from tensortrace.trace import recorder

DIM_BITSET_SIZE = 64
DimMask = list[bool]

# the dtypes get_dtype_from_self promotes to int64: isIntegralType(t, includeBool=True)
_INTEGRAL_OR_BOOL = frozenset(t for t in ScalarType if isIntegralType(t, True))
_LONG = ScalarType.Long  # Note [Enum members read once]


# Note [Tensor methods called as at::_ops while idle]
# A Tensor method (TensorBody.h's `result.as_strided(size, stride)`) is an inline call of
# at::_ops::as_strided::call with the schema's defaults filled in. Here the method is a traced
# frame (at::Tensor::as_strided) that also resolves the overload (select_overload) per call. While
# no trace records, the hot internal paths call the operator handle directly with the full
# argument list, which is what the method would call: the same key set, kernel and result, two
# Python calls fewer. While a trace records they call the method, so its frame is recorded.

# Note [The reduced view while no trace records]
# make_reduction runs inside a reduction's kernel, below autograd (the VariableType kernel that
# reached it excluded the autograd and ADInplaceOrView keys, or its tensors have none; the keys
# a thread may include, autocast's and vmap's randomness mode, fall through for as_strided), so
# for a CPU result the dispatcher's choice is the CPU kernel, as_strided_tensorimpl. While no
# trace records, review_reduce_result calls that kernel itself: the same view, with no dispatch
# (as Note [The identity fill while no trace records] in native/cpu/reduce.py does for fill_).


def dim_list_to_bitset(dims: Sequence[int] | None, ndims: int) -> DimMask:
    """Wrap each dim and mark it; a dim named twice is an error (WrapDimUtilsMulti.h)."""
    if ndims > DIM_BITSET_SIZE:  # Note [TORCH_CHECK tests first]
        torchCheckFail("only tensors with up to ", DIM_BITSET_SIZE, " dims are supported")
    seen = [False] * max(ndims, 1)  # a 0-dim tensor wraps dim 0 / -1 (wrap_scalar)
    if dims is None:
        return [True] * max(ndims, 1)
    for d in dims:
        dim = maybe_wrap_dim(d, ndims)
        if seen[dim]:
            torchCheckFail("dim ", dim, " appears multiple times in the list of dims")
        seen[dim] = True
    return seen


def make_dim_mask(dims: Sequence[int] | None, ndim: int, allow_empty_dims: bool = False) -> DimMask:
    """dim=None and dim=[] both reduce every dim (unless allow_empty_dims)."""
    if dims is None or (len(dims) == 0 and not allow_empty_dims):
        return [True] * max(ndim, 1)
    return dim_list_to_bitset(dims, ndim)


def shape_from_dim_mask(self: Tensor, mask: DimMask, keepdim: bool) -> list[int]:
    shape = list(self.sizes())
    for dim in range(len(shape) - 1, -1, -1):
        if mask[dim]:
            if keepdim:
                shape[dim] = 1
            else:
                del shape[dim]
    return shape


def get_reduction_shape(
    self: Tensor, dims: Sequence[int] | None, keepdim: bool, allow_empty_dims: bool = False
) -> list[int]:
    return shape_from_dim_mask(self, make_dim_mask(dims, self.dim(), allow_empty_dims), keepdim)


def make_dim_vector(dims: Sequence[int] | None, ndim: int) -> list[int]:
    return list(dims) if dims is not None else list(range(ndim))


def maybe_wrap_dims(dims: Sequence[int], ndim: int) -> list[int]:
    return [maybe_wrap_dim(d, ndim) for d in dims]


def resize_reduction(
    meta: TensorIteratorBase,
    self: Tensor,
    dims: Sequence[int] | None,
    keepdim: bool,
    out_dtype: ScalarType,
    allow_empty_dims: bool = False,
) -> None:
    """The meta half of a structured reduction: declare the output's shape and dtype."""
    impl = self.impl_.target_ or null_deref()  # Note [Direct reads on hot paths]
    ndim = len(impl.sizes_)  # self.dim()
    if dims is None or (len(dims) == 0 and not allow_empty_dims):
        # every dim reduced (make_dim_mask's all-true mask): the shape is known at once
        shape = [1] * ndim if keepdim else []
    else:
        dims_ = maybe_wrap_dims(make_dim_vector(dims, ndim), ndim)
        shape = get_reduction_shape(self, dims_, keepdim, allow_empty_dims)
    meta.set_output_raw_strided(0, shape, (), options_for(out_dtype, impl.device_opt_))


def resize_reduction_with_indices(
    meta: TensorIteratorBase,
    self: Tensor,
    dims: Sequence[int],
    keepdim: bool,
    out_dtype: ScalarType,
) -> None:
    """max.dim / min.dim: values in out_dtype, indices in int64, both of the reduced shape."""
    dims_ = maybe_wrap_dims(dims, self.dim())
    shape = get_reduction_shape(self, dims_, keepdim)
    meta.set_output_raw_strided(0, shape, (), TensorOptions(out_dtype, self.device()))
    meta.set_output_raw_strided(1, shape, (), TensorOptions(ScalarType.Long, self.device()))


def zero_numel_check_dims(self: Tensor, dims: int | Sequence[int], fn_name: str) -> None:
    """A reduction with no identity cannot reduce over an empty dim (ReduceOpsUtils.h)."""
    if isinstance(dims, int):
        dims = [dims]
    if self.dim() == 0:
        TORCH_CHECK_INDEX(
            self.numel() != 0,
            fn_name,
            ": Expected reduction dim ",
            dims[0],
            " to have non-zero size.",
        )
        return
    for d in dims:
        dim = maybe_wrap_dim(d, self.dim())
        TORCH_CHECK_INDEX(
            self.size(dim) != 0,
            fn_name,
            ": Expected reduction dim ",
            dim,
            " to have non-zero size.",
        )


def get_dtype_from_self(
    self: Tensor, dtype: ScalarType | None, promote_integers: bool
) -> ScalarType:
    """An explicit dtype wins; otherwise integer (and bool) inputs reduce in int64."""
    if dtype is not None:
        return dtype
    src = (self.impl_.target_ or null_deref()).data_type_.scalar_type  # self.scalar_type()
    if promote_integers and src in _INTEGRAL_OR_BOOL:  # isIntegralType(src, True), looked up
        return _LONG
    return src


def get_dtype_from_result(result: Tensor, dtype: ScalarType | None) -> ScalarType:
    TORCH_CHECK(
        result.defined(),
        "Cannot create a new tensor inside a reduction op. You likely "
        "tried to call an operator with an out argument but the out argument was an "
        "undefined tensor.",
    )
    return dtype if dtype is not None else result.scalar_type()


def review_reduce_result(result: Tensor, ndim: int, mask: DimMask, keepdim: bool) -> Tensor:
    """Re-view the result with the input's rank: size 1 and stride 0 along each reduced dim.

    See Note [A reduction's output has stride 0 along the reduced dims].
    """
    if keepdim:
        return result
    impl = result.impl_.target_ or null_deref()  # Note [Direct reads on hot paths]
    sizes = impl.sizes_
    if not sizes and False not in mask:  # every dim reduced into a 0-dim result
        shape, stride = [1] * ndim, [0] * ndim
    else:
        shape = list(sizes)
        stride = list(impl.strides_)
        for dim in range(ndim):
            if mask[dim]:
                shape.insert(dim, 1)
                stride.insert(dim, 0)
    if recorder.current is None:
        if impl.device_opt_.type_ is kCPU:  # Note [The reduced view while no trace records]
            return as_strided_tensorimpl(result, shape, stride, None)
        # Note [Tensor methods called as at::_ops while idle]
        return at._ops["as_strided"].call(result, shape, stride, None)
    return result.as_strided(shape, stride)


def make_reduction(
    self: Tensor, result: Tensor, dims: Sequence[int] | None, keepdim: bool, in_dtype: ScalarType
) -> TensorIterator:
    """at::meta::make_reduction: the iterator of a structured reduction (result already sized)."""
    impl = self.impl_.target_ or null_deref()  # Note [Direct reads on hot paths]
    ndim = len(impl.sizes_)  # self.dim()
    mask = make_dim_mask(dims, ndim)
    viewed_result = review_reduce_result(result, ndim, mask, keepdim)
    if impl.data_type_.scalar_type == in_dtype:  # self.scalar_type()
        return TensorIterator.reduce_op(viewed_result, self)
    return TensorIterator.reduce_op(viewed_result, self.to(in_dtype))


def make_reduction_from_out_ty(
    self: Tensor, result: Tensor, dims: Sequence[int] | None, keepdim: bool, out_dtype: ScalarType
) -> TensorIterator:
    """Reduce in the output's dtype (the CUDA half->float special case does not apply)."""
    return make_reduction(self, result, dims, keepdim, out_dtype)


def resize_reduction_result(result: Tensor, self: Tensor, mask: DimMask, keepdim: bool) -> None:
    resize_output(result, shape_from_dim_mask(self, mask, keepdim))


def make_reduction_native(
    name: str,
    result: Tensor,
    self: Tensor,
    dims: Sequence[int] | None,
    keepdim: bool,
    in_dtype: ScalarType,
    out_dtype: ScalarType,
) -> TensorIterator:
    """at::native::make_reduction: the unstructured form, which resizes `result` itself."""
    TORCH_CHECK(
        not result.defined() or result.scalar_type() == out_dtype,
        name,
        ": provided dtype must match dtype of result. Got ",
        result.scalar_type(),
        " and ",
        out_dtype,
        ".",
    )
    ndim = self.dim()
    mask = make_dim_mask(dims if dims is not None else [], ndim)
    resize_reduction_result(result, self, mask, keepdim)
    viewed_result = review_reduce_result(result, ndim, mask, keepdim)
    if self.scalar_type() == in_dtype:
        return TensorIterator.reduce_op(viewed_result, self)
    return TensorIterator.reduce_op(viewed_result, self.to(in_dtype))
