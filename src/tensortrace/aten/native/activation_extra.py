"""torch.nn's pointwise activations: elu, leaky_relu, softplus, gelu, silu, mish, hardtanh,
relu6 and log_sigmoid_backward, with the backward ops their derivatives call.

Mirrors `aten/src/ATen/native/Activation.cpp`: the structured ops' TORCH_META_FUNC build a unary
(forward) or binary (backward) TensorIterator and their TORCH_IMPL_FUNC call a DispatchStub whose
CPU kernel is in native/cpu/activation_kernel.py. hardtanh is not structured: it is clamp with
the bounds cast to integers for an integer input (so `aten::hardtanh > aten::clamp`), and relu6
is the composite hardtanh(self, 0, 6).
"""

from __future__ import annotations

from typing import Any

from tensortrace.aten import functions as at
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import (
    TensorIterator,
    TensorIteratorBase,
    TensorIteratorConfig,
)
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType, isIntegralType

SOURCE = "aten/src/ATen/native/Activation.cpp"
HEADER = "aten/src/ATen/native/Activation.h"

elu_stub = DECLARE_DISPATCH("elu_stub", HEADER)
elu_backward_stub = DECLARE_DISPATCH("elu_backward_stub", HEADER)
leaky_relu_stub = DECLARE_DISPATCH("leaky_relu_stub", HEADER)
leaky_relu_backward_stub = DECLARE_DISPATCH("leaky_relu_backward_stub", HEADER)
softplus_stub = DECLARE_DISPATCH("softplus_stub", HEADER)
softplus_backward_stub = DECLARE_DISPATCH("softplus_backward_stub", HEADER)
GeluKernel = DECLARE_DISPATCH("GeluKernel", HEADER)
GeluBackwardKernel = DECLARE_DISPATCH("GeluBackwardKernel", HEADER)
silu_stub = DECLARE_DISPATCH("silu_stub", HEADER)
silu_backward_stub = DECLARE_DISPATCH("silu_backward_stub", HEADER)
mish_stub = DECLARE_DISPATCH("mish_stub", HEADER)
mish_backward_stub = DECLARE_DISPATCH("mish_backward_stub", HEADER)
hardtanh_backward_stub = DECLARE_DISPATCH("hardtanh_backward_stub", HEADER)
log_sigmoid_backward_stub = DECLARE_DISPATCH("log_sigmoid_backward_stub", HEADER)

NONE_GELU, TANH_GELU = 0, 1  # at::native::GeluType


def get_gelutype_enum(approximate: str) -> int:
    """Activation.h: the GeluType an `approximate=` string names."""
    if approximate == "none":
        return NONE_GELU
    if approximate == "tanh":
        return TANH_GELU
    TORCH_CHECK(False, "approximate argument must be either none or tanh.")
    return NONE_GELU


def _unary(it: TensorIteratorBase, self: Tensor) -> None:
    it.build_borrowing_unary_op(it.maybe_get_output(), self)


def _binary(it: TensorIteratorBase, a: Tensor, b: Tensor) -> None:
    it.build_borrowing_binary_op(it.maybe_get_output(), a, b)


# ---- elu -----------------------------------------------------------------------------------------
@meta_function("elu", SOURCE)
def meta_elu(
    it: TensorIteratorBase, self: Tensor, alpha: Any, scale: Any, input_scale: Any
) -> None:
    _unary(it, self)


@impl_function("elu_out", SOURCE)
def elu_out(
    it: TensorIteratorBase, self: Tensor, alpha: Any, scale: Any, input_scale: Any, out: Tensor
) -> None:
    elu_stub(it.device_type(), it, alpha, scale, input_scale)


@meta_function("elu_backward", SOURCE)
def meta_elu_backward(
    it: TensorIteratorBase,
    grad_output: Tensor,
    alpha: Any,
    scale: Any,
    input_scale: Any,
    is_result: bool,
    self_or_result: Tensor,
) -> None:
    TORCH_CHECK(
        not is_result or float(alpha) >= 0.0,
        "In-place elu backward calculation is triggered with a negative slope which is not "
        "supported. This is caused by calling in-place forward function with a negative slope, "
        "please call out-of-place version instead.",
    )
    _binary(it, grad_output, self_or_result)


@impl_function("elu_backward_out", SOURCE)
def elu_backward_out(
    it: TensorIteratorBase,
    grad_output: Tensor,
    alpha: Any,
    scale: Any,
    input_scale: Any,
    is_result: bool,
    self_or_result: Tensor,
    grad_input: Tensor,
) -> None:
    elu_backward_stub(it.device_type(), it, alpha, scale, input_scale, is_result)


# ---- leaky_relu ----------------------------------------------------------------------------------
@meta_function("leaky_relu", SOURCE)
def meta_leaky_relu(it: TensorIteratorBase, self: Tensor, negative_slope: Any) -> None:
    _unary(it, self)


@impl_function("leaky_relu_out", SOURCE)
def leaky_relu_out(it: TensorIteratorBase, self: Tensor, negative_slope: Any, out: Tensor) -> None:
    leaky_relu_stub(it.device_type(), it, negative_slope)


@meta_function("leaky_relu_backward", SOURCE)
def meta_leaky_relu_backward(
    it: TensorIteratorBase,
    grad_output: Tensor,
    self: Tensor,
    negative_slope: Any,
    self_is_result: bool,
) -> None:
    TORCH_CHECK(
        not self_is_result or float(negative_slope) >= 0.0,
        "In-place leakyReLu backward calculation is triggered with a negative slope which is not "
        "supported. This is caused by calling in-place forward function with a negative slope, "
        "please call out-of-place version instead. File an issue at "
        "https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu "
        "backward calculation with negative slope",
    )
    _binary(it, self, grad_output)


@impl_function("leaky_relu_backward_out", SOURCE)
def leaky_relu_backward_out(
    it: TensorIteratorBase,
    grad_output: Tensor,
    self: Tensor,
    negative_slope: Any,
    self_is_result: bool,
    grad_input: Tensor,
) -> None:
    leaky_relu_backward_stub(it.device_type(), it, negative_slope)


# ---- softplus ------------------------------------------------------------------------------------
@meta_function("softplus", SOURCE)
def meta_softplus(it: TensorIteratorBase, self: Tensor, beta: Any, threshold: Any) -> None:
    _unary(it, self)


@impl_function("softplus_out", SOURCE)
def softplus_out(
    it: TensorIteratorBase, self: Tensor, beta: Any, threshold: Any, out: Tensor
) -> None:
    softplus_stub(it.device_type(), it, beta, threshold)


@meta_function("softplus_backward", SOURCE)
def meta_softplus_backward(
    it: TensorIteratorBase, grad_output: Tensor, self: Tensor, beta: Any, threshold: Any
) -> None:
    _binary(it, grad_output, self)


@impl_function("softplus_backward_out", SOURCE)
def softplus_backward_out(
    it: TensorIteratorBase,
    grad_output: Tensor,
    self: Tensor,
    beta: Any,
    threshold: Any,
    grad_input: Tensor,
) -> None:
    softplus_backward_stub(it.device_type(), it, beta, threshold)


# ---- gelu ----------------------------------------------------------------------------------------
@meta_function("gelu", SOURCE)
def meta_gelu(it: TensorIteratorBase, self: Tensor, approximate: str = "none") -> None:
    _unary(it, self)


@impl_function("gelu_out_cpu", SOURCE)
def gelu_out_cpu(it: TensorIteratorBase, self: Tensor, approximate: str, out: Tensor) -> None:
    approximate_type = get_gelutype_enum(approximate)
    GeluKernel(it.device_type(), it, approximate_type)


@meta_function("gelu_backward", SOURCE)
def meta_gelu_backward(
    it: TensorIteratorBase, grad_output: Tensor, self: Tensor, approximate: str = "none"
) -> None:
    _binary(it, grad_output, self)


@impl_function("gelu_backward_out_cpu", SOURCE)
def gelu_backward_out_cpu(
    it: TensorIteratorBase, grad_output: Tensor, self: Tensor, approximate: str, grad_input: Tensor
) -> None:
    approximate_type = get_gelutype_enum(approximate)
    GeluBackwardKernel(it.device_type(), it, approximate_type)


# ---- silu and mish -------------------------------------------------------------------------------
@meta_function("silu", SOURCE)
def meta_silu(it: TensorIteratorBase, self: Tensor) -> None:
    _unary(it, self)


@impl_function("silu_out", SOURCE)
def silu_out(it: TensorIteratorBase, self: Tensor, out: Tensor) -> None:
    silu_stub(it.device_type(), it)


@meta_function("silu_backward", SOURCE)
def meta_silu_backward(it: TensorIteratorBase, grad_output: Tensor, self: Tensor) -> None:
    _binary(it, grad_output, self)


@impl_function("silu_backward_out", SOURCE)
def silu_backward_out(
    it: TensorIteratorBase, grad_output: Tensor, self: Tensor, grad_input: Tensor
) -> None:
    silu_backward_stub(it.device_type(), it)


@meta_function("mish", SOURCE)
def meta_mish(it: TensorIteratorBase, self: Tensor) -> None:
    _unary(it, self)


@impl_function("mish_out", SOURCE)
def mish_out(it: TensorIteratorBase, self: Tensor, out: Tensor) -> None:
    mish_stub(it.device_type(), it)


@native_function(SOURCE)
def mish_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    grad_input = self.new_empty([0])
    it = TensorIterator.binary_op(grad_input, grad_output, self)
    mish_backward_stub(it.device_type(), it)
    return grad_input


# ---- hardtanh and relu6 --------------------------------------------------------------------------
@native_function(SOURCE)
def hardtanh(self: Tensor, min_val: Any = -1, max_val: Any = 1) -> Tensor:
    result = at.empty_like(self)
    return at.hardtanh(self, min_val, max_val, out=result)


@native_function(SOURCE)
def hardtanh_out(self: Tensor, min_val: Any, max_val: Any, out: Tensor) -> Tensor:
    TORCH_CHECK(self.scalar_type() != ScalarType.Bool, "Bool inputs not supported for hardtanh")
    # preserve legacy behavior of boundaries not causing type promotion
    if isIntegralType(self.scalar_type(), False):
        minval, maxval = int(min_val), int(max_val)
        TORCH_CHECK(
            self.scalar_type() != ScalarType.Byte or (minval >= 0 and maxval >= 0),
            "cannot do hardtanh on an unsigned type with negative limits",
        )
        min_val, max_val = minval, maxval
    return at.clamp(self, min_val, max_val, out=out)


@native_function(SOURCE)
def hardtanh_(self: Tensor, min_val: Any = -1, max_val: Any = 1) -> Tensor:
    return at.hardtanh(self, min_val, max_val, out=self)


@native_function(SOURCE)
def hardtanh_backward_out(
    grad_output: Tensor, self: Tensor, min_val: Any, max_val: Any, grad_input: Tensor
) -> Tensor:
    it = TensorIterator.borrowing_binary_op(grad_input, grad_output, self)
    hardtanh_backward_stub(it.device_type(), it, min_val, max_val)
    return grad_input


@native_function(SOURCE)
def hardtanh_backward(grad_output: Tensor, self: Tensor, min_val: Any, max_val: Any) -> Tensor:
    it = TensorIterator.borrowing_binary_op(Tensor(), grad_output, self)
    hardtanh_backward_stub(it.device_type(), it, min_val, max_val)
    return it.output()


@native_function(SOURCE)
def relu6(self: Tensor) -> Tensor:
    return at.hardtanh(self, 0, 6)


@native_function(SOURCE)
def relu6_(self: Tensor) -> Tensor:
    return at.hardtanh_(self, 0, 6)


# ---- log_sigmoid_backward (the forward is in activation.py) --------------------------------------
def _log_sigmoid_backward_iter(
    grad_output: Tensor, self: Tensor, buffer: Tensor, grad_input: Tensor
) -> TensorIterator:
    it = TensorIterator()
    it.build(
        TensorIteratorConfig()
        .add_output(grad_input)
        .add_const_input(self)
        .add_const_input(buffer)
        .add_const_input(grad_output)
    )
    return it


@native_function(SOURCE)
def log_sigmoid_backward_cpu_out(
    grad_output: Tensor, self: Tensor, buffer: Tensor, grad_input: Tensor
) -> Tensor:
    it = _log_sigmoid_backward_iter(grad_output, self, buffer, grad_input)
    log_sigmoid_backward_stub(it.device_type(), it)
    return grad_input


@native_function(SOURCE)
def log_sigmoid_backward_cpu(grad_output: Tensor, self: Tensor, buffer: Tensor) -> Tensor:
    grad_input = at.empty_like(grad_output)
    it = _log_sigmoid_backward_iter(grad_output, self, buffer, grad_input)
    log_sigmoid_backward_stub(it.device_type(), it)
    return it.output()
