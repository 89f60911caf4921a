"""The composite shape ops of TensorShape.cpp: ops built from views, cat and copy_.

Mirrors those functions of `aten/src/ATen/native/TensorShape.cpp` that own no kernel: diag,
diag_embed, diagflat, block_diag, atleast_1d/2d/3d, hstack, vstack, dstack, column_stack,
movedim / moveaxis, swapaxes, repeat, tile, narrow_copy and meshgrid, with repeat_interleave
of `Repeat.cpp`. Each is written as ATen writes it,
so the trace of `torch.hstack` shows the atleast_1d + cat it is made of, and `repeat` the
expand + copy_ into a strided view of its result.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType, promoteTypes
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/TensorShape.cpp"


# ---- diagonals ----------------------------------------------------------------------------------
@native_function(SOURCE)
def diag_embed(self: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """zeros of the new size, and self copied into its diagonal(offset, dim1, dim2)."""
    n_dims = self.dim() + 1
    dim1 = maybe_wrap_dim(dim1, n_dims)
    dim2 = maybe_wrap_dim(dim2, n_dims)
    TORCH_CHECK(dim1 != dim2, "diagonal dimensions cannot be identical ", dim1, ", ", dim2)
    new_dim_len = abs(offset) + (self.size(-1) if self.dim() else 1)
    sizes = list(self.sizes())[:-1] if self.dim() else []
    for d in sorted((dim1, dim2)):
        sizes.insert(d, new_dim_len)
    result = at.zeros(sizes, dtype=self.scalar_type(), device=self.device())  # self.options()
    result.diagonal(offset, dim1, dim2).copy_(self)
    return result


@native_function(SOURCE)
def diag(self: Tensor, diagonal: int = 0) -> Tensor:
    ndim = self.dim()
    TORCH_CHECK(ndim == 1 or ndim == 2, "diag(): Supports 1D or 2D tensors. Got ", ndim, "D")
    if ndim == 1:
        return at.diag_embed(self, diagonal)
    return self.diagonal(diagonal).clone(memory_format="contiguous_format")


@native_function(SOURCE)
def diagflat(self: Tensor, offset: int = 0) -> Tensor:
    return self.contiguous().view([-1]).diag(offset)


@native_function(SOURCE)
def block_diag(tensors: Sequence[Tensor]) -> Tensor:
    if not tensors:
        return at.empty([1, 0])
    dtype = tensors[0].scalar_type()
    rows = cols = 0
    shapes = []
    for i, t in enumerate(tensors):
        TORCH_CHECK(
            t.dim() <= 2,
            "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input ",
            i,
            " has ",
            t.dim(),
            " dimensions",
        )
        dtype = promoteTypes(dtype, t.scalar_type())
        shape = list(t.sizes()) if t.dim() == 2 else [1, t.numel()]
        shapes.append(shape)
        rows, cols = rows + shape[0], cols + shape[1]
    # on the first tensor's device (block_diag_allocate_output: tensors[0].options())
    result = at.zeros([rows, cols], dtype=dtype, device=tensors[0].device())
    r = c = 0
    for t, (h, w) in zip(tensors, shapes):
        block = t if t.dim() == 2 else t.view([h, w])
        result.slice(0, r, r + h).slice(1, c, c + w).copy_(block)
        r, c = r + h, c + w
    return result


# ---- atleast_Nd and the stacks -----------------------------------------------------------------
@native_function(SOURCE)
def atleast_1d(self: Tensor) -> Tensor:
    return self.reshape([1]) if self.dim() == 0 else self


@native_function(SOURCE)
def atleast_2d(self: Tensor) -> Tensor:
    if self.dim() == 0:
        return self.reshape([1, 1])
    return self.unsqueeze(0) if self.dim() == 1 else self


@native_function(SOURCE)
def atleast_3d(self: Tensor) -> Tensor:
    if self.dim() == 0:
        return self.reshape([1, 1, 1])
    if self.dim() == 1:
        return self.unsqueeze(0).unsqueeze(-1)
    return self.unsqueeze(-1) if self.dim() == 2 else self


def _each(fn: Any) -> Any:
    def sequence(tensors: Sequence[Tensor]) -> list[Tensor]:
        return [fn(t) for t in tensors]

    return sequence


for _n, _f in (("atleast_1d", atleast_1d), ("atleast_2d", atleast_2d), ("atleast_3d", atleast_3d)):
    _s = _each(_f)
    _s.__name__ = _n
    native_function(SOURCE, name=_n)(_s)


@native_function(SOURCE)
def hstack(tensors: Sequence[Tensor]) -> Tensor:
    TORCH_CHECK(len(tensors) > 0, "hstack expects a non-empty TensorList")
    rep = at.atleast_1d(list(tensors))
    return at.cat(rep, 0 if rep[0].dim() == 1 else 1)


@native_function(SOURCE)
def vstack(tensors: Sequence[Tensor]) -> Tensor:
    TORCH_CHECK(len(tensors) > 0, "vstack expects a non-empty TensorList")
    return at.cat(at.atleast_2d(list(tensors)), 0)


@native_function(SOURCE)
def dstack(tensors: Sequence[Tensor]) -> Tensor:
    TORCH_CHECK(len(tensors) > 0, "dstack expects a non-empty TensorList")
    return at.cat(at.atleast_3d(list(tensors)), 2)


@native_function(SOURCE)
def column_stack(tensors: Sequence[Tensor]) -> Tensor:
    TORCH_CHECK(len(tensors) > 0, "column_stack expects a non-empty TensorList")
    reshaped = [t.reshape([t.numel(), 1]) if t.dim() <= 1 else t for t in tensors]
    return at.hstack(reshaped)


# ---- movedim, swapaxes ---------------------------------------------------------------------------
@native_function(SOURCE)
def movedim(self: Tensor, source: Sequence[int] | int, destination: Sequence[int] | int) -> Tensor:
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    TORCH_CHECK(
        len(src) == len(dst),
        "movedim: Invalid source or destination dims: source (",
        src,
        " dims) should contain the same number of dims as destination (",
        dst,
        " dims)",
    )
    n = self.dim()
    norm_src = [maybe_wrap_dim(d, n) for d in src]
    norm_dst = [maybe_wrap_dim(d, n) for d in dst]
    TORCH_CHECK(
        len(set(norm_src)) == len(norm_src), "movedim: repeated dim in `source` (", src, ")"
    )
    TORCH_CHECK(
        len(set(norm_dst)) == len(norm_dst), "movedim: repeated dim in `destination` (", dst, ")"
    )
    if n <= 1:
        return self.alias()
    order = [-1] * n
    for s, d in zip(norm_src, norm_dst):
        order[d] = s
    rest = iter(d for d in range(n) if d not in norm_src)
    order = [o if o != -1 else next(rest) for o in order]
    return self.permute(order)


@native_function(SOURCE)
def moveaxis(self: Tensor, source: Sequence[int] | int, destination: Sequence[int] | int) -> Tensor:
    return self.movedim(source, destination)


@native_function(SOURCE)
def swapaxes(self: Tensor, axis0: int, axis1: int) -> Tensor:
    return self.transpose(axis0, axis1)


@native_function(SOURCE)
def swapdims(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return self.transpose(dim0, dim1)


# ---- repeat, tile, narrow_copy -------------------------------------------------------------------
@native_function(SOURCE)
def repeat(self: Tensor, repeats: Sequence[int]) -> Tensor:
    """expand self (padded with leading 1s) into a (r0, s0, r1, s1, ...) view of the result."""
    TORCH_CHECK(
        len(repeats) >= self.dim(),
        "Number of dimensions of repeat dims can not be "
        "smaller than number of dimensions of tensor",
    )
    num_new = len(repeats) - self.dim()
    padded = [1] * num_new + list(self.sizes())
    target = [p * r for p, r in zip(padded, repeats)]
    result = at.empty(target, dtype=self.scalar_type(), device=self.device())
    if result.numel() == 0:
        return result
    interleaved = [v for r, p in zip(repeats, padded) for v in (r, p)]
    xtensor = self.reshape([v for p in padded for v in (1, p)]).expand(interleaved)
    result.view(interleaved).copy_(xtensor)
    return result


@native_function(SOURCE)
def tile(self: Tensor, dims: Sequence[int]) -> Tensor:
    """tile pads `dims` with leading 1s up to self.dim(), then repeats."""
    size = [1] * (self.dim() - len(dims)) + list(dims)
    return self.repeat(size)


@native_function(SOURCE, name="narrow_copy_dense_cpu")
def narrow_copy(self: Tensor, dim: int, start: int, length: int) -> Tensor:
    return self.narrow(dim, start, length).clone(memory_format="contiguous_format")


# ---- meshgrid ------------------------------------------------------------------------------------
_WARNED: set[str] = set()


@native_function(SOURCE)
def meshgrid(tensors: Sequence[Tensor], indexing: str | None = None) -> list[Tensor]:
    """Each input viewed along its own dim and expanded to the grid (views, no copies)."""
    import warnings

    if indexing is None:  # meshgrid(tensors): TORCH_WARN_ONCE, then 'ij'
        if "meshgrid" not in _WARNED:
            _WARNED.add("meshgrid")
            warnings.warn(
                "torch.meshgrid: in an upcoming release, it will be required to pass "
                "the indexing argument.",
                UserWarning,
                stacklevel=2,
            )
        indexing = "ij"
    size = len(tensors)
    TORCH_CHECK(size > 0, "meshgrid expects a non-empty TensorList")
    for i in range(size - 1):
        TORCH_CHECK(
            tensors[i].scalar_type() == tensors[i + 1].scalar_type(),
            "meshgrid expects all tensors to have the same dtype",
        )
    refs = list(tensors)
    swap = False
    if indexing == "xy":
        swap = size >= 2
        if swap:
            refs[0], refs[1] = refs[1], refs[0]
    else:
        TORCH_CHECK(
            indexing == "ij",
            'torch.meshgrid: indexing must be one of "xy" or "ij", but received: ',
            indexing,
        )
    for t in refs:
        TORCH_CHECK(
            t.dim() <= 1, "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: ", t
        )
    shape = [t.numel() for t in refs]
    grids = []
    for i, t in enumerate(refs):
        view_shape = [1] * size
        view_shape[i] = -1
        grids.append(t.view(view_shape).expand(shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return grids


# ---- repeat_interleave (Repeat.cpp) --------------------------------------------------------------
REPEAT = "aten/src/ATen/native/Repeat.cpp"


@traced("kernel", "at::native::compute_cpu", REPEAT, legacy="compute_cpu")
def _repeat_interleave_kernel(result: Tensor, repeats: Any) -> None:
    result.numpy_view()[...] = np.repeat(np.arange(repeats.size), repeats)


@native_function(REPEAT, name="repeat_interleave_cpu")
def repeat_interleave_cpu(repeats: Tensor, output_size: int | None = None) -> Tensor:
    """repeat_interleave(repeats): each index i, repeats[i] times (the index of the others)."""
    TORCH_CHECK(repeats.dim() == 1, "repeat_interleave only accept 1D vector as repeat")
    TORCH_CHECK(
        repeats.scalar_type() in (ScalarType.Long, ScalarType.Int),
        "repeats has to be Long or Int tensor",
    )
    reps = repeats.numpy_view().astype(np.int64)
    TORCH_CHECK(bool((reps >= 0).all()), "repeats can not be negative")
    total = int(reps.sum())
    if output_size is not None:
        TORCH_CHECK(output_size == total, "allocated size does not match required size")
    result = at.empty([total], dtype=repeats.scalar_type(), device=repeats.device())
    if total:
        _repeat_interleave_kernel(result, reps)
    return result


@native_function(REPEAT)
def repeat_interleave(
    self: Tensor, repeats: Tensor | int, dim: int | None = None, output_size: int | None = None
) -> Tensor:
    """repeat_interleave.self_Tensor / self_int: index_select with the repeated indices, or
    (an int) unsqueeze + expand + flatten."""
    inp = self if dim is not None else self.flatten()
    if isinstance(repeats, int):
        TORCH_CHECK(repeats >= 0, "Repeats must be non-negative")
        d = maybe_wrap_dim(dim if dim is not None else 0, self.dim())
        sizes = list(inp.sizes())
        sizes.insert(d + 1, repeats)
        return inp.unsqueeze(d + 1).expand(sizes).flatten(d, d + 1)
    d = dim if dim is not None else 0
    if repeats.dim() == 0 or (repeats.dim() == 1 and repeats.size(0) == 1):
        reps = repeats.reshape([1]).expand([inp.size(d)])
    elif repeats.dim() == 1:
        TORCH_CHECK(
            repeats.size(0) == inp.size(d),
            "repeats must have the same size as input along dim, but got repeats.size(0) = ",
            repeats.size(0),
            " and input.size(",
            d,
            ") = ",
            inp.size(d),
        )
        reps = repeats
    else:
        TORCH_CHECK(False, "repeats must be 0-dim or 1-dim tensor")
    return inp.index_select(d, at.repeat_interleave(reps, output_size=output_size))


# ---- aliases: broadcast_to, concat / concatenate, row_stack, ravel ----------------------------
@native_function(SOURCE)
def broadcast_to(self: Tensor, size: Sequence[int]) -> Tensor:
    return self.expand(list(size))


@native_function(SOURCE)
def concat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    return at.cat(list(tensors), dim)


@native_function(SOURCE)
def concatenate(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    return at.cat(list(tensors), dim)


@native_function(SOURCE)
def row_stack(tensors: Sequence[Tensor]) -> Tensor:
    return at.vstack(list(tensors))


@native_function(SOURCE)
def ravel(self: Tensor) -> Tensor:
    return self.contiguous().view([-1])


@native_function(SOURCE, name="reshape_as", legacy="at::native::reshape_as")
def reshape_as(self: Tensor, other: Tensor) -> Tensor:
    return self.reshape(other.sizes())


# ---- tensor_split, hsplit, vsplit, dsplit ------------------------------------------------------
@native_function(
    SOURCE, name="tensor_split_sections_symint", legacy="at::native::tensor_split_sections_symint"
)
def tensor_split_sections_symint(self: Tensor, sections: int, dim: int = 0) -> list[Tensor]:
    """`sections` slices, the first size % sections of them one element longer."""
    TORCH_CHECK(
        self.dim() > 0,
        "tensor_split expected at least a 1-dimensional tensor, but got a tensor with ",
        self.dim(),
        " dims",
    )
    dim_ = maybe_wrap_dim(dim, self.dim())
    TORCH_CHECK(sections > 0, "number of sections must be larger than 0, got ", sections)
    dim_size = self.sizes()[dim_]
    min_split_size, num_splits_one_extra = divmod(dim_size, sections)
    splits: list[Tensor] = []
    start_idx = 0
    for split_idx in range(sections):
        split_size = min_split_size + 1 if num_splits_one_extra > split_idx else min_split_size
        splits.append(self.slice(dim_, start_idx, start_idx + split_size))
        start_idx += split_size
    return splits


@native_function(
    SOURCE, name="tensor_split_indices_symint", legacy="at::native::tensor_split_indices_symint"
)
def tensor_split_indices_symint(self: Tensor, indices: Sequence[int], dim: int = 0) -> list[Tensor]:
    """Slices between consecutive indices, and from the last index to the end."""
    TORCH_CHECK(
        self.dim() > 0,
        "tensor_split expected at least a 1-dimensional tensor, but got a tensor with ",
        self.dim(),
        " dims",
    )
    dim_ = maybe_wrap_dim(dim, self.dim())
    splits: list[Tensor] = []
    start_idx = 0
    for end_idx in indices:
        splits.append(self.slice(dim_, start_idx, end_idx))
        start_idx = end_idx
    splits.append(self.slice(dim_, start_idx, self.sizes()[dim_]))
    return splits


def _register_nsplit(name: str, min_dim: int, dim_of: Any) -> None:
    def check_dims(self: Tensor) -> None:
        TORCH_CHECK(
            self.dim() >= min_dim,
            f"torch.{name} requires a tensor with at least "
            f"{min_dim} dimension, but got a tensor with ",
            self.dim(),
            " dimensions!",
        )

    def by_sections(self: Tensor, sections: int) -> list[Tensor]:
        check_dims(self)
        dim = dim_of(self)
        TORCH_CHECK(
            sections != 0 and self.sizes()[dim] % sections == 0,
            f"torch.{name} attempted to split along dimension ",
            dim,
            ", but the size of the dimension ",
            self.sizes()[dim],
            " is not divisible by the split_size ",
            sections,
            "!",
        )
        return at.tensor_split(self, sections, dim)

    def by_indices(self: Tensor, indices: Sequence[int]) -> list[Tensor]:
        check_dims(self)
        return at.tensor_split(self, indices, dim_of(self))

    native_function(SOURCE, name=name, legacy=f"at::native::{name}")(by_sections)
    native_function(SOURCE, name=name, legacy=f"at::native::{name}")(by_indices)


_register_nsplit("hsplit", 1, lambda t: 0 if t.dim() == 1 else 1)
_register_nsplit("vsplit", 2, lambda t: 0)
_register_nsplit("dsplit", 3, lambda t: 2)
