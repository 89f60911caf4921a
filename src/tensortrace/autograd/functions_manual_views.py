"""The backward helpers of the view and join ops derivatives.yaml's formulas call.

Mirrors the view section of `torch/csrc/autograd/FunctionsManual.cpp` (select_backward,
slice_backward_wrapper, diagonal_backward, permute_backwards, unsqueeze_to,
as_strided_backward, split/unbind/cat/stack backward, index_backward): each gradient is written
into zeros of the input's shape, or cut out of the output's gradient.
functions_manual.py imports them into the formulas' namespace.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tensortrace.aten import functions as at
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.scalar_type import ScalarType


def _zeros(sizes: Sequence[int], like: Tensor) -> Tensor:
    return at.zeros(list(sizes), dtype=like.scalar_type(), device=like.device())  # like.options()


def _wrap_dims(dims: Any, ndim: int) -> list[int]:
    if dims is None:
        return list(range(ndim))
    if isinstance(dims, int):
        dims = [dims]
    return [maybe_wrap_dim(d, ndim) for d in dims] if len(dims) else list(range(ndim))


def unsqueeze_multiple(t: Tensor, dims: Any, n_dims: int) -> Tensor:
    """FunctionsManual's unsqueeze_multiple: put back the dims a reduction removed."""
    res = t
    for d in sorted(_wrap_dims(dims, n_dims)):
        res = res.unsqueeze(d)
    return res


def select_backward(grad: Tensor, sizes: Sequence[int], dim: int, index: int) -> Tensor:
    grad_input = _zeros(sizes, grad)
    grad_input.select(dim, index).copy_(grad)
    return grad_input


def slice_backward_wrapper(
    grad: Tensor, sizes: Sequence[int], dim: int, start: Any, end: Any, step: int
) -> Tensor:
    grad_input = _zeros(sizes, grad)
    grad_input.slice(dim, start, end, step).copy_(grad)
    return grad_input


def diagonal_backward(
    grad: Tensor, sizes: Sequence[int], offset: int, dim1: int, dim2: int
) -> Tensor:
    grad_input = _zeros(sizes, grad)
    grad_input.diagonal(offset, dim1, dim2).copy_(grad)
    return grad_input


def permute_backwards(grad: Tensor, dims: Sequence[int]) -> Tensor:
    ndim = len(dims)
    inverse = [0] * ndim
    for i, d in enumerate(dims):
        inverse[maybe_wrap_dim(d, ndim)] = i
    return grad.permute(inverse)


def unsqueeze_to(grad: Tensor, *args: Any) -> Tensor:
    """unsqueeze_to(grad, sizes) or unsqueeze_to(grad, dim(s), sizes)."""
    if len(args) == 1:
        sizes = args[0]
        res = grad
        for i, s in enumerate(sizes):
            if s == 1:
                res = res.unsqueeze(i)
        return res
    dims, sizes = args
    res = grad
    for d in sorted(_wrap_dims(dims, len(sizes))):
        if len(sizes) and sizes[d] == 1:
            res = res.unsqueeze(d)
    return res


def as_strided_backward(
    grad: Tensor,
    input_geometry: tuple[Any, ...],
    size: Sequence[int],
    stride: Sequence[int],
    storage_offset: int | None,
) -> Tensor:
    """Scatter-add grad into a buffer over the input's storage, read back in its geometry.

    Each element of the output is a storage position: offset + sum(i_k * stride_k). Adding the
    gradients at those positions (index_put_ with accumulate) sums overlapping outputs.
    """
    in_sizes, in_strides, in_offset, dtype = input_geometry
    offset = in_offset if storage_offset is None else storage_offset
    extent = in_offset + 1 + sum((s - 1) * st for s, st in zip(in_sizes, in_strides) if s > 0)
    extent = max(extent, offset + 1 + sum((s - 1) * st for s, st in zip(size, stride) if s > 0))
    device = grad.device()  # grad.options(): the buffer and the positions on grad's device
    buffer = at.zeros([extent], dtype=dtype, device=device)
    positions = at.full(list(size), offset, dtype=ScalarType.Long, device=device)
    for d, (s, st) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[d] = s
        positions = positions.add(at.arange(s, device=device).mul(st).view(shape))
    buffer.index_put_([positions.reshape([-1])], grad.reshape([-1]), True)
    return buffer.as_strided(list(in_sizes), list(in_strides), in_offset).clone()


def split_with_sizes_backward(
    grads: Sequence[Tensor | None],
    split_sizes: Sequence[int],
    dim: int,
    sizes: Sequence[int],
    self_scalar_type: Any,
) -> Tensor:
    dim = maybe_wrap_dim(dim, len(sizes))
    # torch passes self.options(): the zeros go on self's device, which every grad is on
    device = next(g.device() for g in grads if g is not None and g.defined())
    filled = []
    for g, n in zip(grads, split_sizes):
        if g is not None and g.defined():
            filled.append(g)
        else:
            shape = list(sizes)
            shape[dim] = n
            filled.append(at.zeros(shape, dtype=self_scalar_type, device=device))
    return at.cat(filled, dim)


def split_backward(
    grads: Sequence[Tensor | None],
    split_size: int,
    dim: int,
    sizes: Sequence[int],
    self_scalar_type: Any,
) -> Tensor:
    dim = maybe_wrap_dim(dim, len(sizes))
    total = sizes[dim]
    n = max(1, -(-total // split_size)) if split_size else 1
    split_sizes = [split_size] * n
    split_sizes[-1] = total - split_size * (n - 1)
    return split_with_sizes_backward(grads, split_sizes, dim, sizes, self_scalar_type)


def unbind_backward(grads: Sequence[Tensor | None], dim: int) -> Tensor:
    first = next(g for g in grads if g is not None and g.defined())
    filled = [g if g is not None and g.defined() else at.zeros_like(first) for g in grads]
    return at.stack(filled, dim)


def cat_tensors_backward(
    grad: Tensor, sizes: Sequence[Sequence[int]], dtypes: Sequence[Any], dim: int
) -> list[Tensor | None]:
    out: list[Tensor | None] = []
    ndim = grad.dim()
    dim = maybe_wrap_dim(dim, ndim)
    accumulate = 0
    for shape in sizes:
        if len(shape) == 1 and shape[0] == 0:  # a legacy empty input takes no gradient
            out.append(None)
            continue
        size = shape[dim]
        out.append(grad.narrow(dim, accumulate, size))
        accumulate += size
    return out


def stack_tensors_backward(grad: Tensor, dim: int, dtypes: Sequence[Any]) -> list[Tensor]:
    return list(grad.unbind(dim))


def index_backward(zeros_like_self: Tensor, indices: Sequence[Any], grad: Tensor) -> Tensor:
    return zeros_like_self.index_put_(list(indices), grad, True)


def repeat_backward(grad: Tensor, repeats: Sequence[int], input_shape: Sequence[int]) -> Tensor:
    """FunctionsManual.cpp: the gradient of each input element is the sum over its copies.
    grad is reshaped once so that every repeated dim r > 1 becomes (r, input size), and those
    r dims are summed (the leading dims repeat added are summed away first)."""
    if 0 in list(repeats):
        return at.zeros(list(input_shape), dtype=grad.scalar_type(), device=grad.device())
    input_dims = len(input_shape)
    num_unsqueezed = grad.dim() - input_dims
    for _ in range(num_unsqueezed):
        grad = grad.sum([0], False)
    grad_size: list[int] = []
    sum_dims: list[int] = []
    for dim in range(input_dims):
        repeat = repeats[dim + num_unsqueezed]
        if repeat != 1:
            grad_size.append(repeat)
            sum_dims.append(len(grad_size) - 1)
        grad_size.append(input_shape[dim])
    # One-time Reshape & Sum (an empty sum_dims would reduce the whole tensor)
    if sum_dims:
        grad = grad.reshape(grad_size)
        grad = grad.sum(sum_dims)
    return grad


def reverse_integers(values: Sequence[int]) -> list[int]:
    """FunctionsManual.cpp's reverse_integers: roll's gradient undoes the shifts in reverse."""
    return list(reversed(values))


def negate_integers(values: Sequence[int]) -> list[int]:
    """fmap(values, [](c10::SymInt i) { return -i; }) of roll's formula."""
    return [-v for v in values]
