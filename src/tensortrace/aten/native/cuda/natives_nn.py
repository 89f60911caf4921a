"""The CUDA names of the nn natives added with the 3-D layers (the 3-D convolutions and pads, the
3-D pools and the samplers): the CPU bodies under the names and files native_functions.yaml gives
under `CUDA:`, as natives.py registers the earlier ones."""

from __future__ import annotations

from tensortrace.aten.native.cuda.natives import cuda_native

cuda_native(
    "slow_conv_transpose3d_cpu", "slow_conv_transpose3d_cuda", "NaiveConvolutionTranspose3d.cu"
)
cuda_native("slow_conv_dilated3d_cpu", "slow_conv_dilated3d_cuda", "NaiveDilatedConvolution.cu")
for _op in ("reflection_pad3d", "reflection_pad3d_backward"):
    cuda_native(f"{_op}_cpu", f"{_op}_cuda", "ReflectionPad.cu")
for _op in ("replication_pad3d", "replication_pad3d_backward"):
    cuda_native(f"{_op}_cpu", f"{_op}_cuda", "ReplicationPadding.cu")
