"""flip, fliplr, flipud, roll and rot90: reorder the elements of a tensor along dimensions.

Mirrors `aten/src/ATen/native/TensorTransformations.cpp`. flip allocates an output like self
(empty_like keeps self's layout) and runs flip_stub (cpu/IndexKernel.cpp) over it; roll with
several dims rolls one dim at a time, and roll along one dim is the cat of two narrows
(roll_cpu); rot90 is flip + transpose, and fliplr / flipud are flip of dim 1 / dim 0.
"""

from __future__ import annotations

from collections.abc import Sequence

from tensortrace.aten import functions as at
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.exception import TORCH_CHECK

SOURCE = "aten/src/ATen/native/TensorTransformations.cpp"

flip_stub = DECLARE_DISPATCH("flip_stub", "aten/src/ATen/native/TensorTransformations.h")


def dim_list_to_bitset(dims: Sequence[int], ndims: int) -> list[bool]:
    """WrapDimUtilsMulti.h: each dim wrapped, and no dim twice."""
    seen = [False] * max(ndims, 1)
    for d in dims:
        w = maybe_wrap_dim(d, ndims)
        TORCH_CHECK(not seen[w], "dim ", w, " appears multiple times in the list of dims")
        seen[w] = True
    return seen


@native_function(SOURCE)
def flip(self: Tensor, dims: Sequence[int]) -> Tensor:
    flip_dims = dim_list_to_bitset(dims, self.dim())
    out = at.empty_like(self, memory_format="preserve_format")
    wrapped = [d for d in range(self.dim()) if flip_dims[d]]
    if self.numel() == 0 or not wrapped:
        if self.numel():
            out.copy_(self)
        return out
    flip_stub(self.device().type_, out, self, wrapped)
    return out


@native_function(SOURCE)
def fliplr(self: Tensor) -> Tensor:
    TORCH_CHECK(self.dim() >= 2, "Input must be >= 2-d.")
    return self.flip([1])


@native_function(SOURCE)
def flipud(self: Tensor) -> Tensor:
    TORCH_CHECK(self.dim() >= 1, "Input must be >= 1-d.")
    return self.flip([0])


def roll_common(self: Tensor, shifts: Sequence[int], dims: Sequence[int]) -> Tensor | None:
    """The checks and the multi-dim / flattened cases shared by every backend's roll."""
    TORCH_CHECK(len(shifts) > 0, "`shifts` required")
    if len(dims) == 0 and len(shifts) == 1:
        flattened = self.view([self.numel()])
        return flattened.roll([shifts[0]], [0]).view(list(self.sizes()))
    TORCH_CHECK(
        len(shifts) == len(dims),
        "shifts and dimensions must align. shifts: ",
        len(shifts),
        ", dims:",
        len(dims),
    )
    if len(dims) > 1:
        first = self.roll([shifts[0]], [dims[0]])
        return first.roll(list(shifts[1:]), list(dims[1:]))
    return None


@native_function(SOURCE, name="roll")
def roll(self: Tensor, shifts: Sequence[int], dims: Sequence[int] = ()) -> Tensor:
    """roll_cpu: cat(narrow(dim, start, size - start), narrow(dim, 0, start))."""
    done = roll_common(self, shifts, dims)
    if done is not None:
        return done
    dim = maybe_wrap_dim(dims[0], self.dim())
    size = self.size(dim)
    if self.numel() == 0 or size == 0:
        return self.clone(memory_format="preserve_format")
    start = (size - shifts[0]) % size
    if start == 0:
        return self.clone(memory_format="contiguous_format")
    t0 = self.narrow(dim, start, size - start)
    t1 = self.narrow(dim, 0, start)
    return at.cat([t0, t1], dim)


@native_function(SOURCE)
def rot90(self: Tensor, k: int = 1, dims: Sequence[int] = (0, 1)) -> Tensor:
    total_dims, total_rot_dims = self.dim(), len(dims)
    TORCH_CHECK(
        total_rot_dims == 2, "expected total rotation dims == 2, but got dims = ", total_rot_dims
    )
    TORCH_CHECK(total_dims >= 2, "expected total dims >= 2, but got total dims = ", total_dims)
    TORCH_CHECK(
        dims[0] != dims[1] and abs(dims[0] - dims[1]) != total_dims,
        "expected rotation dims to be different, but got dim0 = ",
        dims[0],
        " and dim1 = ",
        dims[1],
    )
    d0, d1 = maybe_wrap_dim(dims[0], total_dims), maybe_wrap_dim(dims[1], total_dims)
    k = (4 + (k % 4)) % 4  # C++'s % keeps the sign of k: this is k mod 4 either way
    if k == 1:
        return self.flip([d1]).transpose(d0, d1)
    if k == 2:
        return self.flip([d0, d1])
    if k == 3:
        return self.flip([d0]).transpose(d0, d1)
    return self.clone(memory_format="contiguous_format")
