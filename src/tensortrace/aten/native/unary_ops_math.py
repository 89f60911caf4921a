"""The rounding and special unary ops: floor, ceil, trunc, round (and round(decimals=)), fix,
tan, log2, log10, exp2, rsqrt, erf, erfc, sinc, signbit and square.

Mirrors their TORCH_META_FUNC / TORCH_IMPL_FUNC in `aten/src/ATen/native/UnaryOps.cpp`: the
float ops build with unary_float_op (integers and bools compute in the default float); floor,
ceil, trunc and round build with unary_op, refuse complex inputs, and copy an integral input
unchanged (their kernels only take floating dtypes, so a bool input reaches the kernel and is
refused there); signbit builds a boolean output. fix and square are CompositeImplicitAutograd
(fix is trunc, square is pow(self, 2)).
"""

from __future__ import annotations

from tensortrace.aten import functions as at
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH, DispatchStub
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.native.unary_ops import register_structured_unary
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorBase, TensorIteratorConfig
from tensortrace.c10.exception import TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar_type import ScalarType, isIntegralType

SOURCE = "aten/src/ATen/native/UnaryOps.cpp"
HEADER = "aten/src/ATen/native/UnaryOps.h"

FLOAT_OPS = ("tan", "log2", "log10", "exp2", "rsqrt", "erf", "erfc", "sinc")
ROUNDING_OPS = ("floor", "ceil", "trunc", "round")
STUBS: dict[str, DispatchStub] = {
    name: DECLARE_DISPATCH(f"{name}_stub", HEADER)
    for name in (*FLOAT_OPS, *ROUNDING_OPS, "round_decimals", "signbit")
}

for _name in FLOAT_OPS:
    register_structured_unary(_name, float_op=True, stub=STUBS[_name])


def _register_rounding(name: str) -> None:
    """TORCH_META_FUNC(floor) ... and TORCH_IMPL_FUNC(floor_out): integral inputs are copied."""
    stub = STUBS[name]

    def meta(it: TensorIteratorBase, self: Tensor) -> None:
        TORCH_CHECK_NOT_IMPLEMENTED(
            not self.is_complex(), f"{name} is not supported for complex inputs"
        )
        it.build_borrowing_unary_op(it.maybe_get_output(), self)

    def impl(it: TensorIteratorBase, self: Tensor, out: Tensor) -> None:
        if isIntegralType(self.scalar_type(), False):
            out.copy_(self)
        else:
            stub(it.device_type(), it)

    meta_function(name, SOURCE)(meta)
    impl_function(f"{name}_out", SOURCE, legacy=f"at::native::{name}_out")(impl)


for _name in ROUNDING_OPS:
    _register_rounding(_name)


@meta_function("round.decimals", SOURCE)
def round_decimals_meta(it: TensorIteratorBase, self: Tensor, decimals: int) -> None:
    it.build_borrowing_unary_op(it.maybe_get_output(), self)


@impl_function("round_decimals_out", SOURCE, legacy="at::native::round_decimals_out")
def round_decimals_out(it: TensorIteratorBase, self: Tensor, decimals: int, out: Tensor) -> None:
    if decimals != 0:
        STUBS["round_decimals"](it.device_type(), it, decimals)
    else:
        STUBS["round"](it.device_type(), it)


@meta_function("signbit", SOURCE)
def signbit_meta(it: TensorIteratorBase, self: Tensor) -> None:
    TORCH_CHECK_NOT_IMPLEMENTED(
        not self.is_complex(), "signbit is not implemented for complex tensors."
    )
    it.build(
        TensorIteratorConfig()
        .set_check_mem_overlap(True)
        .check_all_same_dtype(False)
        .declare_static_dtype(ScalarType.Bool)
        .add_output(it.maybe_get_output())
        .add_const_input(self)
    )


@impl_function("signbit_out", SOURCE, legacy="at::native::signbit_out")
def signbit_out(it: TensorIteratorBase, self: Tensor, out: Tensor) -> None:
    if self.scalar_type() == ScalarType.Bool:
        out.fill_(False)
    else:
        STUBS["signbit"](it.device_type(), it)


# ---- CompositeImplicitAutograd: fix (= trunc) and square (= pow(self, 2)) -----------------------
@native_function(SOURCE, name="fix", legacy="at::native::fix")
def fix(self: Tensor) -> Tensor:
    return at.trunc(self)


@native_function(SOURCE, name="fix_", legacy="at::native::fix_")
def fix_(self: Tensor) -> Tensor:
    return self.trunc_()


@native_function(SOURCE, name="fix_out", legacy="at::native::fix_out")
def fix_out(self: Tensor, out: Tensor) -> Tensor:
    return at.trunc(self, out=out)


@native_function(SOURCE, name="square", legacy="at::native::square")
def square(self: Tensor) -> Tensor:
    return at.pow(self, 2)


@native_function(SOURCE, name="square_", legacy="at::native::square_")
def square_(self: Tensor) -> Tensor:
    return self.pow_(2)


@native_function(SOURCE, name="square_out", legacy="at::native::square_out")
def square_out(self: Tensor, out: Tensor) -> Tensor:
    return at.pow(self, 2, out=out)
