"""The aliases torch defines as CompositeImplicitAutograd functions (absolute, arccos ...
arctanh, greater / greater_equal / less / less_equal / not_equal, multiply, divide, subtract,
negative, positive, true_divide_), isreal, and deg2rad / rad2deg.

Mirrors `aten/src/ATen/native/UnaryOps.cpp` (absolute, arc*, negative, positive, deg2rad,
rad2deg, isreal), `BinaryOps.cpp` (the comparison aliases, multiply, divide, subtract,
true_divide_): each alias redispatches to the op it names, so the trace shows the alias and,
under it, the op that computes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tensortrace.aten import functions
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.scalar_ops import wrapped_scalar_tensor
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.default_dtype import get_default_dtype
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType, isFloatingType, isIntegralType

UNARY = "aten/src/ATen/native/UnaryOps.cpp"
BINARY = "aten/src/ATen/native/BinaryOps.cpp"


def at() -> Any:
    return functions


def _register_alias(alias: str, target: str, source: str, binary: bool) -> None:
    """alias(args) = at::target(args); alias_(args) = self.target_(args); alias_out likewise."""

    def unary(self: Tensor) -> Tensor:
        return getattr(at(), target)(self)

    def unary_(self: Tensor) -> Tensor:
        return getattr(self, f"{target}_")()

    def unary_out(self: Tensor, out: Tensor) -> Tensor:
        return getattr(at(), target)(self, out=out)

    def binary_(self: Tensor, other: Any) -> Tensor:
        return getattr(at(), target)(self, other)

    def binary_inplace(self: Tensor, other: Any) -> Tensor:
        return getattr(self, f"{target}_")(other)

    def binary_out(self: Tensor, other: Any, out: Tensor) -> Tensor:
        return getattr(at(), target)(self, other, out=out)

    fns: tuple[Callable[..., Tensor], ...] = (
        (binary_, binary_inplace, binary_out) if binary else (unary, unary_, unary_out)
    )
    for suffix, fn in zip(("", "_", "_out"), fns):
        fn.__name__ = f"{alias}{suffix}"
        native_function(source, name=fn.__name__, legacy=f"at::native::{fn.__name__}")(fn)


for _alias, _target in (
    ("absolute", "abs"),
    ("arccos", "acos"),
    ("arccosh", "acosh"),
    ("arcsin", "asin"),
    ("arcsinh", "asinh"),
    ("arctan", "atan"),
    ("arctanh", "atanh"),
    ("negative", "neg"),
):
    _register_alias(_alias, _target, UNARY, binary=False)
for _alias, _target in (
    ("greater", "gt"),
    ("greater_equal", "ge"),
    ("less", "lt"),
    ("less_equal", "le"),
    ("not_equal", "ne"),
    ("multiply", "mul"),
):
    _register_alias(_alias, _target, BINARY, binary=True)


@native_function(BINARY, name="subtract", legacy="at::native::subtract")
def subtract(self: Tensor, other: Any, alpha: Any = 1) -> Tensor:
    return at().sub(self, other, alpha=alpha)


@native_function(BINARY, name="subtract_", legacy="at::native::subtract_")
def subtract_(self: Tensor, other: Any, alpha: Any = 1) -> Tensor:
    return self.sub_(other, alpha=alpha)


@native_function(BINARY, name="subtract_out", legacy="at::native::subtract_out")
def subtract_out(self: Tensor, other: Tensor, alpha: Any, out: Tensor) -> Tensor:
    return at().sub(self, other, alpha=alpha, out=out)


def _mode(rounding_mode: str | None) -> dict[str, Any]:
    return {} if rounding_mode is None else {"rounding_mode": rounding_mode}


@native_function(BINARY, name="divide", legacy="at::native::divide")
def divide(self: Tensor, other: Any, rounding_mode: str | None = None) -> Tensor:
    """divide.Tensor / .Scalar and .Tensor_mode / .Scalar_mode: at::div."""
    return at().div(self, other, **_mode(rounding_mode))


@native_function(BINARY, name="divide_", legacy="at::native::divide_")
def divide_(self: Tensor, other: Any, rounding_mode: str | None = None) -> Tensor:
    return self.div_(other, **_mode(rounding_mode))


@native_function(BINARY, name="divide_out", legacy="at::native::divide_out")
def divide_out(
    self: Tensor, other: Tensor, rounding_mode: str | None = None, out: Tensor | None = None
) -> Tensor:
    return at().div(self, other, **_mode(rounding_mode), out=out)


@native_function(BINARY, name="true_divide_", legacy="at::native::true_divide_")
def true_divide_(self: Tensor, other: Any) -> Tensor:
    return self.div_(other)


@native_function(UNARY, name="positive", legacy="at::native::positive")
def positive(self: Tensor) -> Tensor:
    TORCH_CHECK(
        self.scalar_type() != ScalarType.Bool,
        "The `+` operator, on a bool tensor is not supported.",
    )
    return self


@native_function(UNARY, name="isreal", legacy="at::native::isreal")
def isreal(self: Tensor) -> Tensor:
    """Integral and floating tensors are always real; a complex one where its imag is 0."""
    dtype = self.scalar_type()
    if isIntegralType(dtype, True) or isFloatingType(dtype):
        return at().ones_like(self, dtype=ScalarType.Bool)
    return at().imag(self).eq(0)


# ---- deg2rad, rad2deg: a multiplication by a wrapped double ----------------------------------
M_PI_180 = 0.017453292519943295769236907684886127134428718885417
M_180_PI = 57.295779513082320876798154814105170332405472466564


def _register_angle(name: str, factor: float) -> None:
    def out_fn(self: Tensor, out: Tensor) -> Tensor:
        TORCH_CHECK(not self.is_complex(), f"{name} is not supported for complex tensors.")
        return at().mul(self, wrapped_scalar_tensor(factor), out=out)

    def functional(self: Tensor) -> Tensor:
        TORCH_CHECK(not self.is_complex(), f"{name} is not supported for complex tensors.")
        dtype = self.scalar_type()
        if isIntegralType(dtype, True):
            dtype = get_default_dtype()
        result = at().empty_like(self, dtype=dtype)
        return getattr(at(), f"{name}")(self, out=result)

    def inplace(self: Tensor) -> Tensor:
        return getattr(at(), name)(self, out=self)

    native_function(UNARY, name=f"{name}_out", legacy=f"at::native::{name}_out")(out_fn)
    native_function(UNARY, name=name, legacy=f"at::native::{name}")(functional)
    native_function(UNARY, name=f"{name}_", legacy=f"at::native::{name}_")(inplace)


_register_angle("deg2rad", M_PI_180)
_register_angle("rad2deg", M_180_PI)
