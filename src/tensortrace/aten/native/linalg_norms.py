"""Norms: linalg.vector_norm, matrix_norm, norm, svdvals; amax, amin and aminmax, which
matrix_norm reduces with (the determinants are in linear_algebra_det.py).

Mirrors `aten/src/ATen/native/LinearAlgebra.cpp` (TORCH_META_FUNC / TORCH_IMPL_FUNC of
linalg_vector_norm, linalg_matrix_norm with its `_linalg_matrix_norm_checks`, linalg_norm),
`BatchLinearAlgebra.cpp` (linalg_svdvals), and the amax / amin / aminmax parts of
`ReduceOps.cpp` and `TensorCompare.cpp`. vector_norm is a TensorIterator reduction behind
norm_stub; matrix norms are built from vector_norm, amax / amin and the singular values, as in
torch, so the trace shows the same ops as torch.profiler does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tensortrace.aten import functions as at
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.reduce_ops_utils import (
    get_reduction_shape,
    make_dim_mask,
    make_reduction,
    maybe_wrap_dims,
    resize_reduction,
    shape_from_dim_mask,
    zero_numel_check_dims,
)
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.autograd_state import autograd_state
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import (
    ScalarType,
    isComplexType,
    isFloatingType,
    promoteTypes,
    toRealValueType,
)
from tensortrace.c10.tensor_options import TensorOptions

SOURCE = "aten/src/ATen/native/LinearAlgebra.cpp"
BATCH = "aten/src/ATen/native/BatchLinearAlgebra.cpp"
REDUCE = "aten/src/ATen/native/ReduceOps.cpp"
COMPARE = "aten/src/ATen/native/TensorCompare.cpp"

norm_stub = DECLARE_DISPATCH("norm_stub", "aten/src/ATen/native/ReduceOps.h")
max_values_stub = DECLARE_DISPATCH("max_values_stub", "aten/src/ATen/native/ReduceOps.h")
min_values_stub = DECLARE_DISPATCH("min_values_stub", "aten/src/ATen/native/ReduceOps.h")
aminmax_stub = DECLARE_DISPATCH("aminmax_stub", "aten/src/ATen/native/TensorCompare.h")


def _scalar_str(value: Any) -> str:
    """A c10::Scalar streamed into a message: integers as integers, doubles as ostream does."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return f"{float(value):g}"


def checkFloatingOrComplex(t: Tensor, f_name: str) -> None:
    dtype = t.scalar_type()
    TORCH_CHECK(
        isFloatingType(dtype) or isComplexType(dtype),
        f_name,
        ": Expected a floating point or complex tensor as input. Got ",
        dtype,
    )


def check_linalg_norm_dtype(
    opt_dtype: ScalarType | None, self_dtype: ScalarType, name: str
) -> None:
    if opt_dtype is None:
        return
    TORCH_CHECK(
        isFloatingType(opt_dtype) or isComplexType(opt_dtype),
        name,
        ": dtype should be floating point or complex, but got ",
        opt_dtype,
    )
    TORCH_CHECK(
        promoteTypes(self_dtype, opt_dtype) == opt_dtype,
        name,
        ": the dtype of the input (",
        self_dtype,
        ") should be convertible without narrowing to the specified dtype (",
        opt_dtype,
        ")",
    )


# ---- linalg_vector_norm: a structured reduction -------------------------------------------
@meta_function("linalg_vector_norm", SOURCE)
def meta_linalg_vector_norm(
    it: TensorIteratorBase,
    self: Tensor,
    scalar_ord: Any,
    opt_dim: Sequence[int] | None,
    keepdim: bool,
    opt_dtype: ScalarType | None,
) -> None:
    checkFloatingOrComplex(self, "linalg.vector_norm")
    dim = list(opt_dim) if opt_dim is not None else []
    ord_ = float(scalar_ord)
    if self.numel() == 0 and (ord_ < 0.0 or ord_ == float("inf")):
        TORCH_CHECK(
            opt_dim is not None and len(dim) > 0,
            "linalg.vector_norm cannot compute the ",
            _scalar_str(scalar_ord),
            " norm on an empty tensor because the operation does not have an identity",
        )
        for dim_num in dim:
            TORCH_CHECK(
                self.size(dim_num) != 0,
                "linalg.vector_norm cannot compute the ",
                _scalar_str(scalar_ord),
                " norm on the dimension ",
                dim_num,
                "because this dimension is empty and the operation does not have an identity",
            )
    check_linalg_norm_dtype(opt_dtype, self.scalar_type(), "linalg.vector_norm")
    mask = make_dim_mask(dim, self.dim())
    shape = shape_from_dim_mask(self, mask, keepdim)
    # a norm is real: complex inputs give their value type
    out_dtype = toRealValueType(opt_dtype if opt_dtype is not None else self.scalar_type())
    it.set_output_raw_strided(0, shape, (), TensorOptions(out_dtype, self.device()))


@impl_function("linalg_vector_norm_out", SOURCE, legacy="at::native::linalg_vector_norm_out")
def linalg_vector_norm_out(
    it: TensorIteratorBase,
    self: Tensor,
    scalar_ord: Any,
    opt_dim: Sequence[int] | None,
    keepdim: bool,
    opt_dtype: ScalarType | None,
    result: Tensor,
) -> None:
    ord_ = float(scalar_ord)
    ndim = self.dim()
    dims = maybe_wrap_dims(list(opt_dim or []), ndim)
    reduce_dim = dims if opt_dim else list(range(ndim))
    if all(self.size(i) == 1 for i in reduce_dim):  # is_reduce_over_1D_vector: no reduction
        self_ = self.to(opt_dtype) if opt_dtype is not None else self
        src = self_ if keepdim else self_.squeeze(reduce_dim)
        if ord_ != 0.0:
            at.abs(src, out=result)
        else:
            at.ne(src, 0, out=result)
        return
    if self.is_complex():  # the norm kernel reduces the magnitudes
        self = at.abs(self.to(opt_dtype) if opt_dtype is not None else self)
    iter_ = make_reduction(self, result, list(opt_dim or []), keepdim, result.scalar_type())
    norm_stub(iter_.device_type(), iter_, ord_)


# ---- linalg_matrix_norm, linalg_norm ------------------------------------------------------------
def _linalg_matrix_norm_checks(
    mat: Tensor, dim: list[int], opt_dtype: ScalarType | None, low_precision: bool
) -> list[int]:
    TORCH_CHECK(
        mat.dim() >= 2, "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
    )
    checkFloatingOrComplex(mat, "linalg.matrix_norm")
    # dim is a std::vector here, which c10::str streams as its elements separated by spaces
    TORCH_CHECK(
        len(dim) == 2,
        "linalg.matrix_norm: dim must be a 2-tuple. Got ",
        " ".join(str(d) for d in dim),
    )
    dim = maybe_wrap_dims(dim, mat.dim())
    TORCH_CHECK(
        dim[0] != dim[1],
        "linalg.matrix_norm: dims must be different. Got (",
        dim[0],
        ", ",
        dim[1],
        ")",
    )
    check_linalg_norm_dtype(opt_dtype, mat.scalar_type(), "linalg.matrix_norm")
    return dim


def _backshift_permutation(dim0: int, dim1: int, ndim: int) -> list[int]:
    """create_dim_backshift_permutation: every other dim in order, then dim0, dim1."""
    return [d for d in range(ndim) if d not in (dim0, dim1)] + [dim0, dim1]


def _reverse_permutation(perm: list[int]) -> list[int]:
    reverse = [0] * len(perm)
    for i, p in enumerate(perm):
        reverse[p] = i
    return reverse


def _svdvals_reduce(
    mat: Tensor, dim: list[int], keepdim: bool, opt_dtype: ScalarType | None, how: str
) -> Tensor:
    permutation = _backshift_permutation(dim[0], dim[1], mat.dim())
    mat_ = mat.to(opt_dtype) if opt_dtype is not None else mat
    sv = at.linalg_svdvals(mat_.permute(permutation))
    if how == "sum":
        result = sv.sum([-1], keepdim)
    else:
        result = sv.amax([-1], keepdim) if how == "max" else sv.amin([-1], keepdim)
    if keepdim:
        result = result.unsqueeze(-1).permute(_reverse_permutation(permutation))
    return result


@native_function(SOURCE, name="linalg_matrix_norm", legacy="at::native::linalg_matrix_norm")
def linalg_matrix_norm(
    self: Tensor,
    ord: Any = "fro",
    dim: Sequence[int] = (-2, -1),
    keepdim: bool = False,
    dtype: ScalarType | None = None,
) -> Tensor:
    """The Scalar-ord and the str-ord overloads (C++ overloads of one name)."""
    mat, dim_ = self, list(dim)
    if isinstance(ord, str):
        dim_ = _linalg_matrix_norm_checks(mat, dim_, dtype, ord != "nuc")
        if ord == "fro":
            return at.linalg_vector_norm(mat, 2, dim_, keepdim, dtype=dtype)
        if ord == "nuc":
            return _svdvals_reduce(mat, dim_, keepdim, dtype, "sum")
        TORCH_CHECK(False, "linalg.matrix_norm: Order ", ord, " not supported.")
    ord_ = float(ord)
    abs_ord = abs(ord_)
    TORCH_CHECK(
        abs_ord in (2.0, 1.0, float("inf")),
        "linalg.matrix_norm: Order ",
        _scalar_str(ord_),
        " not supported.",
    )
    dim_ = _linalg_matrix_norm_checks(mat, dim_, dtype, abs_ord != 2.0)
    if abs_ord == 2.0:
        return _svdvals_reduce(mat, dim_, keepdim, dtype, "max" if ord_ > 0 else "min")
    if abs_ord == float("inf"):  # the inf norm is the 1 norm of the transpose
        dim_[0], dim_[1] = dim_[1], dim_[0]
    if not keepdim and dim_[0] < dim_[1]:
        dim_[1] -= 1
    col = at.linalg_vector_norm(mat, 1.0, [dim_[0]], keepdim, dtype=dtype)
    return col.amax([dim_[1]], keepdim) if ord_ > 0 else col.amin([dim_[1]], keepdim)


@native_function(SOURCE, name="linalg_norm", legacy="at::native::linalg_norm")
def linalg_norm(
    self: Tensor,
    ord: Any = None,
    dim: Sequence[int] | None = None,
    keepdim: bool = False,
    dtype: ScalarType | None = None,
) -> Tensor:
    x = self
    if isinstance(ord, str):  # linalg_norm.ord_str
        if dim is not None:
            TORCH_CHECK(
                len(dim) in (1, 2),
                "linalg.norm: If dim is specified, it mut be of length 1 or 2. Got ",
                list(dim),
            )
        else:
            TORCH_CHECK(
                x.dim() in (1, 2),
                "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got ",
                x.dim(),
                "D.",
            )
        return at.linalg_matrix_norm(
            x, ord, list(dim) if dim is not None else [0, 1], keepdim, dtype=dtype
        )
    if dim is not None:
        TORCH_CHECK(
            len(dim) in (1, 2),
            "linalg.norm: If dim is specified, it must be of length 1 or 2. Got ",
            list(dim),
        )
    elif ord is not None:
        TORCH_CHECK(
            x.dim() in (1, 2),
            "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got ",
            x.dim(),
            "D.",
        )
    if ord is not None and ((dim is not None and len(dim) == 2) or (dim is None and x.dim() == 2)):
        return at.linalg_matrix_norm(
            x, ord, list(dim) if dim is not None else [0, 1], keepdim, dtype=dtype
        )
    return at.linalg_vector_norm(x, 2.0 if ord is None else ord, dim, keepdim, dtype=dtype)


# ---- singular values and determinants (LAPACK through NumPy) ------------------------------------
@native_function(BATCH, name="linalg_svdvals", legacy="at::native::linalg_svdvals")
def linalg_svdvals(A: Tensor, driver: str | None = None) -> Tensor:
    # U and Vh only when a gradient may be asked for: svd_backward needs them
    compute_uv = autograd_state.grad_mode and A.requires_grad()
    return at._linalg_svd(A, False, compute_uv, driver=driver)[1]  # type: ignore[no-any-return]


# ---- amax / amin (ReduceOps.cpp), aminmax (TensorCompare.cpp) -----------------------------------
def _meta_amax_amin(
    name: str, it: TensorIteratorBase, self: Tensor, dim: Sequence[int], keepdim: bool
) -> None:
    maybe_result = it.maybe_get_output()
    if maybe_result.defined():
        TORCH_CHECK(
            self.scalar_type() == maybe_result.scalar_type(),
            "Expected the dtype for input and out to match, but got ",
            self.scalar_type(),
            " for input's dtype and ",
            maybe_result.scalar_type(),
            " for out's dtype.",
        )
    if self.numel() == 0:
        zero_numel_check_dims(self, list(dim), f"{name}()")
    out_dtype = maybe_result.scalar_type() if maybe_result.defined() else self.scalar_type()
    resize_reduction(it, self, list(dim), keepdim, out_dtype)


@meta_function("amax", REDUCE)
def meta_amax(it: TensorIteratorBase, self: Tensor, dim: Sequence[int], keepdim: bool) -> None:
    _meta_amax_amin("amax", it, self, dim, keepdim)


@meta_function("amin", REDUCE)
def meta_amin(it: TensorIteratorBase, self: Tensor, dim: Sequence[int], keepdim: bool) -> None:
    _meta_amax_amin("amin", it, self, dim, keepdim)


@impl_function("amax_out", REDUCE, legacy="at::native::amax_out")
def amax_out(
    it: TensorIteratorBase, self: Tensor, dim: Sequence[int], keepdim: bool, result: Tensor
) -> None:
    iter_ = make_reduction(self, result, list(dim), keepdim, self.scalar_type())
    if iter_.numel() > 0:
        max_values_stub(iter_.device_type(), iter_)


@impl_function("amin_out", REDUCE, legacy="at::native::amin_out")
def amin_out(
    it: TensorIteratorBase, self: Tensor, dim: Sequence[int], keepdim: bool, result: Tensor
) -> None:
    iter_ = make_reduction(self, result, list(dim), keepdim, self.scalar_type())
    if iter_.numel() > 0:
        min_values_stub(iter_.device_type(), iter_)


@meta_function("aminmax", COMPARE)
def meta_aminmax(it: TensorIteratorBase, self: Tensor, dim: int | None, keepdim: bool) -> None:
    if dim is not None:
        d = maybe_wrap_dim(dim, self.dim())
        zero_numel_check_dims(self, d, "aminmax")
        shape = get_reduction_shape(self, [d], keepdim)
    else:
        TORCH_CHECK(
            self.numel() > 0,
            "aminmax(): cannot compute aminmax over an empty "
            "dimension as the operation has no identity.",
        )
        shape = [1] * self.dim() if keepdim else []
    options = TensorOptions(self.scalar_type(), self.device())
    it.set_output_raw_strided(0, shape, (), options)
    it.set_output_raw_strided(1, shape, (), options)


@impl_function("aminmax_out", COMPARE, legacy="at::native::aminmax_out")
def aminmax_out(
    it: TensorIteratorBase, self: Tensor, dim: int | None, keepdim: bool, min: Tensor, max: Tensor
) -> None:  # noqa: A002 - PyTorch's names
    if dim is not None:
        aminmax_stub(self.device().type_, self, maybe_wrap_dim(dim, self.dim()), keepdim, min, max)
    else:
        aminmax_stub(self.device().type_, self.contiguous(), None, keepdim, min, max)
