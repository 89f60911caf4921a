"""Meta kernels written by hand, for ops whose CPU kernel reads data on the way to its shape.

Mirrors `torch/_meta_registrations.py`, whose `@register_meta(aten.<op>)` functions torch
registers for the Meta key at import (torch.library): an output of the right sizes, strides
and dtype made with `new_empty`, or torch's error where no data-free answer exists. Here each
is an at::native function that native_functions.yaml names under `Meta:`, so the trace shows
it as the Meta kernel of its `aten::` operator. Ops that compute their outputs' shapes before
any data is touched need none of these: structured ops get their Meta kernel from their meta
function (Note [Meta kernels for free]), the others register their CPU native for Meta too
(Note [A meta tensor's kernel is no call]).
"""

from __future__ import annotations

from collections.abc import Sequence

from tensortrace.aten.native.conv_utils import _check_shape_forward
from tensortrace.aten.native.convolution import _expand_param_if_needed
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType

SOURCE = "torch/_meta_registrations.py"


def _meta(name: str) -> str:
    return f"torch._meta_registrations.{name}"


@native_function(SOURCE, symbol=_meta("meta_local_scalar_dense"))
def meta_local_scalar_dense(self: Tensor) -> None:
    """Tensor.item() (and bool(), int(), float()) needs the value: a meta tensor has none."""
    raise RuntimeError("Tensor.item() cannot be called on meta tensors")


_NONZERO_MESSAGE = (
    "The register_meta function for torch.nonzero() raises unimplemented by default, as a "
    "correct data-independent implementation does not exist. This implementation returns a "
    "fake value, assuming all elements of the tensor are non-zero. To enable this "
    "registration, please set 'torch.fx.experimental._config.meta_nonzero_assume_all_nonzero' "
    "to True."
)


@native_function(SOURCE, symbol=_meta("nonzero_meta"))
def nonzero_meta(self: Tensor) -> Tensor:
    """nonzero's output size is the number of nonzero elements: data, which meta lacks."""
    raise NotImplementedError(_NONZERO_MESSAGE)


@native_function(SOURCE, symbol=_meta("meta_index_select"))
def meta_index_select(self: Tensor, dim: int, index: Tensor) -> Tensor:
    result_size = list(self.sizes())
    if self.dim() > 0:
        dim = maybe_wrap_dim(dim, self.dim())
        result_size[dim] = index.numel()
    return self.new_empty(result_size)


@native_function(SOURCE, symbol=_meta("meta_max"))
def meta_max(self: Tensor) -> Tensor:
    """max() of all elements: a 0-dim tensor (the CPU kernel refuses an empty input by reading
    its numel, which a meta tensor has too)."""
    TORCH_CHECK(
        self.numel() > 0,
        "max(): Expected reduction dim to be specified for input.numel() == 0. "
        "Specify the reduction dim with the 'dim' argument.",
    )
    return self.new_empty([])


def _conv_output_size(
    input_size: int, padding: int, dilation: int, kernel_size: int, stride: int
) -> int:
    """calc_conv_nd_return_shape's _formula: floor((in + 2p - d(k-1) - 1) / s) + 1."""
    return (input_size + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1


def _conv_transpose_output_size(
    input_size: int, padding: int, dilation: int, kernel_size: int, stride: int, out_pad: int
) -> int:
    """_formula_transposed: (in - 1) s - 2p + d(k-1) + output_padding + 1."""
    return (input_size - 1) * stride - 2 * padding + dilation * (kernel_size - 1) + out_pad + 1


@native_function(SOURCE, symbol=_meta("meta_conv"))
def meta_conv(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    transposed: bool,
    output_padding: Sequence[int],
    groups: int,
) -> Tensor:
    """calc_conv_nd_return_shape, then `input.new_empty(shape_out)`: contiguous, as torch's meta
    kernel leaves it (a meta tensor has no backend to pick a memory format from)."""
    dim = weight.dim() - 2
    TORCH_CHECK(dim > 0, "weight should have at least three dimensions")
    TORCH_CHECK(groups > 0, "non-positive groups is not supported")
    stride_ = _expand_param_if_needed(stride, "stride", dim)
    padding_ = _expand_param_if_needed(padding, "padding", dim)
    dilation_ = _expand_param_if_needed(dilation, "dilation", dim)
    output_padding_ = _expand_param_if_needed(output_padding, "output_padding", dim)
    _check_shape_forward(
        input, weight, bias, stride_, padding_, dilation_, groups, transposed, output_padding_
    )
    batched = input.dim() == dim + 2
    spatial = list(input.sizes())[-dim:]
    kernel = list(weight.sizes())[2:]
    if transposed:
        channels = weight.size(1) * groups
        dims = [
            _conv_transpose_output_size(
                spatial[i], padding_[i], dilation_[i], kernel[i], stride_[i], output_padding_[i]
            )
            for i in range(dim)
        ]
    else:
        channels = weight.size(0)
        dims = [
            _conv_output_size(spatial[i], padding_[i], dilation_[i], kernel[i], stride_[i])
            for i in range(dim)
        ]
    if input.size(1 if batched else 0) == 0:
        channels = 0
    shape_out = [input.size(0), channels, *dims] if batched else [channels, *dims]
    return input.new_empty(shape_out)


@native_function(SOURCE, symbol=_meta("embedding"))
def meta_embedding(
    weight: Tensor,
    indices: Tensor,
    padding_idx: int = -1,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    TORCH_CHECK(weight.dim() == 2, "'weight' must be 2-D")
    if indices.scalar_type() not in (ScalarType.Long, ScalarType.Int):
        # torch._check's message, with the dtype as Python prints it (torch.float32)
        name = getattr(indices.dtype().numpy, "name", indices.scalar_type())
        TORCH_CHECK(
            False,
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            "types: Long, Int; but got torch.",
            name,
            " instead",
        )
    return weight.new_empty([*indices.sizes(), weight.size(1)])


@native_function(SOURCE, symbol=_meta("meta_convolution_backward"))
def meta_convolution_backward(
    grad_output: Tensor,
    input: Tensor,
    weight: Tensor,
    bias_sizes: Sequence[int] | None,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    transposed: bool,
    output_padding: Sequence[int],
    groups: int,
    output_mask: Sequence[bool],
) -> tuple[Tensor, Tensor, Tensor]:
    """Each gradient asked for in output_mask: the shape of what it is the gradient of."""
    grad_input = grad_output.new_empty(list(input.sizes())) if output_mask[0] else Tensor()
    grad_weight = grad_output.new_empty(list(weight.sizes())) if output_mask[1] else Tensor()
    grad_bias = Tensor()
    if output_mask[2]:
        grad_bias = grad_output.new_empty(list(bias_sizes or []))
    return grad_input, grad_weight, grad_bias
