"""reflection_pad1d/2d/3d, replication_pad1d/2d/3d and their backwards.

Mirrors `aten/src/ATen/native/ReflectionPad.cpp`, `ReplicationPadding.cpp`, the input checks of
`Padding.h` (check_valid_input) and the CPU kernels of `cpu/PaddingKernel.cpp`: each output
position along a padded dim reads one input position, the mirror image about the edge
(reflect: -1 -> 1) or the edge itself (replicate: -1 -> 0). The kernels gather those positions
with NumPy fancy indexing; the backwards scatter-add the gradient back through them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.trace import traced

REFLECTION = "aten/src/ATen/native/ReflectionPad.cpp"
REPLICATION = "aten/src/ATen/native/ReplicationPadding.cpp"


def _sizes(t: Tensor) -> str:
    return "[" + ", ".join(str(s) for s in t.sizes()) + "]"


def _check_valid_input(input: Tensor, padding: Sequence[int], dim: int) -> None:
    """padding::check_valid_input<dim> of Padding.h: an empty batch, but no other empty dim."""
    TORCH_CHECK(
        len(padding) == 2 * dim,
        "padding size is expected to be ",
        2 * dim,
        ", but got: ",
        len(padding),
    )
    input_dim = input.dim()
    is_batch_mode = input_dim == dim + 2
    first = 1 if is_batch_mode else 0
    valid = input_dim in (dim + 1, dim + 2) and all(
        input.size(d) != 0 for d in range(first, input_dim)
    )
    TORCH_CHECK(
        valid,
        "Expected ",
        dim + 1,
        "D or ",
        dim + 2,
        "D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for "
        "input, but got: ",
        _sizes(input),
    )


def _reflect(j: int, size: int) -> int:
    if j < 0:
        return -j
    return 2 * (size - 1) - j if j >= size else j


def _replicate(j: int, size: int) -> int:
    return min(max(j, 0), size - 1)


def _positions(size: int, pad_l: int, pad_r: int, at_edge: Callable[[int, int], int]) -> np.ndarray:
    return np.array([at_edge(i - pad_l, size) for i in range(size + pad_l + pad_r)], np.int64)


def _check_pad_sizes(
    input: Tensor, padding: Sequence[int], dim: int, reflect: bool
) -> list[tuple[int, int, int]]:
    """(size, pad_l, pad_r) per padded dim, innermost last; the checks of the meta functions."""
    _check_valid_input(input, padding, dim)
    ndim = input.dim()
    result: list[tuple[int, int, int]] = []
    for k in range(dim):  # k = 0 is W (padding[0:2]), k = 1 is H (padding[2:4])
        pad_l, pad_r = padding[2 * k], padding[2 * k + 1]
        d = ndim - 1 - k
        if reflect:
            TORCH_CHECK(
                pad_l < input.size(d) and pad_r < input.size(d),
                "Argument #",
                4 + 2 * k,
                ": Padding size should be less than the corresponding input dimension, but got: "
                "padding (",
                pad_l,
                ", ",
                pad_r,
                ") at dimension ",
                d,
                " of input ",
                _sizes(input),
            )
        result.insert(0, (input.size(d), pad_l, pad_r))
    out = [s + pl + pr for s, pl, pr in result]
    if dim == 1:
        TORCH_CHECK(
            out[0] >= 1,
            "input (W: ",
            result[0][0],
            ") is too small. Calculated output W: ",
            out[0],
        )
    elif dim == 3:
        TORCH_CHECK(
            out[0] >= 1 or out[1] >= 1 or out[2] >= 1,
            "input (D: ",
            result[0][0],
            " H: ",
            result[1][0],
            ", W: ",
            result[2][0],
            ") is too small. Calculated output D: ",
            out[0],
            " H: ",
            out[1],
            " W: ",
            out[2],
        )
    else:
        TORCH_CHECK(
            out[1] >= 1 or out[0] >= 1,
            "input (H: ",
            result[0][0],
            ", W: ",
            result[1][0],
            ") is too small. Calculated output H: ",
            out[0],
            " W: ",
            out[1],
        )
    return result


def _index(dims: list[tuple[int, int, int]], reflect: bool) -> tuple[np.ndarray, ...]:
    at_edge = _reflect if reflect else _replicate
    return np.ix_(*(_positions(s, pl, pr, at_edge) for s, pl, pr in dims))


@traced(
    "kernel",
    "at::native::(anonymous)::cpu_padding",
    "aten/src/ATen/native/cpu/PaddingKernel.cpp",
    legacy="cpu_padding",
)
def _padding_kernel(x: np.ndarray, index: tuple[np.ndarray, ...]) -> np.ndarray:
    key: tuple[Any, ...] = (Ellipsis, *index)
    return np.ascontiguousarray(x[key])


@traced(
    "kernel",
    "at::native::(anonymous)::cpu_padding_backward",
    "aten/src/ATen/native/cpu/PaddingKernel.cpp",
    legacy="cpu_padding_backward",
)
def _padding_backward_kernel(
    go: np.ndarray, shape: Sequence[int], index: tuple[np.ndarray, ...]
) -> np.ndarray:
    grad = np.zeros(tuple(shape), dtype=go.dtype)
    key: Any = (Ellipsis, *index)
    np.add.at(grad, key, go)
    return grad


def _from_numpy(arr: np.ndarray, like: Tensor) -> Tensor:
    result = at.empty(list(arr.shape), dtype=like.scalar_type(), device=like.device())
    if arr.size:
        result.numpy_view()[...] = arr
    return result


def _np(t: Tensor) -> np.ndarray:
    return np.asarray(t.contiguous().numpy_view())


def _pad(self: Tensor, padding: Sequence[int], dim: int, reflect: bool) -> Tensor:
    dims = _check_pad_sizes(self, list(padding), dim, reflect)
    if self.is_meta():  # Note [A meta tensor's kernel is no call]
        return self.new_empty([*list(self.sizes())[:-dim], *(s + pl + pr for s, pl, pr in dims)])
    return _from_numpy(_padding_kernel(_np(self), _index(dims, reflect)), self)


def _pad_backward(
    grad_output: Tensor, self: Tensor, padding: Sequence[int], dim: int, reflect: bool
) -> Tensor:
    dims = _check_pad_sizes(self, list(padding), dim, reflect)
    if grad_output.is_meta():  # Note [A meta tensor's kernel is no call]
        return grad_output.new_empty(list(self.sizes()))
    grad = _padding_backward_kernel(_np(grad_output), list(self.sizes()), _index(dims, reflect))
    return _from_numpy(grad, grad_output)


@native_function(REFLECTION, name="reflection_pad1d")
def reflection_pad1d(self: Tensor, padding: Sequence[int]) -> Tensor:
    return _pad(self, padding, 1, True)


@native_function(REFLECTION, name="reflection_pad1d_backward")
def reflection_pad1d_backward(grad_output: Tensor, self: Tensor, padding: Sequence[int]) -> Tensor:
    return _pad_backward(grad_output, self, padding, 1, True)


@native_function(REFLECTION, name="reflection_pad2d_cpu")
def reflection_pad2d_cpu(self: Tensor, padding: Sequence[int]) -> Tensor:
    return _pad(self, padding, 2, True)


@native_function(REFLECTION, name="reflection_pad2d_backward_cpu")
def reflection_pad2d_backward_cpu(
    grad_output: Tensor, self: Tensor, padding: Sequence[int]
) -> Tensor:
    return _pad_backward(grad_output, self, padding, 2, True)


@native_function(REPLICATION, name="replication_pad1d")
def replication_pad1d(self: Tensor, padding: Sequence[int]) -> Tensor:
    return _pad(self, padding, 1, False)


@native_function(REPLICATION, name="replication_pad1d_backward")
def replication_pad1d_backward(grad_output: Tensor, self: Tensor, padding: Sequence[int]) -> Tensor:
    return _pad_backward(grad_output, self, padding, 1, False)


@native_function(REPLICATION, name="replication_pad2d")
def replication_pad2d(self: Tensor, padding: Sequence[int]) -> Tensor:
    return _pad(self, padding, 2, False)


@native_function(REPLICATION, name="replication_pad2d_backward_cpu")
def replication_pad2d_backward_cpu(
    grad_output: Tensor, self: Tensor, padding: Sequence[int]
) -> Tensor:
    return _pad_backward(grad_output, self, padding, 2, False)


@native_function(REFLECTION, name="reflection_pad3d_cpu")
def reflection_pad3d_cpu(self: Tensor, padding: Sequence[int]) -> Tensor:
    return _pad(self, padding, 3, True)


@native_function(REFLECTION, name="reflection_pad3d_backward_cpu")
def reflection_pad3d_backward_cpu(
    grad_output: Tensor, self: Tensor, padding: Sequence[int]
) -> Tensor:
    return _pad_backward(grad_output, self, padding, 3, True)


@native_function(REPLICATION, name="replication_pad3d_cpu")
def replication_pad3d_cpu(self: Tensor, padding: Sequence[int]) -> Tensor:
    return _pad(self, padding, 3, False)


@native_function(REPLICATION, name="replication_pad3d_backward_cpu")
def replication_pad3d_backward_cpu(
    grad_output: Tensor, self: Tensor, padding: Sequence[int]
) -> Tensor:
    return _pad_backward(grad_output, self, padding, 3, False)
