"""The native functions native_functions.yaml names under `CUDA:` where PyTorch's CUDA function
differs from the CPU one: empty_cuda, mm_out_cuda, cat_out_cuda, nonzero_cuda...

Mirrors the `at::native` functions of `aten/src/ATen/native/cuda/` (TensorFactories.cu, Blas.cpp,
Shape.cu, Nonzero.cu, Indexing.cu, CUDAScalar.cu, Resize.cpp, RangeFactories.cu) and the
generated `UfuncCUDA_add.cu`. Where only the name and the file differ (the algorithm is the
CPU one on host memory, as everywhere on the emulated device), the CUDA function is the CPU
function's body registered under the CUDA name, so the trace names the CUDA function.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tensortrace.aten import functions as at
from tensortrace.aten.cuda import empty_tensor
from tensortrace.aten.cuda.cuda_generator_impl import getDefaultCUDAGenerator
from tensortrace.aten.native.activation_more import _rrelu_with_noise_out
from tensortrace.aten.native.cuda import blas  # noqa: F401 - registers the Blas.cpp natives
from tensortrace.aten.native.registry import (
    IMPL_FUNCTIONS,
    NATIVE_FUNCTIONS,
    native_function,
)
from tensortrace.aten.native.tensor_factories import _check_memory_format
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.device import Device
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType
from tensortrace.trace import traced

CUDA = "aten/src/ATen/native/cuda/"


def _body(fn: Any) -> Any:
    return getattr(fn, "__wrapped__", fn)


def cuda_native(cpu_name: str, cuda_name: str, source: str) -> None:
    """at::native::<cuda_name> in <source>: the CPU function's body under the CUDA name."""
    for fn in NATIVE_FUNCTIONS[cpu_name]:
        native_function(CUDA + source, name=cuda_name)(_body(fn))


def cuda_impl(cpu_name: str, cuda_name: str, source: str) -> None:
    """TORCH_IMPL_FUNC(<cuda_name>) of a structured kernel, in <source>."""
    IMPL_FUNCTIONS[cuda_name] = traced(
        "native", f"at::native::structured_{cuda_name}::impl", source
    )(_body(IMPL_FUNCTIONS[cpu_name]))


# ---- TensorFactories.cu -----------------------------------------------------------------------
@native_function(CUDA + "TensorFactories.cu")
def empty_cuda(
    size: Sequence[int],
    dtype: ScalarType | None = None,
    layout: str | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
    memory_format: str | None = None,
) -> Tensor:
    _check_memory_format(memory_format)
    return empty_tensor.empty_cuda(size, dtype, device, pin_memory)


@native_function(CUDA + "TensorFactories.cu")
def empty_strided_cuda(
    size: Sequence[int],
    stride: Sequence[int],
    dtype: ScalarType | None = None,
    layout: str | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    return empty_tensor.empty_strided_cuda(size, stride, dtype, device, pin_memory)


# ---- Indexing.cu: the mask must be on self's device (no TensorIterator CPU-scalar rule) --------
_masked_fill__cpu = _body(NATIVE_FUNCTIONS["masked_fill__cpu"][0])


@native_function(CUDA + "Indexing.cu")
def masked_fill__cuda(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    TORCH_CHECK(
        self.device() == mask.device(),
        "expected self and mask to be on the same device, but got mask on ",
        mask.device(),
        " and self on ",
        self.device(),
    )
    return _masked_fill__cpu(self, mask, value)


# ---- same algorithm, CUDA name and file -------------------------------------------------------
cuda_native("eye_out_cpu", "eye_out_cuda", "TensorFactories.cu")
cuda_native("arange_out", "arange_cuda_out", "RangeFactories.cu")
cuda_native("linspace_out", "linspace_cuda_out", "RangeFactories.cu")
cuda_native("resize_", "resize_cuda_", "Resize.cpp")
cuda_native("_local_scalar_dense_cpu", "_local_scalar_dense_cuda", "CUDAScalar.cu")
cuda_native("batch_norm_cpu", "batch_norm_cuda", "Normalization.cu")
cuda_native("batch_norm_backward_cpu", "batch_norm_backward_cuda", "Normalization.cu")
cuda_native("layer_norm_cpu", "layer_norm_cuda", "layer_norm_kernel.cu")
cuda_native("layer_norm_backward_cpu", "layer_norm_backward_cuda", "layer_norm_kernel.cu")
cuda_native("embedding_dense_backward_cpu", "embedding_dense_backward_cuda", "Embedding.cu")
# Distributions.cu: the samplers draw from the CPU generator on the emulated device
for _cpu, _cuda in (
    ("_s_gamma_cpu", "_s_gamma_cuda"),
    ("_s_dirichlet_cpu", "_s_dirichlet_cuda"),
    ("_s_poisson_cpu", "_s_poisson_cuda"),
    ("_s_binomial_cpu", "_s_binomial_cuda"),
    ("_standard_gamma_grad_cpu", "_standard_gamma_grad_cuda"),
    ("_dirichlet_grad_cpu", "_dirichlet_grad_cuda"),
):
    cuda_native(_cpu, _cuda, "Distributions.cu")
for _op in (
    "_embedding_bag_forward_only",
    "_embedding_bag",
    "_embedding_bag_dense_backward",
    "_embedding_bag_per_sample_weights_backward",
):
    cuda_native(f"{_op}_cpu", f"{_op}_cuda", "EmbeddingBag.cu")
cuda_native("set_storage_cpu_", "set_storage_cuda_", "TensorShapeCUDA.cpp")
cuda_native("dot", "dot_cuda", "Blas.cpp")
cuda_native("vdot", "vdot_cuda", "Blas.cpp")
cuda_native("nonzero_cpu", "nonzero_cuda", "Nonzero.cu")

cuda_impl("ufunc_add_CPU", "ufunc_add_CUDA", "build/aten/src/ATen/UfuncCUDA_add.cu")
cuda_impl("cat_out_cpu", "cat_out_cuda", CUDA + "Shape.cu")
cuda_impl(
    "slow_conv_transpose2d_structured_cpu",
    "slow_conv_transpose2d_structured_cuda",
    CUDA + "NaiveConvolutionTranspose2d.cu",
)
cuda_impl("mm_out_cpu", "mm_out_cuda", CUDA + "Blas.cpp")
cuda_impl("bmm_out_cpu", "bmm_out_cuda", CUDA + "Blas.cpp")
cuda_impl("baddbmm_out_cpu", "baddbmm_out_cuda", CUDA + "Blas.cpp")
cuda_impl("addmm_out_cpu", "addmm_out_cuda", CUDA + "Blas.cpp")
cuda_impl("addmv_out_cpu", "addmv_out_cuda", CUDA + "Blas.cpp")
cuda_native("trace_cpu", "trace_cuda", "TriangularOps.cu")
cuda_native("histogram_histc", "_histc_cuda", "SummaryOps.cu")
cuda_native("histogram_histc_out", "_histc_out_cuda", "SummaryOps.cu")

# ---- ops merged after the CUDA entries were written: torch's CUDA names, the CPU bodies ----
cuda_impl("softmax_cpu_out", "softmax_cuda_out", CUDA + "SoftMax.cu")
cuda_impl("log_softmax_cpu_out", "log_softmax_cuda_out", CUDA + "SoftMax.cu")
cuda_impl("softmax_backward_cpu_out", "softmax_backward_cuda_out", CUDA + "SoftMax.cu")
cuda_impl("log_softmax_backward_cpu_out", "log_softmax_backward_cuda_out", CUDA + "SoftMax.cu")
cuda_impl("nll_loss_forward_out_cpu", "nll_loss_forward_out_cuda", CUDA + "Loss.cu")
cuda_impl("nll_loss_backward_out_cpu", "nll_loss_backward_out_cuda", CUDA + "Loss.cu")
cuda_native("log_sigmoid_forward_cpu", "log_sigmoid_forward_cuda", "ActivationLogSigmoidKernel.cu")
cuda_native("roll", "roll_cuda", "TensorTransformations.cu")
cuda_native("index_select_cpu_", "index_select_cuda", "Indexing.cu")
cuda_native("masked_select_cpu", "masked_select_cuda", "Indexing.cu")
cuda_native("masked_scatter__cpu", "masked_scatter__cuda", "IndexKernel.cu")
cuda_native("cpu_equal", "cuda_equal", "Equal.cpp")
cuda_native("_unique2_cpu", "_unique2_cuda", "Unique.cu")
cuda_native("unique_dim_cpu", "unique_dim_cuda", "Unique.cu")
cuda_native("unique_consecutive_cpu", "unique_consecutive_cuda", "Unique.cu")
cuda_native("unique_dim_consecutive_cpu", "unique_dim_consecutive_cuda", "Unique.cu")
cuda_native("repeat_interleave_cpu", "repeat_interleave_cuda", "Repeat.cu")
cuda_native("tril_indices_cpu", "tril_indices_cuda", "TensorFactories.cu")
cuda_native("triu_indices_cpu", "triu_indices_cuda", "TensorFactories.cu")
cuda_native("count_nonzero", "count_nonzero_cuda", "ReduceSumProdKernel.cu")

# ---- torch.nn's activations (nn-activations) --------------------------------------------------
cuda_impl("gelu_out_cpu", "gelu_out_cuda", CUDA + "Activation.cpp")
cuda_impl("gelu_backward_out_cpu", "gelu_backward_out_cuda", CUDA + "Activation.cpp")
cuda_native("glu_backward_cpu", "glu_backward_cuda", "ActivationGluKernel.cu")
cuda_native("glu_backward_cpu_out", "glu_backward_cuda_out", "ActivationGluKernel.cu")
cuda_native(
    "log_sigmoid_backward_cpu", "log_sigmoid_backward_cuda", "ActivationLogSigmoidKernel.cu"
)
cuda_native(
    "log_sigmoid_backward_cpu_out", "log_sigmoid_backward_cuda_out", "ActivationLogSigmoidKernel.cu"
)
cuda_native("binary_cross_entropy_cpu", "binary_cross_entropy_cuda", "Loss.cu")
cuda_native("binary_cross_entropy_backward_cpu", "binary_cross_entropy_backward_cuda", "Loss.cu")


# ---- more of torch.nn's activations and losses (nn-act-loss3) ---------------------------------
@native_function(CUDA + "RreluWithNoise.cu")
def rrelu_with_noise_out_cuda(
    self: Tensor,
    noise: Tensor,
    lower: Any,
    upper: Any,
    training: bool,
    generator: Any,
    out: Tensor,
) -> Tensor:
    """The training path draws from the CUDA generator (Note [The emulated CUDA generator])."""
    return _rrelu_with_noise_out(
        self,
        noise,
        lower,
        upper,
        training,
        generator,
        out,
        getDefaultCUDAGenerator,
        "rrelu_with_noise_out_cuda",
    )


_CUDA_RRELU = (getDefaultCUDAGenerator, "rrelu_with_noise_out_cuda")


@native_function(CUDA + "RreluWithNoise.cu")
def rrelu_with_noise_cuda(
    self: Tensor,
    noise: Tensor,
    lower: Any = 0.125,
    upper: Any = 1.0 / 3.0,
    training: bool = False,
    generator: Any = None,
) -> Tensor:
    output = at.empty_like(self, memory_format="contiguous_format")
    return _rrelu_with_noise_out(
        self, noise, lower, upper, training, generator, output, *_CUDA_RRELU
    )


@native_function(CUDA + "RreluWithNoise.cu")
def rrelu_with_noise_cuda_(
    self: Tensor,
    noise: Tensor,
    lower: Any = 0.125,
    upper: Any = 1.0 / 3.0,
    training: bool = False,
    generator: Any = None,
) -> Tensor:
    return _rrelu_with_noise_out(self, noise, lower, upper, training, generator, self, *_CUDA_RRELU)


cuda_native("multi_margin_loss_cpu", "multi_margin_loss_cuda", "MultiMarginLoss.cu")
cuda_native("multi_margin_loss_cpu_out", "multi_margin_loss_cuda_out", "MultiMarginLoss.cu")
cuda_native(
    "multi_margin_loss_cpu_backward", "multi_margin_loss_cuda_backward", "MultiMarginLoss.cu"
)
cuda_native(
    "multi_margin_loss_cpu_backward_out",
    "multi_margin_loss_cuda_backward_out",
    "MultiMarginLoss.cu",
)
for _cpu, _cuda in (
    ("multilabel_margin_loss_forward_cpu", "multilabel_margin_loss_forward_cuda"),
    ("multilabel_margin_loss_forward_out_cpu", "multilabel_margin_loss_forward_out_cuda"),
    ("multilabel_margin_loss_backward_cpu", "multilabel_margin_loss_backward_cuda"),
    ("multilabel_margin_loss_backward_cpu_out", "multilabel_margin_loss_backward_cuda_out"),
):
    cuda_native(_cpu, _cuda, "MultiLabelMarginCriterion.cu")

cuda_native("ctc_loss_cpu", "ctc_loss_gpu", "LossCTC.cu")
cuda_native("ctc_loss_backward_cpu", "ctc_loss_backward_gpu", "LossCTC.cu")


for _op, _cu in (
    ("upsample_nearest1d", "UpSampleNearest1d.cu"),
    ("upsample_nearest2d", "UpSampleNearest2d.cu"),
    ("upsample_nearest3d", "UpSampleNearest3d.cu"),
    ("_upsample_nearest_exact1d", "UpSampleNearest1d.cu"),
    ("_upsample_nearest_exact2d", "UpSampleNearest2d.cu"),
    ("_upsample_nearest_exact3d", "UpSampleNearest3d.cu"),
    ("upsample_linear1d", "UpSampleLinear1d.cu"),
    ("upsample_bilinear2d", "UpSampleBilinear2d.cu"),
):
    cuda_impl(f"{_op}_out_cpu", f"{_op}_out_cuda", CUDA + _cu)
    cuda_impl(f"{_op}_backward_out_cpu", f"{_op}_backward_out_cuda", CUDA + _cu)
cuda_impl(
    "adaptive_max_pool2d_out_cpu", "adaptive_max_pool2d_out_cuda", CUDA + "AdaptiveMaxPooling2d.cu"
)
cuda_impl(
    "adaptive_max_pool2d_backward_out_cpu",
    "adaptive_max_pool2d_backward_out_cuda",
    CUDA + "AdaptiveMaxPooling2d.cu",
)
cuda_native("adaptive_avg_pool3d_cpu", "adaptive_avg_pool3d_cuda", "AdaptiveAveragePooling3d.cu")
cuda_native(
    "adaptive_avg_pool3d_backward_cpu",
    "adaptive_avg_pool3d_backward_cuda",
    "AdaptiveAveragePooling3d.cu",
)
cuda_native("max_unpooling2d_forward_cpu", "max_unpooling2d_forward_cuda", "MaxUnpooling.cu")
cuda_native(
    "max_unpooling2d_forward_out_cpu", "max_unpooling2d_forward_out_cuda", "MaxUnpooling.cu"
)
for _op, _cu in (("im2col", "Im2Col.cu"), ("col2im", "Col2Im.cu")):
    cuda_native(f"{_op}_cpu", f"{_op}_cuda", _cu)
    cuda_native(f"{_op}_out_cpu", f"{_op}_out_cuda", _cu)


# ---- Sorting.cpp's selections (stats-ops) -----------------------------------------------------
cuda_native("median_cpu", "median_cuda", "Sorting.cpp")
cuda_native("nanmedian_cpu", "nanmedian_cuda", "Sorting.cpp")
cuda_native("median_out_cpu", "median_out_cuda", "Sorting.cpp")
cuda_native("nanmedian_out_cpu", "nanmedian_out_cuda", "Sorting.cpp")
cuda_native("kthvalue_out_cpu", "kthvalue_out_cuda", "Sorting.cpp")

# ---- SummaryOps, Bucketization and RangeFactories (stats-ops) ---------------------------------
cuda_native("_bincount_cpu", "_bincount_cuda", "SummaryOps.cu")
cuda_native("searchsorted_cpu", "searchsorted_cuda", "Bucketization.cu")
cuda_native("searchsorted_out_cpu", "searchsorted_out_cuda", "Bucketization.cu")
cuda_native("bucketize_cpu", "bucketize_cuda", "Bucketization.cu")
cuda_native("bucketize_out_cpu", "bucketize_out_cuda", "Bucketization.cu")
cuda_native("logspace_out", "logspace_cuda_out", "RangeFactories.cu")

# ---- WeightNorm.cu (nn-utils2) ----------------------------------------------------------------
cuda_native("weight_norm_cpu", "weight_norm_cuda", "WeightNorm.cu")
cuda_native("weight_norm_backward_cpu", "weight_norm_backward_cuda", "WeightNorm.cu")


# ---- SpectralOps.cpp (cuFFT): the CPU transforms, under the CUDA names -------------------------
for _op in ("r2c", "c2r", "c2c"):
    cuda_native(f"_fft_{_op}_mkl", f"_fft_{_op}_cufft", "SpectralOps.cpp")
    cuda_native(f"_fft_{_op}_mkl_out", f"_fft_{_op}_cufft_out", "SpectralOps.cpp")
