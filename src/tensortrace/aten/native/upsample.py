"""The shared shape and scale arithmetic of the upsample operators.

Mirrors `aten/src/ATen/native/UpSample.cpp` (compute_output_size, get_scale_value: how the
`.vec` overloads that F.interpolate calls turn output_size / scale_factors into the sizes and
scales of the operator proper) and the helpers of `UpSample.h` (upsample_Nd_common_check, the
scale arithmetic of Note [compute_scales_value] and Note [area_pixel_compute_scale], and
nearest_idx). The scales are computed in the kernel's opmath type (float for float32, double
for float64), as torch's templates do, so the source indices and weights are torch's bit for
bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar_type import ScalarType
from tensortrace.c10.tensor_options import TensorOptions

if TYPE_CHECKING:
    from tensortrace.aten.tensor_iterator import TensorIteratorBase

SOURCE = "aten/src/ATen/native/UpSample.cpp"


def compute_output_size(
    input_size: Sequence[int],
    output_size: Sequence[int] | None,
    scale_factors: Sequence[float] | None,
) -> list[int]:
    """UpSample.cpp's compute_output_size: the output size, given or input_size * scale."""
    spatial_dimensions = len(input_size) - 2
    if output_size is not None:
        TORCH_CHECK(
            scale_factors is None, "Must specify exactly one of output_size and scale_factors"
        )
        TORCH_CHECK(
            len(output_size) == spatial_dimensions,
            "Expected static_cast<int64_t>(output_size->size()) == spatial_dimensions to be "
            "true, but got false.  (Could this error message be improved?  If so, please "
            "report an enhancement request to PyTorch.)",
        )
        return list(output_size)
    if scale_factors is not None:
        TORCH_CHECK(
            len(scale_factors) == spatial_dimensions,
            "Expected static_cast<int64_t>(scale_factors->size()) == spatial_dimensions to be "
            "true, but got false.  (Could this error message be improved?  If so, please "
            "report an enhancement request to PyTorch.)",
        )
        # c10::checked_convert<int64_t>(input_size[i + 2] * scale): the double truncated
        return [int(input_size[i + 2] * scale_factors[i]) for i in range(spatial_dimensions)]
    TORCH_CHECK(False, "Must specify exactly one of output_size and scale_factors")
    return []


def get_scale_value(scales: Sequence[float] | None, idx: int) -> float | None:
    return None if scales is None else scales[idx]


def _sizes(sizes: Sequence[int]) -> str:
    return "[" + ", ".join(str(s) for s in sizes) + "]"


def upsample_common_check(
    input_size: Sequence[int], output_size: Sequence[int], spatial: int
) -> list[int]:
    """UpSample.h's upsample_1d_common_check / upsample_2d_common_check: [N, C, *output]."""
    TORCH_CHECK(
        len(output_size) == spatial,
        "It is expected output_size equals to ",
        spatial,
        ", but got size ",
        len(output_size),
    )
    TORCH_CHECK(
        len(input_size) == spatial + 2,
        "It is expected input_size equals to ",
        spatial + 2,
        ", but got size ",
        len(input_size),
    )
    nbatch, channels = input_size[0], input_size[1]
    ins, outs = list(input_size[2:]), list(output_size)
    if spatial == 1:
        TORCH_CHECK(
            ins[0] > 0 and outs[0] > 0,
            "Input and output sizes should be greater than 0, but got input (W: ",
            ins[0],
            ") and output (W: ",
            outs[0],
            ")",
        )
    elif spatial == 3:
        TORCH_CHECK(
            all(s > 0 for s in ins + outs),
            "Input and output sizes should be greater than 0, but got input (D: ",
            ins[0],
            ", H: ",
            ins[1],
            ", W: ",
            ins[2],
            ") output (D: ",
            outs[0],
            ", H: ",
            outs[1],
            ", W: ",
            outs[2],
            ")",
        )
    else:
        TORCH_CHECK(
            all(s > 0 for s in ins + outs),
            "Input and output sizes should be greater than 0, but got input (H: ",
            ins[0],
            ", W: ",
            ins[1],
            ") output (H: ",
            outs[0],
            ", W: ",
            outs[1],
            ")",
        )
    return [nbatch, channels, *outs]


def check_non_empty(input: Tensor, spatial: int) -> None:
    """The meta functions' check: an empty batch is allowed, no other empty dim."""
    rest = 1
    for s in input.sizes()[1:]:
        rest *= s
    TORCH_CHECK(
        input.numel() != 0 or rest != 0,
        "Non-empty ",
        spatial + 2,
        "D data tensor expected but got a tensor with sizes ",
        _sizes(input.sizes()),
    )


def check_grad_output(grad_output: Tensor, full_output_size: Sequence[int]) -> None:
    """The backward meta functions' check that grad_output has the output's shape."""
    dim = len(full_output_size)
    if dim == 3:  # upsample_1d_shape_check's check_dim_size (TensorUtils.cpp)
        for i in range(3):
            if not (grad_output.dim() == 3 and grad_output.size(i) == full_output_size[i]):
                # the message reads grad_output.size(i): out of range, that raises instead
                TORCH_CHECK(
                    False,
                    "Expected a tensor of dimension 3 and tensor.size[",
                    i,
                    "] == ",
                    full_output_size[i],
                    " but got: dimension ",
                    grad_output.dim(),
                    " and tensor.size[",
                    i,
                    "] = ",
                    grad_output.size(i),
                )
        return
    TORCH_CHECK(
        grad_output.dim() == dim,
        "Expected grad_output to be a tensor of dimension ",
        dim,
        " but got: dimension ",
        grad_output.dim(),
    )
    for i in range(dim):
        TORCH_CHECK(
            grad_output.size(i) == full_output_size[i],
            "Expected grad_output to have the same shape as output;",
            " output.size(",
            i,
            ") = ",
            full_output_size[i],
            " but got grad_output.size(",
            i,
            ") = ",
            grad_output.size(i),
        )


# the types each kernel's AT_DISPATCH takes (FLOATING_TYPES_AND3(Byte, BFloat16, Half) or
# FLOATING_TYPES_AND2(BFloat16, Half)), and the name its error gives
_FLOATING = (ScalarType.Float, ScalarType.Double, ScalarType.Half, ScalarType.BFloat16)


def check_kernel_dtype(self: Tensor, name: str, allow_byte: bool) -> None:
    st = self.scalar_type()
    TORCH_CHECK_NOT_IMPLEMENTED(
        st in _FLOATING or (allow_byte and st == ScalarType.Byte),
        '"',
        name,
        "\" not implemented for '",
        st.name,
        "'",
    )


def opmath_dtype(dtype: np.dtype) -> type[np.floating]:
    """at::opmath_type: float for the reduced float types (and uint8's weights), else itself."""
    return np.float64 if dtype == np.float64 else np.float32


def compute_scales_value(
    scale: float | None, input_size: int, output_size: int, opmath: type[np.floating]
) -> np.floating:
    # see Note [compute_scales_value]
    if scale is not None and scale > 0.0:
        return opmath(1.0 / scale)
    return opmath(input_size) / opmath(output_size)


def area_pixel_compute_scale(
    input_size: int,
    output_size: int,
    align_corners: bool,
    scale: float | None,
    opmath: type[np.floating],
) -> np.floating:
    # see Note [area_pixel_compute_scale]
    if align_corners:
        if output_size > 1:
            return opmath(input_size - 1) / opmath(output_size - 1)
        return opmath(0)
    return compute_scales_value(scale, input_size, output_size, opmath)


def nearest_idx(input_size: int, output_size: int, scale: float | None) -> np.ndarray:
    """UpSample.h's nearest_idx for every output index: floorf(dst_index * scale), clamped."""
    out = np.arange(output_size, dtype=np.int64)
    if output_size == input_size:
        return out
    if output_size == 2 * input_size:
        return out >> 1
    s = compute_scales_value(scale, input_size, output_size, np.float32)
    src = np.floor(out.astype(np.float32) * s).astype(np.int64)
    return np.minimum(src, input_size - 1)


def nearest_exact_idx(input_size: int, output_size: int, scale: float | None) -> np.ndarray:
    """UpSample.h's nearest_exact_idx for every output index: floorf((dst_index + 0.5) * scale)
    (the product in double, floorf on its float), clamped; no shortcut for equal or doubled
    sizes (Pillow's and scipy's ndi.zoom rounding)."""
    out = np.arange(output_size, dtype=np.int64)
    s = compute_scales_value(scale, input_size, output_size, np.float32)
    src = np.floor(((out + 0.5) * np.float64(s)).astype(np.float32)).astype(np.int64)
    return np.minimum(src, input_size - 1)


def cubic_indices_weights(
    input_size: int,
    output_size: int,
    align_corners: bool,
    scale: float | None,
    opmath: type[np.floating],
) -> tuple[np.ndarray, np.ndarray]:
    """HelperInterpCubic::compute_indices_weights for every output index: the 4 input indices
    around the source position (clamped to the input, as upsample_get_value_bounded reads them)
    and their coefficients (get_cubic_upsample_coefficients, A = -0.75)."""
    out = np.arange(output_size, dtype=np.int64)
    ratio = area_pixel_compute_scale(input_size, output_size, align_corners, scale, opmath)
    if align_corners:
        real = ratio * out.astype(opmath)
    else:  # area_pixel_compute_source_index with cubic=true: no clamp at 0
        real = (np.float64(ratio) * (out + 0.5) - 0.5).astype(opmath)
    # guard_index_and_lambda
    idx = np.minimum(np.floor(real).astype(np.int64), input_size - 1)
    t = np.minimum(np.maximum(real - idx.astype(opmath), opmath(0)), opmath(1)).astype(opmath)
    a = opmath(-0.75)

    def conv1(x: np.ndarray) -> np.ndarray:  # cubic_convolution1
        return (((a + 2) * x - (a + 3)) * x * x + 1).astype(opmath)

    def conv2(x: np.ndarray) -> np.ndarray:  # cubic_convolution2
        return (((a * x - 5 * a) * x + 8 * a) * x - 4 * a).astype(opmath)

    x2 = (opmath(1) - t).astype(opmath)
    weights = np.stack([conv2((t + 1).astype(opmath)), conv1(t), conv1(x2), conv2(x2 + 1)], -1)
    indices = np.clip(idx[:, None] - 1 + np.arange(4), 0, input_size - 1)
    return indices, weights.astype(opmath)


def linear_indices_weights(
    input_size: int,
    output_size: int,
    align_corners: bool,
    scale: float | None,
    opmath: type[np.floating],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """UpSample.h's compute_source_index_and_lambda for every output index:
    (input_index0, input_index1, lambda0, lambda1)."""
    out = np.arange(output_size, dtype=np.int64)
    if output_size == input_size:  # scale_factor = 1, simply copy
        return out, out, np.ones(output_size, opmath), np.zeros(output_size, opmath)
    ratio = area_pixel_compute_scale(input_size, output_size, align_corners, scale, opmath)
    if align_corners:
        real = ratio * out.astype(opmath)
    else:
        # scale * (dst_index + 0.5) - 0.5: the double arithmetic, back to opmath_t
        real = (np.float64(ratio) * (out + 0.5) - 0.5).astype(opmath)
        real = np.where(real < 0, opmath(0), real).astype(opmath)
    idx0 = np.minimum(np.floor(real).astype(np.int64), input_size - 1)
    lambda1 = np.minimum(np.maximum(real - idx0.astype(opmath), opmath(0)), opmath(1))
    lambda1 = lambda1.astype(opmath)
    idx1 = idx0 + (idx0 < input_size - 1)
    lambda0 = (opmath(1) - lambda1).astype(opmath)
    return idx0, idx1, lambda0, lambda1


def upsample_meta(
    it: TensorIteratorBase, input: Tensor, output_size: Sequence[int], spatial: int
) -> None:
    """The body every upsample TORCH_META_FUNC shares: check the sizes, set [N, C, *output]."""
    full_output_size = upsample_common_check(input.sizes(), output_size, spatial)
    check_non_empty(input, spatial)
    options = TensorOptions(input.scalar_type(), input.device())
    it.set_output_raw_strided(0, full_output_size, (), options)


def upsample_backward_meta(
    it: TensorIteratorBase,
    grad_output: Tensor,
    output_size: Sequence[int],
    input_size: Sequence[int],
    spatial: int,
) -> None:
    """The body every upsample backward TORCH_META_FUNC shares: grad_input of input_size."""
    full_output_size = upsample_common_check(input_size, output_size, spatial)
    check_grad_output(grad_output, full_output_size)
    options = TensorOptions(grad_output.scalar_type(), grad_output.device())
    it.set_output_raw_strided(0, list(input_size), (), options)
