"""Broadcasting: the shape two tensors broadcast to, the strides of an expanded view, and
the sum of a broadcast gradient back to its input's shape.

Mirrors `aten/src/ATen/ExpandUtils.cpp` (infer_size_impl, inferExpandGeometry) and
`ExpandUtils.h` (sum_to), with PyTorch's error messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tensortrace.c10.exception import TORCH_CHECK, torchCheckFail
from tensortrace.trace import traced

if TYPE_CHECKING:
    from tensortrace.aten.tensor_body import Tensor


def infer_size(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    """Align from the right; each pair of sizes must be equal or one of them must be 1."""
    # the shorter shape padded with leading 1s, then one walk over the pairs from the right
    # (as infer_size_impl: the first mismatch from the right is the one reported)
    ndim_a, ndim_b = len(a), len(b)
    if ndim_a < ndim_b:
        a = (1,) * (ndim_b - ndim_a) + tuple(a)
    elif ndim_b < ndim_a:
        b = (1,) * (ndim_a - ndim_b) + tuple(b)
    i = len(a)
    expanded = [0] * i
    for size_a, size_b in zip(reversed(a), reversed(b)):
        i -= 1
        if size_a == size_b or size_b == 1:
            expanded[i] = size_a
        elif size_a == 1:
            expanded[i] = size_b
        else:
            torchCheckFail(
                "The size of tensor a (",
                size_a,
                ") must match the size of tensor b (",
                size_b,
                ") at non-singleton dimension ",
                i,
            )
    return tuple(expanded)


@traced("native", "at::inferExpandGeometry", "aten/src/ATen/ExpandUtils.cpp")
def inferExpandGeometry(
    tensor_sizes: Sequence[int], tensor_strides: Sequence[int], sizes: Sequence[int]
) -> tuple[list[int], list[int]]:
    """The expanded sizes, with stride 0 wherever a size-1 (or new, leading) dim is repeated."""
    ndim = len(sizes)
    tensor_dim = len(tensor_sizes)
    if tensor_dim == 0:
        return list(sizes), [0] * ndim
    expanded_sizes = [0] * ndim
    expanded_strides = [0] * ndim
    for i in range(ndim - 1, -1, -1):
        offset = ndim - 1 - i
        dim = tensor_dim - 1 - offset
        size = tensor_sizes[dim] if dim >= 0 else 1
        stride = (
            tensor_strides[dim] if dim >= 0 else (expanded_sizes[i + 1] * expanded_strides[i + 1])
        )
        target_size = sizes[i]
        if target_size == -1:
            TORCH_CHECK(
                dim >= 0,
                "The expanded size of the tensor (",
                target_size,
                ") isn't allowed in a leading, non-existing dimension ",
                i,
            )
            target_size = size
        if size != target_size:
            TORCH_CHECK(
                size == 1,
                "The expanded size of the tensor (",
                target_size,
                ") must match the existing size (",
                size,
                ") at non-singleton dimension ",
                i,
                ".  Target sizes: ",
                list(sizes),
                ".  Tensor sizes: ",
                list(tensor_sizes),
            )
            size = target_size
            stride = 0
        expanded_sizes[i] = size
        expanded_strides[i] = stride
    return expanded_sizes, expanded_strides


def sum_to(tensor: Tensor, shape: Sequence[int]) -> Tensor:
    """at::sum_to: sum the broadcast dimensions away (ExpandUtils.h)."""
    if len(shape) == 0:
        return tensor.sum()
    sizes = tensor.sizes()
    leading = len(sizes) - len(shape)
    reduce_dims = list(range(leading))
    reduce_dims += [
        i for i in range(leading, len(sizes)) if shape[i - leading] == 1 and sizes[i] != 1
    ]
    if reduce_dims:
        tensor = tensor.sum(reduce_dims, True)
    return tensor.view(list(shape)) if leading > 0 else tensor
