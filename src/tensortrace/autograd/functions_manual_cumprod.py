"""The backward helpers of cumprod and amax / amin: cumprod_backward, reversed_cumsum,
restore_reduced_dims and scale_grad_by_count.

Mirrors those functions of `torch/csrc/autograd/FunctionsManual.cpp`. cumprod_backward takes
torch's O(n) formula, reversed_cumsum(output * grad) / input, when no input is zero, and
torch's O(n^2) one (the products that omit x_k, from prefix products and cumprods of what
follows) otherwise; torch uses the latter only under create_graph and a masked O(n) variant for
zeros in a plain backward: the values are the same, the ops traced differ for inputs with
zeros. functions_manual.py imports them into the formulas' namespace.
"""

from __future__ import annotations

from collections.abc import Sequence

from tensortrace.aten import functions as at
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim


def reversed_cumsum(w: Tensor, dim: int) -> Tensor:
    return at.flip(at.cumsum(at.flip(w, [dim]), dim), [dim])  # type: ignore[no-any-return]


def cumprod_backward(grad: Tensor, input: Tensor, dim: int, output: Tensor) -> Tensor:
    if input.numel() <= 1:
        return grad
    dim = maybe_wrap_dim(dim, input.dim())
    dim_size = input.size(dim)
    if dim_size == 1:
        return grad
    input_conj, output_conj = input.conj(), output.conj()
    if not bool(input.eq(0).any().item()):  # dy_j/dx_k = y_j / x_k for k <= j
        return reversed_cumsum(output_conj.mul(grad), dim).div(input_conj)
    ones_size = list(input.sizes())
    ones_size[dim] = 1
    ones = at.ones([1], dtype=grad.scalar_type(), device=grad.device()).expand(ones_size)
    slices: list[Tensor] = []
    for k in range(dim_size):
        # the products y_j / x_k for j >= k, without dividing: prefix (x_0..x_{k-1}) times the
        # cumulative products of x_{k+1}..
        if k == 0:
            after = at.cumprod(input_conj.narrow(dim, 1, dim_size - 1), dim)
            omitted_products = at.cat([ones, after], dim)
        elif k == dim_size - 1:
            omitted_products = at.prod(input_conj.narrow(dim, 0, k), dim, True)
        else:
            prods_until_k = at.prod(input_conj.narrow(dim, 0, k), dim, True)
            after = at.cumprod(input_conj.narrow(dim, k + 1, dim_size - k - 1), dim)
            omitted_products = at.cat(
                [prods_until_k, prods_until_k.expand_as(after).mul(after)], dim
            )
        grad_slice = at.sum(grad.narrow(dim, k, dim_size - k).mul(omitted_products), [dim])
        slices.append(grad_slice.unsqueeze(dim))
    return at.cat(slices, dim)  # type: ignore[no-any-return]


def restore_reduced_dims(output: Tensor, dims: Sequence[int], keepdim: bool) -> Tensor:
    """output with the reduced dims back, of size 1."""
    if keepdim:
        return output
    total_dims = output.dim() + len(dims)
    target_shape = [0] * total_dims
    for i in dims:
        target_shape[i if i >= 0 else total_dims + i] = 1
    j = 0
    for size in output.sizes():
        while target_shape[j] > 0:
            j += 1
        target_shape[j] = size
        j += 1
    return output.reshape(target_shape)  # type: ignore[no-any-return]


def scale_grad_by_count(grad: Tensor, mask: Tensor, dims: Sequence[int]) -> Tensor:
    """The gradient shared evenly between the elements that were the max (or min)."""
    return grad.div(mask.sum(list(dims), True)).mul(mask)  # type: ignore[no-any-return]
