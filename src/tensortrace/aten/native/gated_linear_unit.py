"""glu and glu_backward: the first half of a dim times the sigmoid of the second half.

Mirrors `aten/src/ATen/native/GatedLinearUnit.cpp`. glu is structured: its TORCH_META_FUNC
narrows the input into its two halves and builds a binary TensorIterator over them, so the
output has the halved size; glu_backward writes sigmoid(b) into the first half of grad_input
(at::sigmoid_out), computes the second half with glu_backward_stub, and multiplies the first
half by grad_output. The kernels are in native/cpu/activation_kernel.py.
"""

from __future__ import annotations

from tensortrace.aten import functions as at
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import (
    TensorIterator,
    TensorIteratorBase,
    TensorIteratorConfig,
)
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.exception import TORCH_CHECK

SOURCE = "aten/src/ATen/native/GatedLinearUnit.cpp"
HEADER = "aten/src/ATen/native/Activation.h"

glu_stub = DECLARE_DISPATCH("glu_stub", HEADER)
glu_backward_stub = DECLARE_DISPATCH("glu_backward_stub", HEADER)


@meta_function("glu", SOURCE)
def meta_glu(it: TensorIteratorBase, self: Tensor, dim: int = -1) -> None:
    # this can't pass anyway because a 0-dimensional tensor has "size" 1, which can't be
    # evenly halved, but give a nicer error message here.
    TORCH_CHECK(self.dim() > 0, "glu does not support 0-dimensional tensors")
    wrap_dim = maybe_wrap_dim(dim, self.dim())
    n_in = self.size(wrap_dim)
    TORCH_CHECK(
        n_in % 2 == 0, "Halving dimension must be even, but dimension ", wrap_dim, " is size ", n_in
    )
    # size output to half of input
    self_size = n_in // 2
    first_half = self.narrow(wrap_dim, 0, self_size)
    second_half = self.narrow(wrap_dim, self_size, self_size)
    it.build_borrowing_binary_op(it.maybe_get_output(), first_half, second_half)


@impl_function("glu_out", SOURCE)
def glu_out(it: TensorIteratorBase, self: Tensor, dim: int, out: Tensor) -> None:
    glu_stub(it.device_type(), it)


@native_function(SOURCE)
def glu_backward_cpu_out(grad_output: Tensor, self: Tensor, dim: int, grad_input: Tensor) -> Tensor:
    TORCH_CHECK(self.dim() > 0, "glu does not support 0-dimensional tensors")
    wrap_dim = maybe_wrap_dim(dim, self.dim())
    n_in = self.size(wrap_dim)
    TORCH_CHECK(
        n_in % 2 == 0, "Halving dimension must be even, but dimension ", wrap_dim, " is size ", n_in
    )
    grad_input.resize_(list(self.sizes()))  # resize_as_, which tensortrace does not declare
    input_size = n_in // 2
    # half tensor
    first_half = self.narrow(wrap_dim, 0, input_size)
    second_half = self.narrow(wrap_dim, input_size, input_size)
    grad_input_first_half = grad_input.narrow(wrap_dim, 0, input_size)
    grad_input_second_half = grad_input.narrow(wrap_dim, input_size, input_size)
    # grad_input_first_half = grad_output * sigmoid(second_half)
    # grad_input_second_half = (1 - sigmoid(second_half)) * sigmoid(second_half) * input_first_half
    #                       * grad_output
    at.sigmoid(second_half, out=grad_input_first_half)
    it = TensorIterator()
    it.build(
        TensorIteratorConfig()
        .add_output(grad_input_second_half)
        .add_const_input(grad_input_first_half)
        .add_const_input(first_half)
        .add_const_input(grad_output)
    )
    glu_backward_stub(it.device_type(), it)
    grad_input_first_half.mul_(grad_output)
    return grad_input


@native_function(SOURCE)
def glu_backward_cpu(grad_output: Tensor, self: Tensor, dim: int) -> Tensor:
    grad_input = self.new_empty([0])
    return glu_backward_cpu_out(grad_output, self, dim, grad_input)
