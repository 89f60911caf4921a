"""copy_kernel_cuda: copies to, from and within the emulated CUDA device.

Mirrors `aten/src/ATen/native/cuda/Copy.cu`: a copy between CPU and GPU of one dtype over
contiguous memory is one cudaMemcpyAsync (HostToDevice or DeviceToHost) on the current stream,
followed by a stream synchronize unless `non_blocking`; anything else first makes contiguous
same-dtype temporaries (copy_requires_temporaries) and copies through them; a copy within the
device is a cudaMemcpyAsync DeviceToDevice, or a gpu_kernel when dtypes or layouts differ. The
emulated device's memory is host memory, so the "transfer" is a memcpy of the bytes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.copy import copy_stub
from tensortrace.aten.native.cpu.copy_kernel import math_bit_copy_loop
from tensortrace.aten.native.cuda.loops import gpu_kernel
from tensortrace.aten.native.dispatch_stub import REGISTER_CUDA_DISPATCH
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.cuda.cuda_functions import CUDAGuard
from tensortrace.c10.cuda.cuda_stream import getCurrentCUDAStream
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/cuda/Copy.cu"


def iter_is_contiguous(it: TensorIteratorBase) -> bool:
    """TensorIterator::is_contiguous: one element, or one dim of element-sized steps."""
    if it.numel() == 1:
        return True
    if it.ndim() != 1:
        return False
    return all(it.strides(i)[0] == it.element_size(i) for i in range(it.ntensors()))


def copy_requires_temporaries(it: TensorIteratorBase) -> bool:
    dst, src = it.tensor(0).device(), it.tensor(1).device()
    if dst == src:
        return False  # a copy within one device runs a kernel: no temporaries
    same_dtype = it.dtype(0) == it.dtype(1)
    if same_dtype and iter_is_contiguous(it):
        return False  # one memcpy does it
    return True


@traced("kernel", "cudaMemcpyAsync", SOURCE, symbol="cudaMemcpyAsync", legacy="cudaMemcpyAsync")
def cudaMemcpyAsync(
    dst: Tensor,
    src: Tensor,
    nbytes: int,
    kind: str,
    stream: Any,
) -> None:
    """Copy `nbytes` of contiguous memory (the CUDA runtime call; here a host memcpy)."""
    if nbytes:
        np.copyto(dst.numpy_view(), src.numpy_view(), casting="no")


@traced("kernel", "at::cuda::memcpy_and_sync", "c10/cuda/CUDAFunctions.h", legacy="memcpy_and_sync")
def memcpy_and_sync(dst: Tensor, src: Tensor, nbytes: int, kind: str, stream: Any) -> None:
    """cudaMemcpyAsync, then cudaStreamSynchronize (a blocking copy)."""
    cudaMemcpyAsync(dst, src, nbytes, kind, stream)
    stream.synchronize()


def copy_device_to_device(it: TensorIteratorBase, non_blocking: bool) -> None:
    if it.dtype(0) == it.dtype(1) and iter_is_contiguous(it):
        dst, src = it.tensor(0), it.tensor(1)
        with CUDAGuard(src.device().index):
            cudaMemcpyAsync(
                dst,
                src,
                it.numel() * it.element_size(0),
                "cudaMemcpyDeviceToDevice",
                getCurrentCUDAStream(),
            )
        _fix_math_bits(dst, src)
    else:
        gpu_kernel(it, math_bit_copy_loop(it))  # direct_copy_kernel_cuda / conj / neg


@traced(
    "kernel",
    "at::native::conj_physical_ / neg_ (after a memcpy)",
    SOURCE,
    legacy="dst.conj_physical_()",
)
def _apply_math_bits(dst: Tensor, conj: bool, neg: bool) -> None:
    view = dst.numpy_view()
    if conj:
        np.conjugate(view, out=view)
    if neg:
        np.negative(view, out=view)


def _fix_math_bits(dst: Tensor, src: Tensor) -> None:
    """Copy.cu: a memcpy copies the bytes; differing conj / neg bits are applied after it."""
    conj, neg = dst.is_conj() != src.is_conj(), dst.is_neg() != src.is_neg()
    if conj or neg:
        _apply_math_bits(dst, conj, neg)


@traced("kernel", "at::native::copy_kernel_cuda", SOURCE, legacy="copy_kernel_cuda")
def copy_kernel_cuda(it: TensorIteratorBase, non_blocking: bool) -> None:
    if copy_requires_temporaries(it):
        dst, src = it.tensor(0), it.tensor(1)
        # type conversions run on the GPU for copies to the GPU (or non_blocking ones), else on
        # the CPU; then a same-dtype copy of contiguous tensors, and a copy back into dst
        if dst.device().is_cuda() or non_blocking:
            dst_contig = (
                dst
                if dst.is_contiguous()
                else at.empty_like(dst, memory_format="contiguous_format")
            )
            src_contig = src.to(it.dtype(0)).expand_as(dst).contiguous()
        else:
            same_type = it.dtype(0) == it.dtype(1)
            dst_contig = (
                dst
                if dst.is_contiguous() and same_type
                else at.empty_like(dst, dtype=it.dtype(1), memory_format="contiguous_format")
            )
            src_contig = src.expand_as(dst).contiguous()
        dst_contig.copy_(src_contig, non_blocking)
        if not dst_contig.is_same(dst):
            dst.copy_(dst_contig, non_blocking)
        return
    dst, src = it.tensor(0), it.tensor(1)
    if dst.device().is_cuda() and src.device().is_cuda():
        copy_device_to_device(it, non_blocking)
        return
    to_device = dst.device().is_cuda()
    kind = "cudaMemcpyHostToDevice" if to_device else "cudaMemcpyDeviceToHost"
    with CUDAGuard((dst if to_device else src).device().index):
        stream = getCurrentCUDAStream()
        nbytes = it.numel() * it.element_size(0)
        if non_blocking:
            cudaMemcpyAsync(dst, src, nbytes, kind, stream)
        else:
            memcpy_and_sync(dst, src, nbytes, kind, stream)
    _fix_math_bits(dst, src)


REGISTER_CUDA_DISPATCH(copy_stub, copy_kernel_cuda)
