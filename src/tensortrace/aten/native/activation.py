"""relu and relu_: clamp_min(self, 0), refusing bool; log_sigmoid and the activations' backward.

Mirrors `aten/src/ATen/native/Activation.cpp` (the CPU relu, which is clamp_min, so the trace
shows aten::relu > aten::clamp_min).
"""

from __future__ import annotations

from typing import Any

from tensortrace.aten import functions as at
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.tensor_body import Tensor, expect_contiguous
from tensortrace.aten.tensor_iterator import TensorIteratorBase, TensorIteratorConfig
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType

SOURCE = "aten/src/ATen/native/Activation.cpp"


@native_function(SOURCE)
def relu(self: Tensor) -> Tensor:
    TORCH_CHECK(self.scalar_type() != ScalarType.Bool, "Boolean inputs not supported for relu")
    return at.clamp_min(self, 0)


@native_function(SOURCE)
def relu_(self: Tensor) -> Tensor:
    TORCH_CHECK(self.scalar_type() != ScalarType.Bool, "Boolean inputs not supported for relu")
    return at.clamp_min_(self, 0)


# ---- issue #9: what torch.nn's activations and their backward need -------------------------------
# log_sigmoid (for binary_cross_entropy_with_logits), threshold_backward (ReluBackward0's
# formula), and sigmoid_backward / tanh_backward, which ATen keeps in BinaryOps.cpp. The
# kernels are in native/cpu/activation_kernel.py.

BINARY_OPS = "aten/src/ATen/native/BinaryOps.cpp"
ACTIVATION_H, BINARY_OPS_H = "aten/src/ATen/native/Activation.h", "aten/src/ATen/native/BinaryOps.h"
log_sigmoid_cpu_stub = DECLARE_DISPATCH("log_sigmoid_cpu_stub", ACTIVATION_H)
threshold_stub = DECLARE_DISPATCH("threshold_stub", ACTIVATION_H)
sigmoid_backward_stub = DECLARE_DISPATCH("sigmoid_backward_stub", BINARY_OPS_H)
tanh_backward_stub = DECLARE_DISPATCH("tanh_backward_stub", BINARY_OPS_H)


@native_function(SOURCE)
def log_sigmoid(self: Tensor) -> Tensor:
    return at.log_sigmoid_forward(self)[0]


@native_function(SOURCE)
def log_sigmoid_forward_cpu(self: Tensor) -> tuple[Tensor, Tensor]:
    input = self
    result = at.empty_like(input, memory_format="contiguous_format")
    buffer = at.empty_like(input, memory_format="contiguous_format")
    log_sigmoid_cpu_stub(input.device().type_, result, buffer, expect_contiguous(input))
    return result, buffer


@meta_function("threshold_backward", SOURCE)
def meta_threshold_backward(
    it: TensorIteratorBase, grad: Tensor, self: Tensor, threshold: Any
) -> None:
    # threshold is idempotent, so an overlapping output is fine
    it.build(
        TensorIteratorConfig()
        .set_check_mem_overlap(False)
        .add_output(it.maybe_get_output())
        .add_const_input(self)
        .add_const_input(grad)
        .allow_cpu_scalars(True)
        .promote_inputs_to_common_dtype(True)
        .cast_common_dtype_to_outputs(True)
        .enforce_safe_casting_to_output(True)
    )


@impl_function("threshold_backward_out", SOURCE)
def threshold_backward_out(
    it: TensorIteratorBase, grad: Tensor, self: Tensor, threshold: Any, grad_input: Tensor
) -> None:
    threshold_stub(it.device_type(), it, threshold, 0)


@meta_function("sigmoid_backward", BINARY_OPS)
def meta_sigmoid_backward(it: TensorIteratorBase, grad_output: Tensor, output: Tensor) -> None:
    it.build_borrowing_binary_op(it.maybe_get_output(), grad_output, output)


@impl_function("sigmoid_backward_out", BINARY_OPS)
def sigmoid_backward_out(
    it: TensorIteratorBase, grad_output: Tensor, output: Tensor, grad_input: Tensor
) -> None:
    sigmoid_backward_stub(it.device_type(), it)


@meta_function("tanh_backward", BINARY_OPS)
def meta_tanh_backward(it: TensorIteratorBase, grad_output: Tensor, output: Tensor) -> None:
    it.build_borrowing_binary_op(it.maybe_get_output(), grad_output, output)


@impl_function("tanh_backward_out", BINARY_OPS)
def tanh_backward_out(
    it: TensorIteratorBase, grad_output: Tensor, output: Tensor, grad_input: Tensor
) -> None:
    tanh_backward_stub(it.device_type(), it)
