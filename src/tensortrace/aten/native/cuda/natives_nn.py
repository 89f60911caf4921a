"""The CUDA names of the nn natives added with the 3-D layers (the 3-D convolutions and pads, the
3-D pools and the samplers): the CPU bodies under the names and files native_functions.yaml gives
under `CUDA:`, as natives.py registers the earlier ones."""

from __future__ import annotations

from tensortrace.aten.native.cuda.natives import CUDA, cuda_impl, cuda_native

cuda_native(
    "slow_conv_transpose3d_cpu", "slow_conv_transpose3d_cuda", "NaiveConvolutionTranspose3d.cu"
)
cuda_native("slow_conv_dilated3d_cpu", "slow_conv_dilated3d_cuda", "NaiveDilatedConvolution.cu")
for _op in ("reflection_pad3d", "reflection_pad3d_backward"):
    cuda_native(f"{_op}_cpu", f"{_op}_cuda", "ReflectionPad.cu")
for _op in ("replication_pad3d", "replication_pad3d_backward"):
    cuda_native(f"{_op}_cpu", f"{_op}_cuda", "ReplicationPadding.cu")
for _op in ("max_pool3d_with_indices", "max_pool3d_with_indices_backward"):
    cuda_native(f"{_op}_cpu", f"{_op}_cuda", "DilatedMaxPool3d.cu")
cuda_native("max_unpooling3d_forward_cpu", "max_unpooling3d_forward_cuda", "MaxUnpooling.cu")
cuda_native(
    "max_unpooling3d_forward_out_cpu", "max_unpooling3d_forward_out_cuda", "MaxUnpooling.cu"
)
for _op in ("adaptive_max_pool3d", "adaptive_max_pool3d_backward"):
    cuda_impl(f"{_op}_out_cpu", f"{_op}_out_cuda", CUDA + "AdaptiveMaxPooling3d.cu")
for _op, _cu in (
    ("upsample_trilinear3d", "UpSampleTrilinear3d.cu"),
    ("upsample_bicubic2d", "UpSampleBicubic2d.cu"),
    ("_upsample_bilinear2d_aa", "UpSampleBilinear2d.cu"),
    ("_upsample_bicubic2d_aa", "UpSampleBicubic2d.cu"),
):
    cuda_impl(f"{_op}_out_cpu", f"{_op}_out_cuda", CUDA + _cu)
    cuda_impl(f"{_op}_backward_out_cpu", f"{_op}_backward_out_cuda", CUDA + _cu)
for _op in (
    "grid_sampler_2d",
    "grid_sampler_2d_backward",
    "grid_sampler_3d",
    "grid_sampler_3d_backward",
):
    cuda_native(f"{_op}_cpu", f"{_op}_cuda", "GridSampler.cpp")
