"""The loops of weight_norm and its backward.

Mirrors `aten/src/ATen/native/cpu/WeightNormKernel.cpp`: for dim == 0 each row of v (viewed as
(size(0), -1)) gets its L2 norm and w = v * (g / norm); for the last dim, each column of v
(viewed as (-1, size(-1))). The sums accumulate in the opmath type (float for half /
bfloat16). The backward: per-row (per-column) sums s = sum(grad_w * v), then
grad_g = s / norm and grad_v = (g / norm) * (grad_w - v * (s / norm**2)).
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten.tensor_body import Tensor
from tensortrace.trace import traced

KERNEL = "aten/src/ATen/native/cpu/WeightNormKernel.cpp"


def _rows(t: Tensor, dim: int, opmath: np.dtype | None = None) -> np.ndarray:
    """t as (channels, rest) for dim 0, as (rest, channels) transposed for the last dim."""
    arr = np.asarray(t.numpy_view())
    if opmath is not None:
        arr = arr.astype(opmath)
    if dim == 0:
        return arr.reshape(arr.shape[0] if arr.ndim else 1, -1)
    return arr.reshape(-1, arr.shape[-1]).T


def _opmath(arr: np.ndarray) -> np.dtype:
    return (
        np.dtype(np.float32)
        if arr.dtype.itemsize < 4 or arr.dtype.name == "bfloat16"
        else arr.dtype
    )


@traced("kernel", "at::native::(anonymous)::weight_norm_kernel", KERNEL)
def weight_norm_kernel(w: Tensor, norm: Tensor, v: Tensor, g: Tensor, dim: int) -> None:
    opmath = _opmath(np.asarray(v.numpy_view()))
    v_rows = _rows(v, dim, opmath)
    n = np.sqrt((v_rows * v_rows).sum(axis=1))
    g_flat = np.asarray(g.numpy_view()).astype(opmath).reshape(-1)
    w_rows = v_rows * (g_flat / n)[:, None]
    norm.numpy_view()[...] = n.reshape(norm.numpy_view().shape)
    out = w.numpy_view()
    out[...] = (w_rows if dim == 0 else w_rows.T).reshape(out.shape)


@traced("kernel", "at::native::(anonymous)::weight_norm_backward_kernel", KERNEL)
def weight_norm_backward_kernel(
    grad_v: Tensor,
    grad_g: Tensor,
    grad_w: Tensor,
    saved_v: Tensor,
    saved_g: Tensor,
    saved_norm: Tensor,
    dim: int,
) -> None:
    opmath = _opmath(np.asarray(saved_v.numpy_view()))
    v_rows = _rows(saved_v, dim, opmath)
    gw_rows = _rows(grad_w.contiguous(), dim, opmath)
    n = np.asarray(saved_norm.numpy_view()).astype(opmath).reshape(-1)
    g_flat = np.asarray(saved_g.numpy_view()).astype(opmath).reshape(-1)
    sums = (gw_rows * v_rows).sum(axis=1)
    grad_g.numpy_view()[...] = (sums / n).reshape(grad_g.numpy_view().shape)
    gv_rows = (g_flat / n)[:, None] * (gw_rows - v_rows * (sums / (n * n))[:, None])
    out = grad_v.numpy_view()
    out[...] = (gv_rows if dim == 0 else gv_rows.T).reshape(out.shape)
