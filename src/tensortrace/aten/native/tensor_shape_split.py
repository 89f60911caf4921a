"""split, split_with_sizes, chunk and unbind: one tensor into a list of views; unsafe_split/chunk.

Mirrors the split family of `aten/src/ATen/native/TensorShape.cpp`: every piece is a view of
self (narrow, as_strided or select) and shares its storage (Note [Views share storage]).
unsafe_split / unsafe_chunk return the same pieces, but their schema has no alias annotation, so
autograd does not treat them as views and each piece gets its own version counter: the RNN cells
apply sigmoid_ / tanh_ to the gate chunks in place.
"""

from __future__ import annotations

from collections.abc import Sequence

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.native.tensor_shape import SOURCE
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.autograd_state import INFERENCE_VERSION
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_INDEX
from tensortrace.c10.tensor_impl import VariableVersion


@native_function(SOURCE, name="split", legacy="at::native::split")
def split(self: Tensor, split_size: int, dim: int = 0) -> list[Tensor]:
    TORCH_CHECK(self.dim() != 0, "split expects at least a 1-dimensional tensor")
    dim = maybe_wrap_dim(dim, self.dim())
    TORCH_CHECK(
        split_size >= 0, "split expects split_size be non-negative, but got split_size=", split_size
    )
    dim_size = self.size(dim)
    TORCH_CHECK(
        split_size > 0 or dim_size == 0,
        "split_size can only be 0 if dimension size is 0, but got dimension size of ",
        dim_size,
    )
    num_splits = 1
    if split_size != 0:
        num_splits = max((dim_size + split_size - 1) // split_size, 1)
    last_split_size = split_size - (split_size * num_splits - dim_size)
    return [
        at.narrow(self, dim, i * split_size, last_split_size if i == num_splits - 1 else split_size)
        for i in range(num_splits)
    ]


@native_function(SOURCE, name="split_with_sizes", legacy="at::native::split_with_sizes")
def split_with_sizes(self: Tensor, split_sizes: Sequence[int], dim: int = 0) -> list[Tensor]:
    TORCH_CHECK(self.dim() != 0, "split expects at least a 1-dimensional tensor")
    dim = maybe_wrap_dim(dim, self.dim())
    dim_size = self.size(dim)
    results: list[Tensor] = []
    start_idx = 0
    for length in split_sizes:
        TORCH_CHECK(
            length >= 0,
            "split_with_sizes expects split_sizes have only "
            "non-negative entries, but got split_sizes=",
            list(split_sizes),
        )
        start_idx += length
    TORCH_CHECK(
        start_idx == dim_size,
        "split_with_sizes expects split_sizes to sum exactly to ",
        dim_size,
        " (input tensor's size at dimension ",
        dim,
        "), but got split_sizes=",
        list(split_sizes),
    )
    # PyTorch slices each piece with as_strided directly (no narrow/slice frames)
    start_idx = 0
    for length in split_sizes:
        sizes = list(self.sizes())
        sizes[dim] = length
        results.append(
            self.as_strided(
                sizes, self.strides(), self.storage_offset() + start_idx * self.stride(dim)
            )
        )
        start_idx += length
    return results


@native_function(SOURCE, name="chunk", legacy="at::native::chunk")
def chunk(self: Tensor, chunks: int, dim: int = 0) -> list[Tensor]:
    TORCH_CHECK(self.dim() > 0, "chunk expects at least a 1-dimensional tensor")
    TORCH_CHECK(chunks > 0, "chunk expects `chunks` to be greater than 0, got: ", chunks)
    dim = maybe_wrap_dim(dim, self.dim())
    dim_size = self.size(dim)
    split_size = (dim_size + chunks - 1) // chunks
    if split_size == 0 and dim_size == 0:
        # chunks empty pieces of size 0: split_with_sizes keeps their count
        return self.split_with_sizes([split_size] * chunks, dim)
    return self.split(split_size, dim)


@native_function(SOURCE, name="unbind", legacy="at::native::unbind")
def unbind(self: Tensor, dim: int = 0) -> list[Tensor]:
    TORCH_CHECK_INDEX(self.dim() > 0, "Dimension specified as 0 but tensor has no dimensions")
    dim = maybe_wrap_dim(dim, self.dim(), False)
    return [self.select(dim, i) for i in range(self.size(dim))]


def _own_version_counters(pieces: list[Tensor]) -> list[Tensor]:
    for t in pieces:
        impl = t.unsafeGetTensorImpl()
        if impl.version_counter_ is not INFERENCE_VERSION:  # !t.is_inference()
            impl.set_version_counter(VariableVersion())
    return pieces


@native_function(SOURCE, name="unsafe_split", legacy="at::native::unsafe_split")
def unsafe_split(self: Tensor, split_size: int, dim: int = 0) -> list[Tensor]:
    return _own_version_counters(split(self, split_size, dim))  # at::native::split


@native_function(SOURCE, name="unsafe_chunk", legacy="at::native::unsafe_chunk")
def unsafe_chunk(self: Tensor, chunks: int, dim: int = 0) -> list[Tensor]:
    TORCH_CHECK(self.dim() > 0, "chunk expects at least a 1-dimensional tensor")
    TORCH_CHECK(chunks > 0, "chunk expects `chunks` to be greater than 0, got: ", chunks)
    dim = maybe_wrap_dim(dim, self.dim())
    dim_size = self.size(dim)
    split_size = (dim_size + chunks - 1) // chunks
    if split_size == 0 and dim_size == 0:
        # torch calls unsafe_split_with_sizes, which tensortrace lacks: the same pieces, made
        # by at::native::split_with_sizes here (one aten frame fewer in the trace)
        return _own_version_counters(split_with_sizes(self, [0] * chunks, dim))
    return self.unsafe_split(split_size, dim)  # type: ignore[attr-defined,no-any-return]
