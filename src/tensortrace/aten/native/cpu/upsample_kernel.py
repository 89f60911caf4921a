"""The loops of the nearest and linear upsample kernels, forward and backward.

Mirrors `aten/src/ATen/native/cpu/UpSampleKernel.cpp` (upsample_generic_Nd_kernel_impl with
HelperInterpNearest / HelperInterpLinear: per spatial dim, the source indices and weights are
computed once, then each output is the weighted sum over the dims, the last dim innermost,
in the opmath type) and `cpu_upsample_nearest_backward` / `cpu_upsample_linear_backward`
(each grad_output value is added into the input cells it came from, in output order). The
input arrives as planes (N * C, *spatial); NumPy does one dim at a time for all planes.
The 2-D weights stay in the opmath type (float for half); the 1-D ones are stored as scalar_t,
as the generic kernel's compute_indices_weights_linear does. uint8 bilinear takes torch's own CPU
path, `UpSampleKernelAVXAntialias.h`: one pass per dim in int16 fixed point, each pass rounded
back to uint8.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from tensortrace.trace import traced

KERNEL = "aten/src/ATen/native/cpu/UpSampleKernel.cpp"

# per spatial dim: (index0, index1, lambda0, lambda1) of UpSample.h's helpers
LinearPlan = Sequence[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]


@traced("kernel", "at::native::(anonymous)::cpu_upsample_nearest", KERNEL)
def upsample_nearest_kernel(x: np.ndarray, indices: Sequence[np.ndarray]) -> np.ndarray:
    out = x
    for d, idx in enumerate(indices):
        out = np.take(out, idx, axis=d + 1)
    return np.ascontiguousarray(out)


def _flat_sources(
    in_shape: Sequence[int], per_dim: Sequence[np.ndarray]
) -> np.ndarray:  # flat input offsets of every output cell, in output order
    grids = np.meshgrid(*per_dim, indexing="ij")
    return np.ravel_multi_index(tuple(grids), tuple(in_shape)).reshape(-1)


@traced("kernel", "at::native::(anonymous)::cpu_upsample_nearest_backward", KERNEL)
def upsample_nearest_backward_kernel(
    go: np.ndarray, in_shape: Sequence[int], indices: Sequence[np.ndarray]
) -> np.ndarray:
    planes = go.shape[0]
    grad = np.zeros((planes, int(np.prod(in_shape))), dtype=go.dtype)
    # on the transposed views: each plane's cells accumulate in output order
    np.add.at(grad.T, _flat_sources(in_shape, indices), go.reshape(planes, -1).T)
    return grad.reshape(planes, *in_shape)


@traced("kernel", "at::native::(anonymous)::cpu_upsample_linear", KERNEL)
def upsample_linear_kernel(
    x: np.ndarray, plan: LinearPlan, opmath: type[np.floating]
) -> np.ndarray:
    out = x if x.dtype == np.uint8 else x.astype(opmath, copy=False)
    # Interpolate<n>::eval: the innermost (last) dim is interpolated first
    for d in reversed(range(len(plan))):
        idx0, idx1, lambda0, lambda1 = plan[d]
        shape = [1] * out.ndim
        shape[d + 1] = -1
        if x.dtype == np.uint8:
            out = _uint8_pass(out, d + 1, plan[d])
            continue
        if len(plan) == 1 and x.dtype.itemsize == 2:
            # 1-D, 16-bit floats: the generic kernel stores lambda1 as scalar_t and computes
            # lambda0 = 1 - lambda1 from the rounded value, itself stored as scalar_t
            lambda1 = lambda1.astype(x.dtype).astype(opmath)
            lambda0 = (opmath(1) - lambda1).astype(x.dtype).astype(opmath)
        w0 = lambda0.astype(opmath).reshape(shape)
        w1 = lambda1.astype(opmath).reshape(shape)
        out = np.take(out, idx0, axis=d + 1) * w0 + np.take(out, idx1, axis=d + 1) * w1
    return np.asarray(out).astype(x.dtype)


def _uint8_pass(
    x: np.ndarray, axis: int, dim_plan: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
) -> np.ndarray:
    """One dim of UpSampleKernelAVXAntialias.h's uint8 path (torch's CPU kernel for uint8
    bilinear): the weights as int16 fixed point (_compute_int16_weights: the most bits that
    keep 2 * w_max under 2^15), the sum rounded and shifted back, clamped to 0..255."""
    idx0, idx1, lambda0, lambda1 = dim_plan
    w_max = float(max(lambda0.max(), lambda1.max()))
    precision = 0
    while precision < 22 and int(0.5 + w_max * (1 << (precision + 1))) < (1 << 15):
        precision += 1
    shape = [1] * x.ndim
    shape[axis] = -1

    def fixed(w: np.ndarray) -> np.ndarray:
        v = w.astype(np.float64) * (1 << precision)
        return np.where(v < 0, np.trunc(v - 0.5), np.trunc(v + 0.5)).astype(np.int64).reshape(shape)

    acc = np.take(x, idx0, axis=axis).astype(np.int64) * fixed(lambda0)
    acc += np.take(x, idx1, axis=axis).astype(np.int64) * fixed(lambda1)
    return np.clip((acc + (1 << (precision - 1))) >> precision, 0, 255).astype(np.float64)


@traced("kernel", "at::native::(anonymous)::cpu_upsample_linear_backward", KERNEL)
def upsample_linear_backward_kernel(
    go: np.ndarray, in_shape: Sequence[int], plan: LinearPlan, opmath: type[np.floating]
) -> np.ndarray:
    planes = go.shape[0]
    grad = np.zeros((planes, int(np.prod(in_shape))), dtype=opmath)
    g = go.reshape(planes, -1).astype(opmath)
    # for each output cell, its 2^d corners in order (h0, w0), (h0, w1), (h1, w0), (h1, w1),
    # each getting h_lambda * w_lambda * grad_output
    offsets, weights = [], []
    for corner in itertools.product((0, 1), repeat=len(plan)):
        per_dim = [plan[d][c] for d, c in enumerate(corner)]
        offsets.append(_flat_sources(in_shape, per_dim))
        lambdas = [plan[d][2 + c] for d, c in enumerate(corner)]
        w = lambdas[0]
        for lam in lambdas[1:]:
            w = np.multiply.outer(w, lam)
        weights.append(np.asarray(w, dtype=opmath).reshape(-1))
    flat = np.stack(offsets, axis=-1).reshape(-1)
    contrib = (np.stack(weights, axis=-1)[None] * g[:, :, None]).reshape(planes, -1)
    np.add.at(grad.T, flat, contrib.T)
    return grad.astype(go.dtype).reshape(planes, *in_shape)
