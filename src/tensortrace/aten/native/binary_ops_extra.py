"""bitwise_xor (and ^), bitwise_left_shift / bitwise_right_shift (and << >>), hypot.

Mirrors their TORCH_META_FUNC / TORCH_IMPL_FUNC and the Scalar overloads in
`aten/src/ATen/native/BinaryOps.cpp`: structured binary ops built with build_borrowing_binary_op
(the common dtype of the operands), a Scalar operand wrapped as a 0-dim tensor, and the dunder
ops (__xor__, __lshift__, __rshift__) calling the named ones.
Kernels: cpu/binary_ops_extra_kernel.py.
"""

from __future__ import annotations

from typing import Any

from tensortrace.aten import functions
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH, DispatchStub
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.scalar_ops import Scalar, wrapped_scalar_tensor
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorBase

SOURCE = "aten/src/ATen/native/BinaryOps.cpp"
HEADER = "aten/src/ATen/native/BinaryOps.h"

bitwise_xor_stub = DECLARE_DISPATCH("bitwise_xor_stub", HEADER)
lshift_stub = DECLARE_DISPATCH("lshift_stub", HEADER)
rshift_stub = DECLARE_DISPATCH("rshift_stub", HEADER)
hypot_stub = DECLARE_DISPATCH("hypot_stub", HEADER)


def at() -> Any:
    return functions


def _register_structured(name: str, meta_key: str, impl_name: str, stub: DispatchStub) -> None:
    def meta(it: TensorIteratorBase, self: Tensor, other: Tensor) -> None:
        it.build_borrowing_binary_op(it.maybe_get_output(), self, other)

    def impl(it: TensorIteratorBase, self: Tensor, other: Tensor, out: Tensor) -> None:
        stub(it.device_type(), it)

    meta_function(meta_key, SOURCE)(meta)
    impl_function(impl_name, SOURCE, legacy=f"at::native::{impl_name}")(impl)


def _register_scalar_overloads(name: str, with_out: bool) -> None:
    def scalar(self: Tensor, other: Scalar) -> Tensor:
        return getattr(at(), name)(self, wrapped_scalar_tensor(other))

    def scalar_(self: Tensor, other: Scalar) -> Tensor:
        return getattr(self, f"{name}_")(wrapped_scalar_tensor(other))

    native_function(SOURCE, name=name)(scalar)
    native_function(SOURCE, name=f"{name}_")(scalar_)
    if with_out:

        def scalar_out(self: Tensor, other: Scalar, out: Tensor) -> Tensor:
            return getattr(at(), name)(self, wrapped_scalar_tensor(other), out=out)

        native_function(SOURCE, name=f"{name}_out")(scalar_out)


def _register_dunder(dunder: str, name: str, inplace: bool) -> None:
    def op(self: Tensor, other: Tensor | Scalar) -> Tensor:
        return getattr(at(), name)(self, other)

    native_function(SOURCE, name=f"__{dunder}__")(op)
    if inplace:

        def iop(self: Tensor, other: Tensor | Scalar) -> Tensor:
            return getattr(self, f"{name}_")(other)

        native_function(SOURCE, name=f"__i{dunder}__")(iop)


_register_structured("bitwise_xor", "bitwise_xor.Tensor", "bitwise_xor_out", bitwise_xor_stub)
_register_scalar_overloads("bitwise_xor", with_out=True)
_register_dunder("xor", "bitwise_xor", inplace=True)
_register_structured(
    "bitwise_left_shift", "bitwise_left_shift.Tensor", "bitwise_left_shift_out", lshift_stub
)
_register_scalar_overloads("bitwise_left_shift", with_out=False)
_register_dunder("lshift", "bitwise_left_shift", inplace=False)
_register_structured(
    "bitwise_right_shift", "bitwise_right_shift.Tensor", "bitwise_right_shift_out", rshift_stub
)
_register_scalar_overloads("bitwise_right_shift", with_out=False)
_register_dunder("rshift", "bitwise_right_shift", inplace=False)
_register_structured("hypot", "hypot", "hypot_out", hypot_stub)
