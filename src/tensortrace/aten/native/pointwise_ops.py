"""addcmul and addcdiv: self + value * tensor1 * tensor2, self + value * tensor1 / tensor2.

Mirrors `aten/src/ATen/native/PointwiseOps.cpp`: both build a ternary TensorIterator (inputs
promoted to a common dtype, cast to the output), and addcdiv refuses two integer tensors.
Adam's update is made of these (`exp_avg_sq.addcmul_(grad, grad, value=1 - beta2)`,
`param.addcdiv_(exp_avg, denom, value=-step_size)`). The kernels are in
native/cpu/pointwise_ops_kernel.py.
"""

from __future__ import annotations

from typing import Any

from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.registry import impl_function, meta_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorBase, TensorIteratorConfig
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import isIntegralType

SOURCE = "aten/src/ATen/native/PointwiseOps.cpp"
HEADER = "aten/src/ATen/native/PointwiseOps.h"

addcmul_stub = DECLARE_DISPATCH("addcmul_stub", HEADER)
addcdiv_stub = DECLARE_DISPATCH("addcdiv_stub", HEADER)


def build_ternary_op(it: TensorIteratorBase, out: Tensor, a: Tensor, b: Tensor, c: Tensor) -> None:
    """TensorIteratorBase::build_ternary_op (TensorIterator.cpp)."""
    it.build(
        TensorIteratorConfig()
        .promote_inputs_to_common_dtype(True)
        .cast_common_dtype_to_outputs(True)
        .enforce_safe_casting_to_output(True)
        .add_output(out)
        .add_const_input(a)
        .add_const_input(b)
        .add_const_input(c)
    )


@meta_function("addcmul", SOURCE)
def meta_addcmul(
    it: TensorIteratorBase, self: Tensor, tensor1: Tensor, tensor2: Tensor, value: Any
) -> None:
    build_ternary_op(it, it.maybe_get_output(), self, tensor1, tensor2)


@impl_function("addcmul_out", SOURCE)
def addcmul_out(
    it: TensorIteratorBase,
    self: Tensor,
    tensor1: Tensor,
    tensor2: Tensor,
    value: Any,
    result: Tensor,
) -> None:
    addcmul_stub(it.device_type(), it, value)


@meta_function("addcdiv", SOURCE)
def meta_addcdiv(
    it: TensorIteratorBase, self: Tensor, tensor1: Tensor, tensor2: Tensor, value: Any
) -> None:
    if isIntegralType(tensor1.scalar_type(), True) and isIntegralType(tensor2.scalar_type(), True):
        TORCH_CHECK(
            False,
            "Integer division with addcdiv is no longer supported, and in a "
            "future  release addcdiv will perform a true division of tensor1 and "
            "tensor2. The historic addcdiv behavior can be implemented as "
            "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
            "integer inputs and as (input + value * tensor1 / tensor2) for float "
            "inputs. The future addcdiv behavior is just the latter implementation: "
            "(input + value * tensor1 / tensor2), for all dtypes.",
        )
    build_ternary_op(it, it.maybe_get_output(), self, tensor1, tensor2)


@impl_function("addcdiv_out", SOURCE)
def addcdiv_out(
    it: TensorIteratorBase,
    self: Tensor,
    tensor1: Tensor,
    tensor2: Tensor,
    value: Any,
    result: Tensor,
) -> None:
    addcdiv_stub(it.device_type(), it, value)
