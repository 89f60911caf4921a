"""cdist_impl and cdist_backward_impl: the CPU loops of cdist and its backward.

Mirrors `aten/src/ATen/native/cpu/DistanceOpsKernel.cpp` (Dist<scalar_t>::run_parallel_cdist
and run_backward_parallel_cdist). Each distance reduces |x1[i] - x2[j]| over the columns: a count
of the nonzero differences for p=0, their sum for p=1, the root of the sum of squares for
p=2, their maximum for p=inf, and (sum |d|^p)^(1/p) otherwise. The backward sums over j the
gradient times the derivative of the distance: sign(d) for p=1, d / dist for p=2 (0 where the
distance is 0), sign(d) where |d| is the maximum for p=inf, d |d|^(p-2) / dist^(p-1) otherwise
(with p < 2 written as sign(d) |d|^(p-1) / dist^(p-1), 0 where d is 0 and p < 1).
"""

from __future__ import annotations

import math

import numpy as np

from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.native.distance_cdist import cdist_backward_stub, cdist_stub
from tensortrace.aten.tensor_body import Tensor
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/cpu/DistanceOpsKernel.cpp"


@traced("kernel", "at::native::(anonymous)::cdist_kernel_impl", SOURCE)
def cdist_kernel_impl(result: Tensor, x1: Tensor, x2: Tensor, p: float) -> None:
    a, b = x1.numpy_view(), x2.numpy_view()  # [batch, r1, m], [batch, r2, m]
    diff = np.abs(a[:, :, None, :] - b[:, None, :, :])
    with np.errstate(all="ignore"):
        if p == 0:
            dist = np.sum(diff != 0, axis=-1).astype(a.dtype)
        elif p == 1:
            dist = np.sum(diff, axis=-1)
        elif p == 2:
            dist = np.sqrt(np.sum(diff * diff, axis=-1))
        elif math.isinf(p):
            dist = np.max(diff, axis=-1)
        else:
            t = a.dtype.type
            dist = np.power(np.sum(np.power(diff, t(p)), axis=-1), t(1.0 / p))
    result.numpy_view()[...] = dist.reshape(result.numpy_view().shape)


@traced("kernel", "at::native::(anonymous)::cdist_backward_kernel_impl", SOURCE)
def cdist_backward_kernel_impl(
    grad_x1: Tensor, grad: Tensor, x1: Tensor, x2: Tensor, p: float, cdist: Tensor
) -> None:
    a = x1.numpy_view().reshape(grad_x1.numpy_view().shape)
    b = x2.numpy_view().reshape(a.shape[0], -1, a.shape[-1])
    g = grad.numpy_view().reshape(a.shape[0], a.shape[1], b.shape[1])[..., None]
    dist = cdist.numpy_view().reshape(g.shape)
    t = a.dtype.type
    d = a[:, :, None, :] - b[:, None, :, :]
    ad = np.abs(d)
    with np.errstate(all="ignore"):
        if p == 0:
            terms = np.zeros_like(d)
        elif p == 1:
            terms = np.sign(d)
        elif p < 2:
            value = np.sign(d) * np.power(ad, t(p - 1)) / np.power(dist, t(p - 1))
            terms = np.where((dist == 0) | ((d == 0) & (p < 1)), t(0), value)
        elif p == 2:
            terms = np.where(dist == 0, t(0), d / dist)
        elif math.isinf(p):
            terms = np.sign(d) * (ad == dist)
        else:
            value = d * np.power(ad, t(p - 2)) / np.power(dist, t(p - 1))
            terms = np.where(dist == 0, t(0), value)
        grad_x1.numpy_view()[...] = np.sum(g * terms, axis=2).astype(a.dtype)


REGISTER_DISPATCH(cdist_stub, cdist_kernel_impl)
REGISTER_DISPATCH(cdist_backward_stub, cdist_backward_kernel_impl)
