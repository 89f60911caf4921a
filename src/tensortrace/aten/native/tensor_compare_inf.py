"""isposinf, isneginf and nan_to_num.

Mirrors TORCH_META_FUNC(isposinf) / TORCH_IMPL_FUNC(isposinf_out) (and isneginf) in
`aten/src/ATen/native/TensorCompare.cpp` (a boolean output; a non-floating input is all False
without a kernel) and nan_to_num / nan_to_num_ / nan_to_num_out in `UnaryOps.cpp` (integral
inputs are copied; NaN, +inf and -inf become `nan` (0), `posinf` (the dtype's max) and `neginf`
(its lowest); a complex input has its real and imaginary parts replaced apart).
Kernels: cpu/tensor_compare_inf_kernel.py.
"""

from __future__ import annotations

from tensortrace.aten import functions as at
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.native.resize import resize_output
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import (
    TensorIterator,
    TensorIteratorBase,
    TensorIteratorConfig,
)
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType, isIntegralType

SOURCE = "aten/src/ATen/native/TensorCompare.cpp"
UNARY = "aten/src/ATen/native/UnaryOps.cpp"

isposinf_stub = DECLARE_DISPATCH("isposinf_stub", "aten/src/ATen/native/TensorCompare.h")
isneginf_stub = DECLARE_DISPATCH("isneginf_stub", "aten/src/ATen/native/TensorCompare.h")
nan_to_num_stub = DECLARE_DISPATCH("nan_to_num_stub", "aten/src/ATen/native/UnaryOps.h")


def _register_isinf(name: str) -> None:
    stub = isposinf_stub if name == "isposinf" else isneginf_stub

    def meta(it: TensorIteratorBase, self: Tensor) -> None:
        TORCH_CHECK(not self.is_complex(), f"{name} does not support complex inputs.")
        it.build(
            TensorIteratorConfig()
            .set_check_mem_overlap(True)
            .check_all_same_dtype(False)
            .declare_static_dtype(ScalarType.Bool)
            .add_output(it.maybe_get_output())
            .add_const_input(self)
        )

    def impl(it: TensorIteratorBase, self: Tensor, out: Tensor) -> None:
        TORCH_CHECK(
            out.scalar_type() == ScalarType.Bool, f"{name} does not support non-boolean outputs."
        )
        if self.is_floating_point():
            stub(it.device_type(), it)
        else:
            out.fill_(False)

    meta_function(name, SOURCE)(meta)
    impl_function(f"{name}_out", SOURCE, legacy=f"at::native::{name}_out")(impl)


_register_isinf("isposinf")
_register_isinf("isneginf")


@native_function(UNARY, name="nan_to_num_out", legacy="at::native::nan_to_num_out")
def nan_to_num_out(
    self: Tensor, nan: float | None, posinf: float | None, neginf: float | None, out: Tensor
) -> Tensor:
    TORCH_CHECK(
        self.scalar_type() == out.scalar_type(),
        "nan_to_num: dtype of out: ",
        out.scalar_type(),
        " should be same as input: ",
        self.scalar_type(),
    )
    if isIntegralType(self.scalar_type(), True):
        resize_output(out, self.sizes())
        out.copy_(self)
        return out
    it = TensorIterator.unary_op(out, self)
    nan_to_num_stub(it.device_type(), it, nan, posinf, neginf)
    return out


@native_function(UNARY, name="nan_to_num", legacy="at::native::nan_to_num")
def nan_to_num(
    self: Tensor, nan: float | None = None, posinf: float | None = None, neginf: float | None = None
) -> Tensor:
    result = at.empty_like(self)
    return at.nan_to_num(self, nan, posinf, neginf, out=result)


@native_function(UNARY, name="nan_to_num_", legacy="at::native::nan_to_num_")
def nan_to_num_(
    self: Tensor, nan: float | None = None, posinf: float | None = None, neginf: float | None = None
) -> Tensor:
    return at.nan_to_num(self, nan, posinf, neginf, out=self)
