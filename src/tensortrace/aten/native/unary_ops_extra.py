"""The unary ops of the long tail: log1p, expm1, the inverse and hyperbolic trig functions, frac.

Mirrors their CREATE_UNARY_FLOAT_META_FUNC / TORCH_META_FUNC and CREATE_UNARY_TORCH_IMPL_FUNC in
`aten/src/ATen/native/UnaryOps.cpp`: the float ops build with unary_float_op (integers and
bools compute in the default float), frac with unary_op (it keeps its dtype, and its kernel only
takes floating dtypes). Kept apart from unary_ops.py so that file stays about the seed's ops.
"""

from __future__ import annotations

from tensortrace.aten import functions as at
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH, DispatchStub
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.native.unary_ops import register_structured_unary
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorConfig
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType, isFloatingType

SOURCE = "aten/src/ATen/native/UnaryOps.cpp"
HEADER = "aten/src/ATen/native/UnaryOps.h"

FLOAT_OPS = ("log1p", "expm1", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh")
STUBS: dict[str, DispatchStub] = {
    name: DECLARE_DISPATCH(f"{name}_stub", HEADER) for name in (*FLOAT_OPS, "frac")
}


for _name in FLOAT_OPS:
    register_structured_unary(_name, float_op=True, stub=STUBS[_name])
register_structured_unary("frac", float_op=False, stub=STUBS["frac"])


# ---- conj_physical and frexp -------------------------------------------------------------------
@native_function(SOURCE, name="conj_physical", legacy="at::native::conj_physical")
def conj_physical(self: Tensor) -> Tensor:
    """The conjugate, materialised; a real tensor is its own conjugate (returned as is)."""
    return self


@native_function(SOURCE, name="frexp", legacy="at::native::frexp")
def frexp(self: Tensor) -> tuple[Tensor, Tensor]:
    TORCH_CHECK(
        isFloatingType(self.scalar_type()), "torch.frexp() only supports floating-point dtypes"
    )
    mantissa = at.empty_like(self)
    exponent = at.empty_like(self, dtype=ScalarType.Int)
    return frexp_out(self, mantissa, exponent)


@native_function(SOURCE, name="frexp_out", legacy="at::native::frexp_out")
def frexp_out(self: Tensor, mantissa: Tensor, exponent: Tensor) -> tuple[Tensor, Tensor]:
    TORCH_CHECK(
        isFloatingType(self.scalar_type()), "torch.frexp() only supports floating-point dtypes"
    )
    TORCH_CHECK(
        mantissa.scalar_type() == self.scalar_type(),
        "torch.frexp() expects mantissa to have dtype ",
        self.scalar_type(),
        " but got ",
        mantissa.scalar_type(),
    )
    TORCH_CHECK(
        exponent.scalar_type() == ScalarType.Int,
        "torch.frexp() expects exponent to have int dtype but got ",
        exponent.scalar_type(),
    )
    it = (
        TensorIteratorConfig()
        .add_output(mantissa)
        .add_output(exponent)
        .add_const_input(self)
        .check_all_same_dtype(False)
        .set_check_mem_overlap(True)
        .build()
    )
    frexp_stub(it.device_type(), it)
    return mantissa, exponent


frexp_stub = DECLARE_DISPATCH("frexp_stub", HEADER)
