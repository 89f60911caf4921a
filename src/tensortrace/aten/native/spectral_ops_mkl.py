"""The FFT kernels under torch.fft: _fft_r2c, _fft_c2r and _fft_c2c on the CPU.

Mirrors `aten/src/ATen/native/mkl/SpectralOps.cpp` (the MKL build torch's CPU wheels ship):
each kernel sorts the transformed dims by input stride, and `_exec_fft` permutes the batch dims
first (in stride order), collapses them into one, runs the batched transform into a contiguous
buffer and gives the result the original dim order with `as_strided_`
(Note [FFT output layout]). NumPy's pocketfft does the element work, as torch's non-MKL builds
do; the normalization is SpectralOpsUtils.h's fft_norm_mode (none, by_root_n, by_n).

Note [FFT output layout]
An FFT result is not contiguous in general: the transformed dims are innermost in memory and
the batch dims keep the input's stride order, so `fft(x, dim=0)` of a (3, 4) tensor has strides
(1, 3). The `_out` kernels compute into such a buffer and copy into `out`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.native.resize import resize_output
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import toComplexType, toRealValueType

MKL = "aten/src/ATen/native/mkl/SpectralOps.cpp"

# SpectralOpsUtils.h's fft_norm_mode -> NumPy's norm for (forward, inverse) transforms
NumpyNorm = Literal["backward", "ortho", "forward"]
_NUMPY_NORM: dict[int, tuple[NumpyNorm, NumpyNorm]] = {
    0: ("backward", "forward"),
    1: ("ortho", "ortho"),
    2: ("forward", "backward"),
}


def _numpy_norm(normalization: int, forward: bool) -> NumpyNorm:
    TORCH_CHECK(normalization in _NUMPY_NORM, "Unsupported normalization type", normalization)
    return _NUMPY_NORM[normalization][0 if forward else 1]


def _partition_batch_first(ndim: int, transformed: Sequence[int]) -> list[int]:
    """std::partition's order (libstdc++, bidirectional): the batch dims first."""
    perm = list(range(ndim))
    first, last = 0, ndim
    while True:
        while first != last and perm[first] not in transformed:
            first += 1
        if first == last:
            break
        last -= 1
        while first != last and perm[last] in transformed:
            last -= 1
        if first == last:
            break
        perm[first], perm[last] = perm[last], perm[first]
        first += 1
    return perm


def _stride_sorted(dims: Sequence[int], strides: Sequence[int]) -> list[int]:
    """std::sort by decreasing stride (an insertion sort for so few dims: stable)."""
    return sorted(dims, key=lambda d: -strides[d])


def _exec_fft(
    out: Tensor, self: Tensor, out_sizes: Sequence[int], dim: Sequence[int], values: Any
) -> Tensor:
    """_exec_fft's layout: batch dims first in stride order, collapsed, then the transformed
    dims in `dim`'s order, contiguous; `values` (the transform, in logical order) fill it."""
    ndim = self.dim()
    batch_dims = ndim - len(dim)
    perm = _partition_batch_first(ndim, dim)
    perm = _stride_sorted(perm[:batch_dims], self.strides()) + list(dim)
    batch_size = 1
    for d in perm[:batch_dims]:
        batch_size *= self.size(d)
    out.resize_([batch_size, *(out_sizes[d] for d in dim)])
    batched_strides = out.strides()
    out_strides = [0] * ndim
    batch_numel = 1
    for i in range(batch_dims - 1, -1, -1):
        out_strides[perm[i]] = batch_numel * batched_strides[0]
        batch_numel *= out_sizes[perm[i]]
    for i in range(batch_dims, ndim):
        out_strides[perm[i]] = batched_strides[1 + (i - batch_dims)]
    out.as_strided_(list(out_sizes), out_strides, out.storage_offset())
    if out.numel():
        out.numpy_view()[...] = values
    return out


def _sort_dims(self: Tensor, dim: Sequence[int], exclude_last: bool = False) -> list[int]:
    """Sort the transform dims by input layout; a onesided transform keeps its last dim last."""
    dims = list(dim)
    if exclude_last:
        return _stride_sorted(dims[:-1], self.strides()) + dims[-1:]
    return _stride_sorted(dims, self.strides())


def _fill_with_conjugate_symmetry(half: Any, dim: Sequence[int], full_size: int) -> Any:
    """_fft_fill_with_conjugate_symmetry_: X[k] = conj(X[-k mod n]) past the onesided half,
    the index mirrored in every transformed dim (Note [ Fourier Transform Conjugate Symmetry ])."""
    last = dim[-1]
    mirrored = np.conj(half)
    for d in dim[:-1]:  # -k mod n along the other transformed dims
        mirrored = np.roll(np.flip(mirrored, axis=d), 1, axis=d)
    rest = full_size - half.shape[last]
    take = np.flip(np.take(mirrored, np.arange(1, rest + 1), axis=last), axis=last)
    return np.concatenate([half, take], axis=last)


@native_function(MKL)
def _fft_c2r_mkl(
    self: Tensor, dim: Sequence[int], normalization: int, last_dim_size: int
) -> Tensor:
    TORCH_CHECK(self.is_complex())
    # NOTE: Multi-dimensional C2R transforms don't agree with numpy where the input isn't
    # strictly Hermitian-symmetric: torch runs a C2C transform over the other dims first
    input = self
    dim = list(dim)
    if len(dim) > 1:
        input = _fft_c2c_mkl(self, dim[:-1], normalization, False)
        dim = dim[-1:]
    out_sizes = list(input.sizes())
    out_sizes[dim[-1]] = last_dim_size
    out = at.empty(out_sizes, dtype=toRealValueType(self.scalar_type()), device=self.device())
    values = None
    if out.numel():
        values = np.fft.irfft(
            input.numpy_view(),
            n=last_dim_size,
            axis=dim[-1],
            norm=_numpy_norm(normalization, False),
        )
    return _exec_fft(out, input, out_sizes, dim, values)


@native_function(MKL)
def _fft_r2c_mkl(self: Tensor, dim: Sequence[int], normalization: int, onesided: bool) -> Tensor:
    TORCH_CHECK(self.is_floating_point())
    dim = list(dim)
    out_sizes = list(self.sizes())
    last_dim = dim[-1]
    full_size = out_sizes[last_dim]
    if onesided:
        out_sizes[last_dim] = full_size // 2 + 1
    sorted_dims = _sort_dims(self, dim, exclude_last=True)
    out = at.empty(out_sizes, dtype=toComplexType(self.scalar_type()), device=self.device())
    values = None
    if out.numel():
        x = self.numpy_view()
        values = np.fft.rfftn(x, axes=dim, norm=_numpy_norm(normalization, True))
        if not onesided:
            values = _fill_with_conjugate_symmetry(values, dim, full_size)
    return _exec_fft(out, self, out_sizes, sorted_dims, values)


@native_function(MKL)
def _fft_c2c_mkl(self: Tensor, dim: Sequence[int], normalization: int, forward: bool) -> Tensor:
    TORCH_CHECK(self.is_complex())
    if not dim:
        return self.clone()
    sorted_dims = _sort_dims(self, dim)
    out = at.empty(list(self.sizes()), dtype=self.scalar_type(), device=self.device())
    values = None
    if out.numel():
        transform = np.fft.fftn if forward else np.fft.ifftn
        values = transform(
            self.numpy_view(), axes=list(dim), norm=_numpy_norm(normalization, forward)
        )
    return _exec_fft(out, self, list(self.sizes()), sorted_dims, values)


# ---- the _out variants (shared by PocketFFT and MKL) -------------------------------------------
@native_function(MKL)
def _fft_r2c_mkl_out(
    self: Tensor, dim: Sequence[int], normalization: int, onesided: bool, out: Tensor
) -> Tensor:
    result = _fft_r2c_mkl(self, dim, normalization, True)
    if onesided:
        resize_output(out, result.sizes())
        return out.copy_(result)
    resize_output(out, self.sizes())
    last_dim = dim[-1]
    out_slice = out.slice(last_dim, 0, result.size(last_dim))
    out_slice.copy_(result)
    full = _fill_with_conjugate_symmetry(result.numpy_view(), list(dim), self.size(last_dim))
    out.numpy_view()[...] = full
    return out


@native_function(MKL)
def _fft_c2r_mkl_out(
    self: Tensor, dim: Sequence[int], normalization: int, last_dim_size: int, out: Tensor
) -> Tensor:
    result = _fft_c2r_mkl(self, dim, normalization, last_dim_size)
    resize_output(out, result.sizes())
    return out.copy_(result)


@native_function(MKL)
def _fft_c2c_mkl_out(
    self: Tensor, dim: Sequence[int], normalization: int, forward: bool, out: Tensor
) -> Tensor:
    result = _fft_c2c_mkl(self, dim, normalization, forward)
    resize_output(out, result.sizes())
    return out.copy_(result)
