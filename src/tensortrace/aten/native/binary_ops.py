"""The binary ops: add, sub, mul, div, floor_divide, remainder, maximum, comparisons, logical and
bitwise ops, with their structured meta/impl halves, Scalar overloads and DispatchStubs.

Mirrors `aten/src/ATen/native/BinaryOps.cpp` / `BinaryOps.h`. A meta function
(TORCH_META_FUNC2(add, Tensor)) builds a TensorIterator over (out, self, other), which
broadcasts, promotes and allocates; the impl (TORCH_IMPL_FUNC(ufunc_add_CPU)) calls a stub,
which jumps to its kernel in native/cpu/binary_ops_kernel.py. Which builder a meta function
picks is the op's type-promotion rule: binary_op (common dtype), binary_float_op (true
division: integers promote to the default float) or comparison_op (a bool result).
"""

from __future__ import annotations

from tensortrace.aten import functions as at
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH, DispatchStub
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.scalar_ops import Scalar, wrapped_scalar_tensor
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIterator, TensorIteratorBase
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType, isComplexType, isFloatingType

SOURCE = "aten/src/ATen/native/BinaryOps.cpp"
HEADER = "aten/src/ATen/native/BinaryOps.h"

add_stub = DECLARE_DISPATCH("add_stub", HEADER)
mul_stub = DECLARE_DISPATCH("mul_stub", HEADER)
div_true_stub = DECLARE_DISPATCH("div_true_stub", HEADER)
div_trunc_stub = DECLARE_DISPATCH("div_trunc_stub", HEADER)
div_floor_stub = DECLARE_DISPATCH("div_floor_stub", HEADER)
remainder_stub = DECLARE_DISPATCH("remainder_stub", HEADER)
maximum_stub = DECLARE_DISPATCH("maximum_stub", HEADER)
minimum_stub = DECLARE_DISPATCH("minimum_stub", HEADER)
logical_and_stub = DECLARE_DISPATCH("logical_and_stub", HEADER)
logical_or_stub = DECLARE_DISPATCH("logical_or_stub", HEADER)
bitwise_and_stub = DECLARE_DISPATCH("bitwise_and_stub", HEADER)
bitwise_or_stub = DECLARE_DISPATCH("bitwise_or_stub", HEADER)
COMPARISON_STUBS = {
    name: DECLARE_DISPATCH(f"{name}_stub", HEADER) for name in ("eq", "ne", "lt", "le", "gt", "ge")
}


def alpha_check(dtype: ScalarType, alpha: Scalar) -> None:
    if type(alpha) is int:  # the usual alpha=1 passes all three checks below
        return
    TORCH_CHECK(
        not isinstance(alpha, bool) or dtype == ScalarType.Bool,
        "Boolean alpha only supported for Boolean results.",
    )
    TORCH_CHECK(
        isFloatingType(dtype) or isComplexType(dtype) or isinstance(alpha, (bool, int)),
        "For integral input tensors, argument alpha must not be a floating point number.",
    )
    TORCH_CHECK(
        isComplexType(dtype) or not isinstance(alpha, complex),
        "For non-complex input tensors, argument alpha must not be a complex number.",
    )


@meta_function("add.Tensor", SOURCE)
def meta_add(it: TensorIteratorBase, self: Tensor, other: Tensor, alpha: Scalar) -> None:
    it.build_borrowing_binary_op(it.maybe_get_output(), self, other)
    alpha_check(it.dtype(), alpha)


@impl_function("ufunc_add_CPU", "build/aten/src/ATen/UfuncCPU_add.cpp", legacy="at::native::add")
def ufunc_add_cpu(
    it: TensorIteratorBase, self: Tensor, other: Tensor, alpha: Scalar, out: Tensor
) -> None:
    add_stub(it.device_type(), it, alpha)


@native_function(SOURCE, name="add", legacy="at::native::add (Scalar other)")
def add_scalar(self: Tensor, other: Scalar, alpha: Scalar = 1) -> Tensor:
    return at.add(self, wrapped_scalar_tensor(other), alpha=alpha)


@native_function(SOURCE, name="add_")
def add_scalar_(self: Tensor, other: Scalar, alpha: Scalar = 1) -> Tensor:
    return self.add_(wrapped_scalar_tensor(other), alpha=alpha)


# ---- sub, rsub -----------------------------------------------------------------------------------
def sub_check(self: Tensor, other: Tensor) -> None:
    TORCH_CHECK(
        self.scalar_type() != ScalarType.Bool or other.scalar_type() != ScalarType.Bool,
        "Subtraction, the `-` operator, with two bool tensors is not supported. "
        "Use the `^` or `logical_xor()` operator instead.",
    )
    TORCH_CHECK(
        self.scalar_type() != ScalarType.Bool and other.scalar_type() != ScalarType.Bool,
        "Subtraction, the `-` operator, with a bool tensor is not supported. "
        "If you are trying to invert a mask, use the `~` or `logical_not()` operator "
        "instead.",
    )


@meta_function("sub.Tensor", SOURCE)
def meta_sub(it: TensorIteratorBase, self: Tensor, other: Tensor, alpha: Scalar) -> None:
    sub_check(self, other)
    it.build_borrowing_binary_op(it.maybe_get_output(), self, other)
    alpha_check(it.dtype(), alpha)


@impl_function("sub_out", SOURCE, legacy="at::native::sub_out")
def sub_out(
    it: TensorIteratorBase, self: Tensor, other: Tensor, alpha: Scalar, out: Tensor
) -> None:
    # self - alpha * other is add with -alpha: the same add_stub (BinaryOps.cpp)
    add_stub(it.device_type(), it, -alpha)


@native_function(SOURCE, name="sub")
def sub_scalar(self: Tensor, other: Scalar, alpha: Scalar = 1) -> Tensor:
    return at.sub(self, wrapped_scalar_tensor(other), alpha=alpha)


@native_function(SOURCE, name="sub_")
def sub_scalar_(self: Tensor, other: Scalar, alpha: Scalar = 1) -> Tensor:
    return self.sub_(wrapped_scalar_tensor(other), alpha=alpha)


@native_function(SOURCE, name="rsub")
def rsub(self: Tensor, other: Tensor | Scalar, alpha: Scalar = 1) -> Tensor:
    """other - alpha * self: rsub.Tensor redispatches to sub; rsub.Scalar wraps the number."""
    if not isinstance(other, Tensor):
        return rsub(self, wrapped_scalar_tensor(other), alpha)
    return at.sub(other, self, alpha=alpha)


# ---- mul -----------------------------------------------------------------------------------------
@meta_function("mul.Tensor", SOURCE)
def meta_mul(it: TensorIteratorBase, self: Tensor, other: Tensor) -> None:
    it.build_borrowing_binary_op(it.maybe_get_output(), self, other)


@impl_function("mul_out", SOURCE, legacy="at::native::mul_out")
def mul_out(it: TensorIteratorBase, self: Tensor, other: Tensor, out: Tensor) -> None:
    mul_stub(it.device_type(), it)


@native_function(SOURCE, name="mul")
def mul_scalar(self: Tensor, other: Scalar) -> Tensor:
    return at.mul(self, wrapped_scalar_tensor(other))


@native_function(SOURCE, name="mul_")
def mul_scalar_(self: Tensor, other: Scalar) -> Tensor:
    return self.mul_(wrapped_scalar_tensor(other))


# ---- div, true_divide, floor_divide --------------------------------------------------------------
@meta_function("div.Tensor", SOURCE)
def meta_div(it: TensorIteratorBase, self: Tensor, other: Tensor) -> None:
    it.build_borrowing_binary_float_op(it.maybe_get_output(), self, other)


@meta_function("div.Tensor_mode", SOURCE)
def meta_div_mode(
    it: TensorIteratorBase, self: Tensor, other: Tensor, rounding_mode: str | None
) -> None:
    if rounding_mode is None:
        it.build_borrowing_binary_float_op(it.maybe_get_output(), self, other)
    elif rounding_mode in ("trunc", "floor"):
        # rounded division keeps integer inputs integral (torch.div(7, 2, 'floor') == 3)
        it.build_borrowing_binary_op(it.maybe_get_output(), self, other)
    else:
        TORCH_CHECK(
            False,
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '",
            rounding_mode,
            "'",
        )


@impl_function("div_out", SOURCE, legacy="at::native::div_out")
def div_out(it: TensorIteratorBase, self: Tensor, other: Tensor, out: Tensor) -> None:
    div_true_stub(it.device_type(), it)


@impl_function("div_out_mode", SOURCE, legacy="at::native::div_out")
def div_out_mode(
    it: TensorIteratorBase, self: Tensor, other: Tensor, rounding_mode: str | None, out: Tensor
) -> None:
    if rounding_mode is None:
        div_true_stub(it.device_type(), it)
    elif rounding_mode == "trunc":
        div_trunc_stub(it.device_type(), it)
    else:
        div_floor_stub(it.device_type(), it)


@native_function(SOURCE, name="div")
def div_scalar(self: Tensor, other: Scalar, rounding_mode: str | None = None) -> Tensor:
    if rounding_mode is None:
        return self.div(wrapped_scalar_tensor(other))
    return self.div(wrapped_scalar_tensor(other), rounding_mode=rounding_mode)


@native_function(SOURCE, name="div_")
def div_scalar_(self: Tensor, other: Scalar, rounding_mode: str | None = None) -> Tensor:
    if rounding_mode is None:
        return self.div_(wrapped_scalar_tensor(other))
    return self.div_(wrapped_scalar_tensor(other), rounding_mode=rounding_mode)


@native_function(SOURCE)
def true_divide(self: Tensor, other: Tensor) -> Tensor:
    """CompositeImplicitAutograd: an alias of div."""
    return self.div(other)


@native_function(SOURCE, name="floor_divide_out")
def floor_divide_out(self: Tensor, other: Tensor, out: Tensor) -> Tensor:
    it = TensorIterator.binary_op(out, self, other)
    div_floor_stub(it.device_type(), it)
    return out


@native_function(SOURCE)
def floor_divide(self: Tensor, other: Tensor | Scalar) -> Tensor:
    """floor_divide(Tensor) runs div_floor_stub; floor_divide.Scalar wraps the number."""
    if not isinstance(other, Tensor):
        return at.floor_divide(self, wrapped_scalar_tensor(other))
    it = TensorIterator.binary_op(Tensor(), self, other)
    div_floor_stub(it.device_type(), it)
    return it.output()


@native_function(SOURCE)
def floor_divide_(self: Tensor, other: Tensor | Scalar) -> Tensor:
    if not isinstance(other, Tensor):
        return at.floor_divide_out(self, wrapped_scalar_tensor(other), out=self)
    return floor_divide_out(self, other, self)


# ---- remainder -----------------------------------------------------------------------------------
@meta_function("remainder.Tensor", SOURCE)
def meta_remainder(it: TensorIteratorBase, self: Tensor, other: Tensor) -> None:
    it.build_borrowing_binary_op(it.maybe_get_output(), self, other)


@impl_function("remainder_out", SOURCE, legacy="at::native::remainder_out")
def remainder_out_impl(it: TensorIteratorBase, self: Tensor, other: Tensor, out: Tensor) -> None:
    remainder_stub(it.device_type(), it)


@native_function(SOURCE)
def remainder(self: Tensor | Scalar, other: Tensor | Scalar) -> Tensor:
    """remainder.Scalar and remainder.Scalar_Tensor: wrap the number, redispatch."""
    if not isinstance(self, Tensor):
        return at.remainder(wrapped_scalar_tensor(self), other)
    assert not isinstance(other, Tensor)  # remainder.Tensor has its own kernel
    return at.remainder(self, wrapped_scalar_tensor(other))


@native_function(SOURCE)
def remainder_(self: Tensor, other: Scalar) -> Tensor:
    return self.remainder_(wrapped_scalar_tensor(other))


@native_function(SOURCE)
def remainder_out(self: Tensor, other: Scalar, out: Tensor) -> Tensor:
    return at.remainder(self, wrapped_scalar_tensor(other), out=out)


# ---- maximum, minimum ----------------------------------------------------------------------------
@meta_function("maximum", SOURCE)
def meta_maximum(it: TensorIteratorBase, self: Tensor, other: Tensor) -> None:
    TORCH_CHECK(
        not self.is_complex() and not other.is_complex(),
        "maximum not implemented for complex tensors.",
    )
    it.build_borrowing_binary_op(it.maybe_get_output(), self, other)


@impl_function("maximum_out", SOURCE, legacy="at::native::maximum_out")
def maximum_out(it: TensorIteratorBase, self: Tensor, other: Tensor, out: Tensor) -> None:
    maximum_stub(it.device_type(), it)


@meta_function("minimum", SOURCE)
def meta_minimum(it: TensorIteratorBase, self: Tensor, other: Tensor) -> None:
    TORCH_CHECK(
        not self.is_complex() and not other.is_complex(),
        "minimum not implemented for complex tensors.",
    )
    it.build_borrowing_binary_op(it.maybe_get_output(), self, other)


@impl_function("minimum_out", SOURCE, legacy="at::native::minimum_out")
def minimum_out(it: TensorIteratorBase, self: Tensor, other: Tensor, out: Tensor) -> None:
    minimum_stub(it.device_type(), it)


# ---- comparisons: eq ne lt le gt ge (CREATE_COMPARISON_SCALAR_TENSOR_META_FUNC) ------------------
def _register_comparison(name: str, stub: DispatchStub) -> None:
    def meta_tensor(it: TensorIteratorBase, self: Tensor, other: Tensor) -> None:
        it.build_borrowing_comparison_op(it.maybe_get_output(), self, other)

    def meta_scalar(it: TensorIteratorBase, self: Tensor, other: Scalar) -> None:
        it.build_borrowing_except_last_argument_comparison_op(
            it.maybe_get_output(), self, wrapped_scalar_tensor(other)
        )

    def impl(it: TensorIteratorBase, self: Tensor, other: Tensor | Scalar, out: Tensor) -> None:
        stub(it.device_type(), it)

    meta_function(f"{name}.Tensor", SOURCE)(meta_tensor)
    meta_function(f"{name}.Scalar", SOURCE)(meta_scalar)
    impl_function(f"{name}_Tensor_out", SOURCE, legacy=f"at::native::{name}_out")(impl)
    impl_function(f"{name}_Scalar_out", SOURCE, legacy=f"at::native::{name}_out")(impl)


# ---- logical_and, logical_or (comparison_op: a bool result) --------------------------------------
def _register_logical(name: str, stub: DispatchStub) -> None:
    def out_fn(self: Tensor, other: Tensor, out: Tensor) -> Tensor:
        it = TensorIterator.comparison_op(out, self, other)
        stub(it.device_type(), it)
        return out

    def functional(self: Tensor, other: Tensor) -> Tensor:
        result = at.empty([0], dtype=ScalarType.Bool, device=self.device())
        return getattr(at, name)(self, other, out=result)

    def inplace(self: Tensor, other: Tensor) -> Tensor:
        return getattr(at, name)(self, other, out=self)

    native_function(SOURCE, name=f"{name}_out")(out_fn)
    native_function(SOURCE, name=name)(functional)
    native_function(SOURCE, name=f"{name}_")(inplace)


# ---- bitwise_and, bitwise_or and the & | operators -----------------------------------------------
def _register_bitwise(name: str, dunder: str, stub: DispatchStub) -> None:
    def meta(it: TensorIteratorBase, self: Tensor, other: Tensor) -> None:
        it.build_borrowing_binary_op(it.maybe_get_output(), self, other)

    def impl(it: TensorIteratorBase, self: Tensor, other: Tensor, out: Tensor) -> None:
        stub(it.device_type(), it)

    def op(self: Tensor, other: Tensor | Scalar) -> Tensor:  # __and__: CompositeImplicit
        return getattr(at, name)(self, other)

    def iop(self: Tensor, other: Tensor | Scalar) -> Tensor:  # __iand__
        return getattr(self, f"{name}_")(other)

    meta_function(f"{name}.Tensor", SOURCE)(meta)
    impl_function(f"{name}_out", SOURCE, legacy=f"at::native::{name}_out")(impl)
    register_scalar_other(name, SOURCE)
    native_function(SOURCE, name=f"__{dunder}__")(op)
    native_function(SOURCE, name=f"__i{dunder}__")(iop)


def register_scalar_other(name: str, source: str, legacy: bool = False) -> None:
    """The `.Scalar` overloads of a binary op: wrap the number, call the Tensor overload."""

    def scalar(self: Tensor, other: Scalar) -> Tensor:
        return getattr(at, name)(self, wrapped_scalar_tensor(other))

    def scalar_(self: Tensor, other: Scalar) -> Tensor:
        return getattr(self, f"{name}_")(wrapped_scalar_tensor(other))

    def scalar_out(self: Tensor, other: Scalar, out: Tensor) -> Tensor:
        return getattr(at, name)(self, wrapped_scalar_tensor(other), out=out)

    for fn, cpp_name in ((scalar, name), (scalar_, f"{name}_"), (scalar_out, f"{name}_out")):
        native_function(
            source, name=cpp_name, legacy=f"at::native::{cpp_name}" if legacy else None
        )(fn)


for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    _register_comparison(_name, COMPARISON_STUBS[_name])
_register_logical("logical_and", logical_and_stub)
_register_logical("logical_or", logical_or_stub)
_register_bitwise("bitwise_and", "and", bitwise_and_stub)
_register_bitwise("bitwise_or", "or", bitwise_or_stub)


# max(self, other) and min(self, other) are maximum and minimum under their old names
@native_function(SOURCE, name="max", legacy="at::native::max (Tensor other)")
def max_other(self: Tensor, other: Tensor) -> Tensor:
    return at.maximum(self, other)


@native_function(SOURCE, name="max_out")
def max_out(self: Tensor, other: Tensor, out: Tensor) -> Tensor:
    return at.maximum(self, other, out=out)


@native_function(SOURCE, name="min", legacy="at::native::min (Tensor other)")
def min_other(self: Tensor, other: Tensor) -> Tensor:
    return at.minimum(self, other)


@native_function(SOURCE, name="min_out")
def min_out(self: Tensor, other: Tensor, out: Tensor) -> Tensor:
    return at.minimum(self, other, out=out)
