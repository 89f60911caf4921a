"""cat and stack: join tensors along a dimension.

Mirrors `cat` and `stack` of `aten/src/ATen/native/TensorShape.cpp` (kept in a module of their
own). cat is a structured kernel: TORCH_PRECOMPUTE_META_FUNC(cat) checks the inputs (no 0-dim
tensors, equal sizes except along `dim`, the legacy rule that skips 1-d empty tensors), computes
the promoted dtype and the output size and sets the output; TORCH_IMPL_FUNC(cat_out_cpu) copies
each input into its slice of the output. stack splits a new dimension out of a cat with `view`
(or unsqueezes every input when the new dimension is the last one).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.memory_overlap import assert_no_internal_overlap, assert_no_partial_overlap
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_TYPE, TORCH_CHECK_VALUE
from tensortrace.c10.scalar_type import canCast, promoteTypes
from tensortrace.c10.tensor_options import TensorOptions
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/TensorShape.cpp"


def cat_should_skip_tensor(t: Tensor) -> bool:
    """Legacy: a 1-d tensor with no elements is skipped whatever its shape."""
    return t.numel() == 0 and t.dim() == 1


def legacy_cat_wrap_dim(dim: int, tensors: Sequence[Tensor]) -> int:
    for t in tensors:
        if t.dim() == 1 and t.sizes()[0] == 0:
            continue
        return maybe_wrap_dim(dim, t.dim())
    return dim


def check_cat_shape_except_dim(first: Tensor, second: Tensor, dimension: int, index: int) -> None:
    first_dims, second_dims = first.dim(), second.dim()
    TORCH_CHECK(
        first_dims == second_dims,
        "Tensors must have same number of dimensions: got ",
        first_dims,
        " and ",
        second_dims,
    )
    for d in range(first_dims):
        if d == dimension:
            continue
        a, b = first.sizes()[d], second.sizes()[d]
        TORCH_CHECK(
            a == b,
            "Sizes of tensors must match except in dimension ",
            dimension,
            ". Expected size ",
            a,
            " but got size ",
            b,
            " for tensor number ",
            index,
            " in the list.",
        )


@meta_function("cat", SOURCE)
def meta_cat(meta: Any, tensors: Sequence[Tensor], dim: int) -> None:
    for i, t in enumerate(tensors):
        TORCH_CHECK(
            t.dim() > 0, "zero-dimensional tensor (at position ", i, ") cannot be concatenated"
        )
    dim = legacy_cat_wrap_dim(dim, tensors)
    TORCH_CHECK_VALUE(len(tensors) > 0, "torch.cat(): expected a non-empty list of Tensors")
    valid = next((i for i, t in enumerate(tensors) if not cat_should_skip_tensor(t)), len(tensors))
    result = meta.maybe_get_output(0)
    out_dtype = tensors[0].scalar_type()
    for t in tensors[1:]:
        out_dtype = promoteTypes(out_dtype, t.scalar_type())
    all_contiguous = True
    if result.defined():
        TORCH_CHECK_TYPE(
            canCast(out_dtype, result.scalar_type()),
            "torch.cat(): input types can't be cast to the desired output type ",
            result.scalar_type(),
        )
        out_dtype = result.scalar_type()
        all_contiguous = result.is_contiguous()
    sizes: list[int] = [0]
    device = tensors[0].device()
    if valid < len(tensors):
        first = tensors[valid]
        TORCH_CHECK(dim <= first.dim(), "torch.cat(): dimension ", dim, "out of range")
        size_at_dim = 0
        for i, t in enumerate(tensors):
            if not cat_should_skip_tensor(t):
                check_cat_shape_except_dim(first, t, dim, i)
                size_at_dim += t.sizes()[dim]
                all_contiguous = all_contiguous and t.is_contiguous()
            else:
                all_contiguous = False
        sizes = list(first.sizes())
        sizes[dim] = size_at_dim
        device = first.device()
    meta.set_output_raw_strided(0, sizes, [], TensorOptions(out_dtype, device))
    if result.defined() and valid < len(tensors):
        assert_no_internal_overlap(result)
        for t in tensors:
            assert_no_partial_overlap(result, t)
    # TORCH_PRECOMPUTE_STRUCT(cat): what the impl receives besides the arguments
    meta.precomputed = {"dim": dim, "valid": valid, "all_contiguous": all_contiguous}


@traced(
    "kernel",
    "at::native::cat_serial_kernel",
    "aten/src/ATen/native/cpu/CatKernel.cpp",
    legacy="THTensor_(catArray)",
)
def cat_copy_kernel(result: Tensor, tensors: Sequence[Tensor], dim: int) -> None:
    """Copy each input into its slice of the output (with a cast where the dtypes differ)."""
    out = result.numpy_view()
    offset = 0
    for t in tensors:
        if cat_should_skip_tensor(t):
            continue
        n = t.sizes()[dim]
        index = (slice(None),) * dim + (slice(offset, offset + n),)
        np.copyto(out[index], t.numpy_view(), casting="unsafe")
        offset += n


@impl_function("cat_out_cpu", SOURCE, legacy="legacy::cpu::_th_cat")
def cat_out_cpu(meta: Any, tensors: Sequence[Tensor], dim: int, result: Tensor) -> None:
    if result.numel() == 0:
        return
    cat_copy_kernel(result, tensors, meta.precomputed["dim"])


# ---- stack ---------------------------------------------------------------------------------------
def check_stack_inputs(tensors: Sequence[Tensor], dim: int) -> None:
    entry_shape = list(tensors[0].sizes())
    for i in range(1, len(tensors)):
        TORCH_CHECK(
            list(tensors[i].sizes()) == entry_shape,
            "stack expects each tensor to be equal size, but got ",
            entry_shape,
            " at entry 0 and ",
            list(tensors[i].sizes()),
            " at entry ",
            i,
        )


def get_stack_inputs(tensors: Sequence[Tensor], dim: int) -> list[Tensor]:
    check_stack_inputs(tensors, dim)
    return [t.unsqueeze(dim) for t in tensors]


@native_function(SOURCE, name="stack", legacy="at::native::stack")
def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    TORCH_CHECK(len(tensors) > 0, "stack expects a non-empty TensorList")
    wrapped_dim = maybe_wrap_dim(dim, tensors[0].dim() + 1)
    if wrapped_dim < tensors[0].dim():
        check_stack_inputs(tensors, wrapped_dim)
        result_sizes = list(tensors[0].sizes())
        result_sizes.insert(wrapped_dim, len(tensors))
        out = at.cat(tensors, wrapped_dim)
        return out.view(result_sizes)  # one can always split a dimension with view
    # the new last dimension cannot come from a view of the cat: unsqueeze each input
    return at.cat(get_stack_inputs(tensors, wrapped_dim), dim)


@native_function(SOURCE, name="stack_out", legacy="at::native::stack_out")
def stack_out(tensors: Sequence[Tensor], dim: int = 0, out: Tensor | None = None) -> Tensor:
    assert out is not None
    TORCH_CHECK(len(tensors) > 0, "stack expects a non-empty TensorList")
    wrapped_dim = maybe_wrap_dim(dim, tensors[0].dim() + 1)
    return at.cat(get_stack_inputs(tensors, wrapped_dim), wrapped_dim, out=out)
