"""The unary ops: neg, abs, exp, log, sqrt, sin, cos, tanh, sigmoid, reciprocal, bitwise_not,
logical_not, with their structured meta/impl halves and DispatchStubs.

Mirrors `aten/src/ATen/native/UnaryOps.cpp` / `UnaryOps.h`. Two type-promotion rules: a
*float* op (CREATE_UNARY_FLOAT_META_FUNC: exp, log, sqrt, sin, cos, tanh, sigmoid, reciprocal)
builds with unary_float_op, so bool and integer inputs compute in the default float; the others
(neg, abs, bitwise_not) build with unary_op, which keeps the input's dtype and requires the
output to have it too.
"""

from __future__ import annotations

from tensortrace.aten import functions as at
from tensortrace.aten.native.complex_ops import unary_op_impl_with_complex_to_float_out
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH, DispatchStub
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import (
    TensorIteratorBase,
    TensorIteratorConfig,
)
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType, toRealValueType

SOURCE = "aten/src/ATen/native/UnaryOps.cpp"
HEADER = "aten/src/ATen/native/UnaryOps.h"

FLOAT_OPS = ("exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "reciprocal")
STUBS: dict[str, DispatchStub] = {
    name: DECLARE_DISPATCH(f"{name}_stub", HEADER)
    for name in (*FLOAT_OPS, "neg", "abs", "bitwise_not", "logical_not")
}
neg_stub, abs_stub = STUBS["neg"], STUBS["abs"]
bitwise_not_stub, logical_not_stub = STUBS["bitwise_not"], STUBS["logical_not"]


def register_structured_unary(name: str, float_op: bool, stub: DispatchStub | None = None) -> None:
    """CREATE_UNARY_FLOAT_META_FUNC(name) / TORCH_META_FUNC(name), CREATE_UNARY_TORCH_IMPL_FUNC."""
    stub = stub or STUBS[name]

    def meta(it: TensorIteratorBase, self: Tensor) -> None:
        if name == "neg":
            TORCH_CHECK(
                self.scalar_type() != ScalarType.Bool,
                "Negation, the `-` operator, on a bool tensor is not supported. If you "
                "are trying to invert a mask, use the `~` or `logical_not()` operator "
                "instead.",
            )
        if float_op:
            it.build_borrowing_unary_float_op(it.maybe_get_output(), self)
        else:
            it.build_borrowing_unary_op(it.maybe_get_output(), self)

    def impl(it: TensorIteratorBase, self: Tensor, out: Tensor) -> None:
        stub(it.device_type(), it)

    meta_function(name, SOURCE)(meta)
    impl_function(f"{name}_out", SOURCE, legacy=f"at::native::{name}_out")(impl)


for _name in FLOAT_OPS:
    register_structured_unary(_name, float_op=True)
register_structured_unary("neg", float_op=False)
register_structured_unary("bitwise_not", float_op=False)


# ---- abs: not structured (unary_op_impl_with_complex_to_float) -----------------------------------
@native_function(SOURCE)
def abs_out(self: Tensor, out: Tensor) -> Tensor:
    return unary_op_impl_with_complex_to_float_out(out, self, abs_stub, False)


@native_function(SOURCE, name="abs")
def abs_(self: Tensor) -> Tensor:
    """unary_op_impl_with_complex_to_float: the result of a complex tensor is real."""
    if self.is_complex():
        result = at.empty_like(self, dtype=toRealValueType(self.scalar_type()))
    else:
        result = at.empty([0], dtype=self.scalar_type(), device=self.device())
    return at.abs(self, out=result)


@native_function(SOURCE, name="abs_")
def abs_inplace(self: Tensor) -> Tensor:
    TORCH_CHECK(not self.is_complex(), "In-place abs is not supported for complex tensors.")
    return at.abs(self, out=self)


# ---- logical_not: any input dtype, a bool (or the out= tensor's) result --------------------------
@native_function(SOURCE)
def logical_not_out(self: Tensor, out: Tensor) -> Tensor:
    it = (
        TensorIteratorConfig()
        .check_all_same_dtype(False)
        .add_output(out)
        .add_const_input(self)
        .build()
    )
    logical_not_stub(it.device_type(), it)
    return out


@native_function(SOURCE)
def logical_not(self: Tensor) -> Tensor:
    result = at.empty([0], dtype=ScalarType.Bool, device=self.device())
    return at.logical_not(self, out=result)


@native_function(SOURCE)
def logical_not_(self: Tensor) -> Tensor:
    return at.logical_not(self, out=self)
