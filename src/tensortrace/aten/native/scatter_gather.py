"""gather, scatter, scatter_ and scatter_add: index along one dimension, element by element.

Mirrors `aten/src/ATen/native/TensorAdvancedIndexing.cpp` (TORCH_META_FUNC(gather),
scatter_meta_impl, TORCH_IMPL_FUNC(gather_out / scatter_src_out / scatter_value_out /
scatter_reduce_out / scatter_add)), the checks of `ScatterGatherChecks.h`, and the loops of
`cpu/ScatterGatherKernel.cpp` (cpu_scatter_gather_base_kernel). For `dim` d,
gather: out[i][j] = self[i][index[i][j]]; scatter: self[i][index[i][j]] = src[i][j], where
index may be smaller than self (and src) in every dimension: only its extent is visited.
"""

from __future__ import annotations

import warnings

import numpy as np

from tensortrace.aten.cuda.empty_tensor import empty_structured_output
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.scalar_ops import Scalar
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/TensorAdvancedIndexing.cpp"
CHECKS = "aten/src/ATen/native/ScatterGatherChecks.h"
KERNEL = "aten/src/ATen/native/cpu/ScatterGatherKernel.cpp"


def ensure_nonempty_dim(dim: int) -> int:
    return max(dim, 1)


def ensure_nonempty_size(t: Tensor, dim: int) -> int:
    return 1 if t.dim() == 0 else t.size(dim)


# ---- ScatterGatherChecks.h -----------------------------------------------------------------------
def scatter_gather_dtype_check(
    method_name: str, self: Tensor, index: Tensor, src: Tensor | None = None
) -> None:
    if index.numel() != 0:
        TORCH_CHECK(
            index.scalar_type() in (ScalarType.Long, ScalarType.Int),
            method_name,
            "(): Expected dtype int32/int64 for index",
        )
    if src is not None:
        TORCH_CHECK(
            self.scalar_type() == src.scalar_type(),
            method_name,
            "(): Expected self.dtype to be equal to src.dtype",
        )


def gather_shape_check(self: Tensor, dim: int, index: Tensor) -> None:
    self_dims = ensure_nonempty_dim(self.dim())
    TORCH_CHECK(
        self_dims == ensure_nonempty_dim(index.dim()),
        "Index tensor must have the same number of dimensions as input tensor",
    )
    for i in range(self_dims):
        if i != dim:
            TORCH_CHECK(
                ensure_nonempty_size(index, i) <= ensure_nonempty_size(self, i),
                "Size does not match at dimension ",
                i,
                " expected index ",
                list(index.sizes()),
                " to be no larger than self ",
                list(self.sizes()),
                " apart from dimension ",
                dim,
            )


def scatter_shape_check(self: Tensor, dim: int, index: Tensor, src: Tensor | None) -> None:
    if index.numel() == 0:
        return
    TORCH_CHECK(
        ensure_nonempty_dim(self.dim()) == ensure_nonempty_dim(index.dim()),
        "Index tensor must have the same number of dimensions as self tensor",
    )
    wrong = False
    self_dims = ensure_nonempty_dim(self.dim())
    for d in range(self_dims):
        if d != dim and ensure_nonempty_size(index, d) > ensure_nonempty_size(self, d):
            wrong = True
            break
    if not wrong and src is not None:
        TORCH_CHECK(
            ensure_nonempty_dim(src.dim()) == ensure_nonempty_dim(index.dim()),
            "Index tensor must have the same number of dimensions as src tensor",
        )
        wrong = any(
            ensure_nonempty_size(index, d) > ensure_nonempty_size(src, d) for d in range(self_dims)
        )
    if src is not None:
        TORCH_CHECK(
            not wrong,
            "Expected index ",
            list(index.sizes()),
            " to be no larger than self ",
            list(self.sizes()),
            " apart from dimension ",
            dim,
            " and to be no larger size than src ",
            list(src.sizes()),
        )
    else:
        TORCH_CHECK(
            not wrong,
            "Expected index ",
            list(index.sizes()),
            " to be no larger than self ",
            list(self.sizes()),
            " apart from dimension ",
            dim,
        )


# ---- the kernel ---------------------------------------------------------------------------------
def _as_nd(a: np.ndarray) -> np.ndarray:
    return a.reshape(1) if a.ndim == 0 else a


def _coordinates(index: np.ndarray, dim: int, dim_size: int) -> tuple[np.ndarray, ...]:
    """The full coordinates each index element addresses: its own, with index[...] at `dim`,
    after cpu_scatter_gather_base_kernel's bounds check."""
    bad = (index < 0) | (index >= dim_size)
    if bad.any():
        TORCH_CHECK(
            False,
            "index ",
            int(index[bad].flat[0]),
            " is out of bounds for dimension ",
            dim,
            " with size ",
            dim_size,
        )
    grid: tuple[np.ndarray, ...] = np.indices(index.shape, sparse=True)
    return tuple(index.astype(np.intp) if d == dim else g for d, g in enumerate(grid))


@traced(
    "kernel",
    "at::native::(anonymous)::gather_cpu_kernel",
    KERNEL,
    legacy="cpu_scatter_gather_base_kernel",
)
def gather_kernel(result: Tensor, self: Tensor, dim: int, index: Tensor) -> None:
    src = _as_nd(self.numpy_view())
    idx = _as_nd(index.numpy_view())
    _as_nd(result.numpy_view())[...] = src[_coordinates(idx, dim, src.shape[dim])]


@traced(
    "kernel",
    "at::native::(anonymous)::scatter_cpu_kernel",
    KERNEL,
    legacy="cpu_scatter_gather_base_kernel",
)
def scatter_kernel(
    self: Tensor, dim: int, index: Tensor, src: Tensor | Scalar, reduce: str | None
) -> None:
    """Elements are visited in order, so of two writes to one place the last one stays."""
    out = _as_nd(self.numpy_view())
    idx = _as_nd(index.numpy_view())
    where = _coordinates(idx, dim, out.shape[dim])
    if isinstance(src, Tensor):
        s = _as_nd(src.numpy_view())
        values = s[tuple(slice(0, n) for n in idx.shape)]
    else:
        values = np.full(idx.shape, src, dtype=out.dtype)
    if reduce == "add":
        np.add.at(out, where, values)
    elif reduce == "multiply":
        np.multiply.at(out, where, values)
    else:
        out[where] = values


# ---- gather --------------------------------------------------------------------------------------
@native_function(SOURCE, name="gather")
def gather(self: Tensor, dim: int, index: Tensor, sparse_grad: bool = False) -> Tensor:
    """TORCH_META_FUNC(gather) + TORCH_IMPL_FUNC(gather_out)."""
    wrapped = maybe_wrap_dim(dim, self.dim())
    if index.numel() != 0:
        gather_shape_check(self, wrapped, index)
    scatter_gather_dtype_check("gather", self, index)
    result = empty_structured_output(
        list(index.sizes()), self.scalar_type(), self.device()
    )  # structured
    if index.numel() and not result.is_meta():  # Note [A meta tensor's kernel is no call]
        gather_kernel(result, self, wrapped, index)
    return result


# ---- scatter -------------------------------------------------------------------------------------
def _get_operator_enum(reduce: str, use_new_options: bool = False) -> str:
    TORCH_CHECK(reduce in ("add", "multiply"), "reduce argument must be either add or multiply.")
    return reduce


def scatter_impl(
    self: Tensor,
    dim: int,
    index: Tensor,
    src: Tensor | Scalar,
    reduce: str | None,
    inplace: bool,
    name: str,
) -> Tensor:
    """scatter_meta_impl's checks, then the output (self or a copy of it) and the kernel."""
    wrapped = maybe_wrap_dim(dim, self.dim())
    src_t = src if isinstance(src, Tensor) else None
    scatter_gather_dtype_check(name, self, index, src_t)
    scatter_shape_check(self, wrapped, index, src_t)
    if reduce is not None:
        _get_operator_enum(reduce)
    out = self if inplace else self.clone(memory_format="preserve_format")
    if index.numel() and not out.is_meta():  # Note [A meta tensor's kernel is no call]
        scatter_kernel(out, wrapped, index, src, reduce)
    return out


def _scatter_overloads(
    self: Tensor,
    dim: int,
    index: Tensor,
    src: Tensor | None,
    value: Scalar | None,
    reduce: str | None,
    inplace: bool,
) -> Tensor:
    """scatter's four overloads (.src, .value, .reduce, .value_reduce) in one place."""
    if src is not None and reduce is not None:
        _warn_scatter_reduce()
    source = src if src is not None else value
    assert source is not None  # the schema's overloads: .src or .value
    return scatter_impl(self, dim, index, source, reduce, inplace, "scatter")


@native_function(SOURCE, name="scatter")
def scatter(
    self: Tensor,
    dim: int,
    index: Tensor,
    src: Tensor | None = None,
    value: Scalar | None = None,
    reduce: str | None = None,
) -> Tensor:
    """scatter.src, scatter.value, scatter.reduce and scatter.value_reduce."""
    return _scatter_overloads(self, dim, index, src, value, reduce, inplace=False)


@native_function(SOURCE, name="scatter_")
def scatter_(
    self: Tensor,
    dim: int,
    index: Tensor,
    src: Tensor | None = None,
    value: Scalar | None = None,
    reduce: str | None = None,
) -> Tensor:
    return _scatter_overloads(self, dim, index, src, value, reduce, inplace=True)


_WARNED: set[str] = set()


def _warn_scatter_reduce() -> None:
    """TORCH_WARN_ONCE in scatter_meta_impl."""
    if "scatter" not in _WARNED:
        _WARNED.add("scatter")
        warnings.warn(
            "The reduce argument of torch.scatter with Tensor src is deprecated and "
            "will be removed in a future PyTorch release. Use torch.scatter_reduce "
            "instead for more reduction options.",
            UserWarning,
            stacklevel=2,
        )


@native_function(SOURCE, name="scatter_add")
def scatter_add(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    return scatter_impl(self, dim, index, src, "add", False, "scatter_add")


@native_function(SOURCE, name="scatter_add_")
def scatter_add_(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    return scatter_impl(self, dim, index, src, "add", True, "scatter_add")
