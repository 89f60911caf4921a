"""REGISTER_DISPATCH(<op>_stub, &<op>_kernel_cuda): the CUDA kernel of every DispatchStub.

Mirrors the `aten/src/ATen/native/cuda/*.cu` files that register a stub's CUDA kernel (named in
KERNELS below). Note [CUDA kernels that run the CPU kernel's code]: a CUDA kernel here is its CPU
kernel's own code (same Python code object, so the same dtype dispatch and the same NumPy math)
with the CPU loops it calls bound to the CUDA ones: `cpu_kernel_vec` becomes `gpu_kernel`,
`binary_kernel_reduce` becomes `gpu_reduce_kernel`, `cpu_serial_kernel` becomes
`distribution_nullary_kernel`, and the default generator is the CUDA one. So a trace on `cuda`
shows `add_kernel_cuda` (BinaryAddSubKernel.cu) -> `gpu_kernel` (Loops.cuh) where the CPU shows
`add_kernel` (BinaryOpsKernel.cpp) -> `cpu_kernel_vec` (Loops.h), at no cost to the CPU path.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

from tensortrace.aten.cuda.cuda_generator_impl import CUDAGeneratorImpl, getDefaultCUDAGenerator
from tensortrace.aten.native.cuda.loops import GPU_LOOPS
from tensortrace.aten.native.dispatch_stub import REGISTER_CUDA_DISPATCH, DispatchStub
from tensortrace.trace import traced

CUDA = "aten/src/ATen/native/cuda/"

# stub -> (the CUDA kernel PyTorch registers for it, its .cu file)
KERNELS: dict[str, tuple[str, str]] = {
    "add_stub": ("add_kernel_cuda", "BinaryAddSubKernel.cu"),
    "mul_stub": ("mul_kernel_cuda", "BinaryMulKernel.cu"),
    "div_true_stub": ("div_true_kernel_cuda", "BinaryDivTrueKernel.cu"),
    "div_trunc_stub": ("div_trunc_kernel_cuda", "BinaryDivTruncKernel.cu"),
    "div_floor_stub": ("div_floor_kernel_cuda", "BinaryDivFloorKernel.cu"),
    "remainder_stub": ("remainder_kernel_cuda", "BinaryRemainderKernel.cu"),
    "maximum_stub": ("maximum_kernel_cuda", "MaxMinElementwiseKernel.cu"),
    "minimum_stub": ("minimum_kernel_cuda", "MaxMinElementwiseKernel.cu"),
    "eq_stub": ("eq_kernel_cuda", "CompareEQKernel.cu"),
    "ne_stub": ("ne_kernel_cuda", "CompareEQKernel.cu"),
    "lt_stub": ("lt_kernel_cuda", "CompareKernels.cu"),
    "le_stub": ("le_kernel_cuda", "CompareKernels.cu"),
    "gt_stub": ("gt_kernel_cuda", "CompareKernels.cu"),
    "ge_stub": ("ge_kernel_cuda", "CompareKernels.cu"),
    "logical_and_stub": ("logical_and_kernel_cuda", "BinaryLogicalOpsKernels.cu"),
    "logical_or_stub": ("logical_or_kernel_cuda", "BinaryLogicalOpsKernels.cu"),
    "bitwise_and_stub": ("bitwise_and_kernel_cuda", "BinaryBitwiseOpsKernels.cu"),
    "bitwise_or_stub": ("bitwise_or_kernel_cuda", "BinaryBitwiseOpsKernels.cu"),
    "pow_tensor_tensor_stub": ("pow_tensor_tensor_kernel", "PowKernel.cu"),
    "pow_tensor_scalar_stub": ("pow_tensor_scalar_kernel", "PowKernel.cu"),
    "neg_stub": ("neg_kernel_cuda", "UnarySignKernels.cu"),
    "abs_stub": ("abs_kernel_cuda", "AbsKernel.cu"),
    "exp_stub": ("exp_kernel_cuda", "UnaryOpsKernel.cu"),
    "log_stub": ("log_kernel_cuda", "UnaryLogKernels.cu"),
    "sqrt_stub": ("sqrt_kernel_cuda", "UnaryOpsKernel.cu"),
    "sin_stub": ("sin_kernel_cuda", "UnaryGeometricSinKernel.cu"),
    "cos_stub": ("cos_kernel_cuda", "UnaryGeometricCosKernel.cu"),
    "tanh_stub": ("tanh_kernel_cuda", "UnaryGeometricTanhKernel.cu"),
    "sigmoid_stub": ("sigmoid_kernel_cuda", "UnarySpecialOpsKernel.cu"),
    "reciprocal_stub": ("reciprocal_kernel_cuda", "UnaryFractionKernels.cu"),
    "bitwise_not_stub": ("bitwise_not_kernel_cuda", "UnaryOpsKernel.cu"),
    "logical_not_stub": ("logical_not_kernel_cuda", "UnaryOpsKernel.cu"),
    "clamp_stub": ("clamp_kernel_impl", "TensorCompare.cu"),
    "clamp_scalar_stub": ("clamp_scalar_kernel_impl", "TensorCompare.cu"),
    "clamp_min_scalar_stub": ("clamp_min_scalar_kernel_impl", "TensorCompare.cu"),
    "clamp_max_scalar_stub": ("clamp_max_scalar_kernel_impl", "TensorCompare.cu"),
    "where_kernel": ("where_kernel_impl", "TensorCompare.cu"),
    "max_stub": ("max_kernel_impl", "TensorCompare.cu"),
    "min_stub": ("min_kernel_impl", "TensorCompare.cu"),
    "max_all_stub": ("max_all_launch_kernel", "ReduceMaxValuesKernel.cu"),
    "min_all_stub": ("min_all_launch_kernel", "ReduceMinValuesKernel.cu"),
    "sum_stub": ("sum_kernel_cuda", "ReduceSumProdKernel.cu"),
    "prod_stub": ("prod_kernel_cuda", "ReduceSumProdKernel.cu"),
    "std_var_stub": ("std_var_kernel_cuda", "ReduceMomentKernel.cu"),
    "and_stub": ("and_kernel_cuda", "ReduceLogicKernel.cu"),
    "or_stub": ("or_kernel_cuda", "ReduceLogicKernel.cu"),
    "argmax_stub": ("argmax_kernel_cuda", "ReduceArgMaxKernel.cu"),
    "argmin_stub": ("argmin_kernel_cuda", "ReduceArgMinKernel.cu"),
    "cumsum_stub": ("cumsum_cuda_kernel", "CumsumKernel.cu"),
    "fill_stub": ("fill_kernel_cuda", "FillKernel.cu"),
    "copy_stub": ("copy_kernel_cuda", "Copy.cu"),
    "index_stub": ("index_kernel", "IndexKernel.cu"),
    "index_put_stub": ("index_put_kernel", "IndexKernel.cu"),
    "masked_fill_stub": ("masked_fill_kernel", "IndexKernel.cu"),
    "uniform_stub": ("uniform_kernel", "DistributionUniform.cu"),
    "normal_stub": ("normal_kernel", "DistributionNormal.cu"),
    "random_stub": ("random_kernel", "DistributionRandomKernel.cu"),
    "random_from_to_stub": ("random_from_to_kernel", "DistributionRandomKernel.cu"),
    "arange_stub": ("arange_cuda_kernel", "RangeFactories.cu"),
    "linspace_stub": ("linspace_cuda_kernel", "RangeFactories.cu"),
}


def cuda_generator_or_default(gen: Any) -> CUDAGeneratorImpl:
    """get_generator_or_default<CUDAGeneratorImpl>(gen, cuda::detail::getDefaultCUDAGenerator())."""
    return gen if gen is not None else getDefaultCUDAGenerator()


def _rebound(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn`'s code with the CUDA loops in place of the CPU ones (Note [CUDA kernels that run
    the CPU kernel's code])."""
    body = getattr(fn, "__wrapped__", fn)
    namespace = dict(body.__globals__)
    namespace.update({k: v for k, v in GPU_LOOPS.items() if k in namespace})
    if "get_generator_or_default" in namespace:
        namespace["get_generator_or_default"] = cuda_generator_or_default
    clone = types.FunctionType(
        body.__code__, namespace, body.__name__, body.__defaults__, body.__closure__
    )
    clone.__kwdefaults__ = body.__kwdefaults__
    return clone


def cuda_kernel(cpu_kernel: Callable[..., Any], name: str, source: str) -> Callable[..., Any]:
    """The CUDA kernel `name` of `source` (a .cu file) made from a CPU kernel."""
    kernel = _rebound(cpu_kernel)
    kernel.__name__ = name
    return traced("kernel", f"at::native::{name}", CUDA + source, legacy=name)(kernel)


def register_cuda_kernel(stub_name: str, stub: DispatchStub) -> None:
    """REGISTER_CUDA_DISPATCH(stub, <its CUDA kernel>), made from its CPU kernel. Called when
    the stub first runs on CUDA with no CUDA kernel of its own (DispatchStub.get_call_ptr: Note
    [Native modules imported on first lookup] in registry.py), as an eager import once called it
    for every stub with a CPU kernel."""
    cpu = stub.cpu_dispatch_ptr
    if cpu is None or stub.cuda_dispatch_ptr is not None:
        return
    known = KERNELS.get(stub_name)
    if known is None:  # a stub this table does not name yet: <op>_kernel_cuda in the .cu
        # counterpart of the CPU kernel's file (cpu/FooKernel.cpp -> cuda/FooKernel.cu)
        site = getattr(cpu, "__traced_site__", None)
        cpu_file = site.source.rsplit("/", 1)[-1] if site is not None else "Kernel.cpp"
        known = (
            f"{stub_name.removesuffix('_stub')}_kernel_cuda",
            cpu_file.rsplit(".", 1)[0] + ".cu",
        )
    REGISTER_CUDA_DISPATCH(stub, cuda_kernel(cpu, *known))
