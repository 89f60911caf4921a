"""check_shape_forward of `aten/src/ATen/native/ConvUtils.h`: the shape checks of a
(transposed) convolution that Convolution.cpp's _convolution runs before choosing a backend."""

from __future__ import annotations

from collections.abc import Sequence

from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK


def _sizes(t: Tensor) -> str:
    return "[" + ", ".join(str(s) for s in t.sizes()) + "]"


def _check_shape_forward(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: list[int],
    padding: list[int],
    dilation: list[int],
    groups: int,
    transposed: bool = False,
    output_padding: Sequence[int] = (),
) -> None:
    """check_shape_forward of ConvUtils.h."""
    k = input.dim()
    weight_dim = weight.dim()
    TORCH_CHECK(all(p >= 0 for p in padding), "negative padding is not supported")
    TORCH_CHECK(all(p >= 0 for p in output_padding), "negative output_padding is not supported")
    TORCH_CHECK(all(s > 0 for s in stride), "non-positive stride is not supported")
    TORCH_CHECK(
        all(d > 0 for d in dilation),
        "dilation should be greater than zero, but got [",
        ", ".join(str(d) for d in dilation),
        "]",
    )
    TORCH_CHECK(
        weight_dim == k,
        "Expected ",
        weight_dim,
        "-dimensional input for ",
        weight_dim,
        "-dimensional weight ",
        _sizes(weight),
        ", but got ",
        k,
        "-dimensional input of size ",
        _sizes(input),
        " instead",
    )
    TORCH_CHECK(
        weight.size(0) >= groups,
        "Given groups=",
        groups,
        ", expected weight to be at least ",
        groups,
        " at dimension 0, but got weight of size ",
        _sizes(weight),
        " instead",
    )
    TORCH_CHECK(
        weight.size(0) % groups == 0,
        "Given groups=",
        groups,
        ", expected weight to be divisible by ",
        groups,
        " at dimension 0, but got weight of size [",
        _sizes(weight),
        "] instead",
    )
    if transposed:
        TORCH_CHECK(
            input.size(1) == weight.size(0),
            "Given transposed=1, weight of size ",
            _sizes(weight),
            ", expected input",
            _sizes(input),
            " to have ",
            weight.size(0),
            " channels, but got ",
            input.size(1),
            " channels instead",
        )
        n_out = weight.size(1) * groups
        TORCH_CHECK(
            bias is None or (bias.dim() == 1 and bias.size(0) == n_out),
            "Given transposed=1, weight of size ",
            _sizes(weight),
            ", expected bias to be 1-dimensional with ",
            n_out,
            " elements, but got bias of size ",
            _sizes(bias) if bias is not None else "[]",
            " instead",
        )
        return
    TORCH_CHECK(
        input.size(1) == weight.size(1) * groups,
        "Given groups=",
        groups,
        ", weight of size ",
        _sizes(weight),
        ", expected input",
        _sizes(input),
        " to have ",
        weight.size(1) * groups,
        " channels, but got ",
        input.size(1),
        " channels instead",
    )
    TORCH_CHECK(
        bias is None or (bias.dim() == 1 and bias.size(0) == weight.size(0)),
        "Given weight of size ",
        _sizes(weight),
        ", expected bias to be 1-dimensional with ",
        weight.size(0),
        " elements, but got bias of size ",
        _sizes(bias) if bias is not None else "[]",
        " instead",
    )
    padded = [input.size(2 + i) + 2 * padding[i] for i in range(k - 2)]
    kernel = [dilation[i] * (weight.size(2 + i) - 1) + 1 for i in range(k - 2)]
    if any(kernel[i] > padded[i] for i in range(k - 2)):
        TORCH_CHECK(
            False,
            "Calculated padded input size per channel: (",
            " x ".join(str(p) for p in padded),
            "). Kernel size: (",
            " x ".join(str(x) for x in kernel),
            "). Kernel size can't be greater than actual input size",
        )
