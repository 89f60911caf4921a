"""atan2 (arctan2), fmod, xlogy, logical_xor, copysign, heaviside, fmax, fmin, logaddexp and
float_power.

Mirrors their TORCH_META_FUNC / TORCH_IMPL_FUNC, Scalar overloads and composites in
`aten/src/ATen/native/BinaryOps.cpp` (float_power in `Pow.cpp`): atan2, xlogy and copysign build
with binary_float_op (integers compute in the default float), fmod, heaviside, fmax, fmin and
logaddexp with binary_op; logical_xor is a comparison op (a bool result); a Scalar operand is
wrapped as a 0-dim tensor; float_power computes in double (complex double for complex inputs).
Kernels: cpu/binary_ops_math_kernel.py.
"""

from __future__ import annotations

from typing import Any

from tensortrace.aten import functions
from tensortrace.aten.native.binary_ops import _register_logical, register_scalar_other
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH, DispatchStub
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.scalar_ops import Scalar, wrapped_scalar_tensor
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType, isComplexType

SOURCE = "aten/src/ATen/native/BinaryOps.cpp"
HEADER = "aten/src/ATen/native/BinaryOps.h"

STUBS: dict[str, DispatchStub] = {
    name: DECLARE_DISPATCH(f"{name}_stub", HEADER)
    for name in (
        "atan2",
        "fmod",
        "xlogy",
        "logical_xor",
        "copysign",
        "heaviside",
        "fmax",
        "fmin",
        "logaddexp",
    )
}


def at() -> Any:
    return functions


def _register(name: str, meta_key: str, float_op: bool) -> None:
    stub = STUBS[name]

    def meta(it: TensorIteratorBase, self: Tensor, other: Tensor) -> None:
        if name in ("fmax", "fmin"):
            TORCH_CHECK(
                not isComplexType(self.scalar_type()),
                f"{name} not implemented for complex tensors.",
            )
        if name == "heaviside":
            TORCH_CHECK(
                not self.is_complex() and not other.is_complex(),
                "heaviside is not yet implemented for complex tensors.",
            )
            TORCH_CHECK(
                self.scalar_type() == other.scalar_type(),
                "heaviside is not yet implemented for tensors with different dtypes.",
            )
        if float_op:
            it.build_borrowing_binary_float_op(it.maybe_get_output(), self, other)
        else:
            it.build_borrowing_binary_op(it.maybe_get_output(), self, other)

    def impl(it: TensorIteratorBase, self: Tensor, other: Tensor, out: Tensor) -> None:
        stub(it.device_type(), it)

    meta_function(meta_key, SOURCE)(meta)
    impl_function(f"{name}_out", SOURCE, legacy=f"at::native::{name}_out")(impl)


for _name, _key, _float in (
    ("atan2", "atan2", True),
    ("fmod", "fmod.Tensor", False),
    ("xlogy", "xlogy.Tensor", True),
    ("copysign", "copysign.Tensor", True),
    ("heaviside", "heaviside", False),
    ("fmax", "fmax", False),
    ("fmin", "fmin", False),
    ("logaddexp", "logaddexp", False),
):
    _register(_name, _key, _float)
_register_logical("logical_xor", STUBS["logical_xor"])


# ---- the Scalar overloads: wrap the number, redispatch ------------------------------------------
register_scalar_other("fmod", SOURCE, legacy=True)
register_scalar_other("copysign", SOURCE, legacy=True)


@native_function(SOURCE, name="xlogy", legacy="at::native::xlogy")
def xlogy(self: Tensor | Scalar, other: Tensor | Scalar) -> Tensor:
    """xlogy.Scalar_Self and xlogy.Scalar_Other."""
    if not isinstance(self, Tensor):
        return at().xlogy(wrapped_scalar_tensor(self), other)
    assert not isinstance(other, Tensor)  # xlogy.Tensor has its own kernel
    return at().xlogy(self, wrapped_scalar_tensor(other))


@native_function(SOURCE, name="xlogy_", legacy="at::native::xlogy_")
def xlogy_(self: Tensor, other: Scalar) -> Tensor:
    return self.xlogy_(wrapped_scalar_tensor(other))


@native_function(SOURCE, name="xlogy_out", legacy="at::native::xlogy_out")
def xlogy_out(self: Tensor | Scalar, other: Tensor | Scalar, out: Tensor) -> Tensor:
    if not isinstance(self, Tensor):
        return at().xlogy(wrapped_scalar_tensor(self), other, out=out)
    assert not isinstance(other, Tensor)  # xlogy.OutTensor has its own kernel
    return at().xlogy(self, wrapped_scalar_tensor(other), out=out)


# ---- arctan2: an alias of atan2 (CompositeImplicitAutograd) -------------------------------------
@native_function(SOURCE, name="arctan2", legacy="at::native::arctan2")
def arctan2(self: Tensor, other: Tensor) -> Tensor:
    return at().atan2(self, other)


@native_function(SOURCE, name="arctan2_", legacy="at::native::arctan2_")
def arctan2_(self: Tensor, other: Tensor) -> Tensor:
    return self.atan2_(other)


@native_function(SOURCE, name="arctan2_out", legacy="at::native::arctan2_out")
def arctan2_out(self: Tensor, other: Tensor, out: Tensor) -> Tensor:
    return at().atan2(self, other, out=out)


# ---- float_power (Pow.cpp): pow in double, or complex double ------------------------------------
POW_SOURCE = "aten/src/ATen/native/Pow.cpp"


def _is_complex(x: Tensor | Scalar) -> bool:
    return x.is_complex() if isinstance(x, Tensor) else isinstance(x, complex)


def _float_power_dtype(base: Tensor | Scalar, exp: Tensor | Scalar) -> ScalarType:
    return ScalarType.ComplexDouble if _is_complex(base) or _is_complex(exp) else ScalarType.Double


def _cast(x: Tensor | Scalar, dtype: ScalarType) -> Tensor | Scalar:
    if isinstance(x, Tensor):
        return x.to(dtype)
    if dtype == ScalarType.ComplexDouble:
        return complex(x)
    assert not isinstance(x, complex)
    return float(x)


@native_function(POW_SOURCE, name="float_power", legacy="at::native::float_power")
def float_power(self: Tensor | Scalar, exponent: Tensor | Scalar) -> Tensor:
    dtype = _float_power_dtype(self, exponent)
    return at().pow(_cast(self, dtype), _cast(exponent, dtype))


@native_function(POW_SOURCE, name="float_power_out", legacy="at::native::float_power_out")
def float_power_out(self: Tensor | Scalar, exponent: Tensor | Scalar, out: Tensor) -> Tensor:
    dtype = _float_power_dtype(self, exponent)
    TORCH_CHECK(
        out.scalar_type() == dtype,
        "the output given to float_power has dtype ",
        out.scalar_type(),
        " but the operation's result requires dtype ",
        dtype,
    )
    return at().pow(_cast(self, dtype), _cast(exponent, dtype), out=out)


@native_function(POW_SOURCE, name="float_power_", legacy="at::native::float_power_")
def float_power_(self: Tensor, exponent: Tensor | Scalar) -> Tensor:
    dtype = _float_power_dtype(self, exponent)
    TORCH_CHECK(
        self.scalar_type() == dtype,
        "the base given to float_power_ has dtype ",
        self.scalar_type(),
        " but the operation's result requires dtype ",
        dtype,
    )
    return self.pow_(_cast(exponent, dtype))
