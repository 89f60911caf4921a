"""The CUDA loops of the emulated device: gpu_kernel, gpu_reduce_kernel and
distribution_nullary_kernel.

Mirrors `aten/src/ATen/native/cuda/Loops.cuh` (gpu_kernel: launch one thread per element over
the TensorIterator, casting dynamically where dtypes differ), `aten/src/ATen/native/cuda/Reduce.cuh`
(gpu_reduce_kernel) and `aten/src/ATen/native/cuda/DistributionTemplates.cuh`
(distribution_nullary_kernel). The emulated device computes on the host: each loop runs the same
NumPy loop as its CPU counterpart (native/cpu/loops.py, native/cpu/reduce.py), over the same
host memory, so a value computed on `cuda` equals the one computed on the CPU.
"""

from __future__ import annotations

from typing import Any

from tensortrace.aten.native.cpu import loops as cpu_loops
from tensortrace.aten.native.cpu import reduce as cpu_reduce
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.trace import traced

LOOPS = "aten/src/ATen/native/cuda/Loops.cuh"
REDUCE = "aten/src/ATen/native/cuda/Reduce.cuh"
DISTRIBUTIONS = "aten/src/ATen/native/cuda/DistributionTemplates.cuh"


def _untraced(fn: Any) -> Any:
    return getattr(fn, "__wrapped__", fn)


_cpu_kernel = _untraced(cpu_loops.cpu_kernel)
_cpu_serial_kernel = _untraced(cpu_loops.cpu_serial_kernel)
_reduce_vec = _untraced(cpu_reduce.binary_kernel_reduce_vec)
_reduce = _untraced(cpu_reduce.binary_kernel_reduce)


@traced("kernel", "at::native::gpu_kernel", LOOPS, legacy="gpu_kernel (launch_kernel)")
def gpu_kernel(it: TensorIteratorBase, loop: Any) -> None:
    _cpu_kernel(it, loop)


@traced(
    "kernel",
    "at::native::distribution_nullary_kernel",
    DISTRIBUTIONS,
    legacy="distribution_nullary_kernel",
)
def distribution_nullary_kernel(it: TensorIteratorBase, fill: Any) -> None:
    _cpu_serial_kernel(it, fill)


@traced("kernel", "at::native::gpu_reduce_kernel", REDUCE, legacy="gpu_reduce_kernel")
def gpu_reduce_kernel(it: TensorIteratorBase, reduce: Any, ident: Any) -> None:
    """A reduction whose accumulator has the output's type (sum, prod, and, or, max)."""
    _reduce_vec(it, reduce, ident)


@traced("kernel", "at::native::gpu_reduce_kernel", REDUCE, legacy="gpu_reduce_kernel")
def gpu_reduce_kernel_acc(it: TensorIteratorBase, reduce: Any) -> None:
    """A reduction with its own accumulator type (WelfordOps, ArgMaxOps)."""
    _reduce(it, reduce)


# What a CPU kernel's loops become when its code runs as a CUDA kernel (native/cuda/kernels.py).
GPU_LOOPS: dict[str, Any] = {
    "cpu_kernel": gpu_kernel,
    "cpu_kernel_vec": gpu_kernel,
    "cpu_serial_kernel": distribution_nullary_kernel,
    "binary_kernel_reduce_vec": gpu_reduce_kernel,
    "binary_kernel_reduce": gpu_reduce_kernel_acc,
}
