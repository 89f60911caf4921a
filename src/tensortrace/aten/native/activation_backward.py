"""The structured backward ops of activations: sigmoid_backward, tanh_backward and
threshold_backward (the gradient of relu), which the backward formulas call.

Mirrors `aten/src/ATen/native/BinaryOps.cpp` (TORCH_META_FUNC(sigmoid_backward) and
tanh_backward: a binary op over (grad_output, output)) and `aten/src/ATen/native/Activation.cpp`
(TORCH_META_FUNC(threshold_backward): a TensorIterator over (self, grad), promoted to their
common dtype). Their kernels are in native/cpu/activation_backward_kernel.py.
"""

from __future__ import annotations

from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.registry import impl_function, meta_function
from tensortrace.aten.scalar_ops import Scalar
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorBase, TensorIteratorConfig

BINARY = "aten/src/ATen/native/BinaryOps.cpp"
ACTIVATION = "aten/src/ATen/native/Activation.cpp"

sigmoid_backward_stub = DECLARE_DISPATCH("sigmoid_backward_stub",
                                         "aten/src/ATen/native/BinaryOps.h")
tanh_backward_stub = DECLARE_DISPATCH("tanh_backward_stub", "aten/src/ATen/native/BinaryOps.h")
threshold_stub = DECLARE_DISPATCH("threshold_stub", "aten/src/ATen/native/Activation.h")


@meta_function("sigmoid_backward", BINARY)
def meta_sigmoid_backward(it: TensorIteratorBase, grad_output: Tensor, output: Tensor) -> None:
    it.build_borrowing_binary_op(it.maybe_get_output(), grad_output, output)


@impl_function("sigmoid_backward_out", BINARY, legacy="at::native::sigmoid_backward_out")
def sigmoid_backward_out(it: TensorIteratorBase, grad_output: Tensor, output: Tensor,
                         grad_input: Tensor) -> None:
    sigmoid_backward_stub(it.device_type(), it)


@meta_function("tanh_backward", BINARY)
def meta_tanh_backward(it: TensorIteratorBase, grad_output: Tensor, output: Tensor) -> None:
    it.build_borrowing_binary_op(it.maybe_get_output(), grad_output, output)


@impl_function("tanh_backward_out", BINARY, legacy="at::native::tanh_backward_out")
def tanh_backward_out(it: TensorIteratorBase, grad_output: Tensor, output: Tensor,
                      grad_input: Tensor) -> None:
    tanh_backward_stub(it.device_type(), it)


@meta_function("threshold_backward", ACTIVATION)
def meta_threshold_backward(it: TensorIteratorBase, grad: Tensor, self: Tensor,
                            threshold: Scalar) -> None:
    it.build(TensorIteratorConfig()
             .set_check_mem_overlap(False)  # threshold is idempotent: overlap is fine
             .add_output(it.maybe_get_output())
             .add_const_input(self)
             .add_const_input(grad)
             .allow_cpu_scalars(True)
             .promote_inputs_to_common_dtype(True)
             .cast_common_dtype_to_outputs(True)
             .enforce_safe_casting_to_output(True))


@impl_function("threshold_backward_out", ACTIVATION, legacy="at::native::threshold_backward_out")
def threshold_backward_out(it: TensorIteratorBase, grad: Tensor, self: Tensor,
                           threshold: Scalar, grad_input: Tensor) -> None:
    threshold_stub(it.device_type(), it, threshold, 0)
