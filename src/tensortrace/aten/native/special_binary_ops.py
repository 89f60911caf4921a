"""torch.special's binary kernels: special_xlog1py (x log1p(y)) and special_zeta (Hurwitz zeta),
each with its Scalar overloads.

Mirrors `aten/src/ATen/native/BinaryOps.cpp`: the Tensor overloads are structured binary float
ops (TORCH_META_FUNC2 builds build_borrowing_binary_float_op: integers compute in the default
float) over a DispatchStub; the self_scalar / other_scalar overloads (CompositeExplicitAutograd)
wrap the number as a 0-d tensor and call the Tensor overload. The kernels are in
cpu/unary_special_ops_kernel.py's neighbour, cpu/special_binary_ops_kernel.py.
"""

from __future__ import annotations

from tensortrace.aten import functions as at
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH, DispatchStub
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.scalar_ops import Scalar, wrapped_scalar_tensor
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorBase

SOURCE = "aten/src/ATen/native/BinaryOps.cpp"
HEADER = "aten/src/ATen/native/BinaryOps.h"

STUBS: dict[str, DispatchStub] = {
    name: DECLARE_DISPATCH(f"{name}_stub", HEADER) for name in ("xlog1py", "zeta")
}


def _register(name: str) -> None:
    stub = STUBS[name]
    op = f"special_{name}"

    def meta(it: TensorIteratorBase, self: Tensor, other: Tensor) -> None:
        it.build_borrowing_binary_float_op(it.maybe_get_output(), self, other)

    def impl(it: TensorIteratorBase, self: Tensor, other: Tensor, out: Tensor) -> None:
        stub(it.device_type(), it)

    def scalar(self: Tensor | Scalar, other: Tensor | Scalar) -> Tensor:
        """The self_scalar and other_scalar overloads."""
        a = self if isinstance(self, Tensor) else wrapped_scalar_tensor(self)
        b = other if isinstance(other, Tensor) else wrapped_scalar_tensor(other)
        return getattr(at, op)(a, b)  # type: ignore[no-any-return]

    def scalar_out(self: Tensor | Scalar, other: Tensor | Scalar, out: Tensor) -> Tensor:
        a = self if isinstance(self, Tensor) else wrapped_scalar_tensor(self)
        b = other if isinstance(other, Tensor) else wrapped_scalar_tensor(other)
        return getattr(at, op)(a, b, out=out)  # type: ignore[no-any-return]

    meta_function(op, SOURCE)(meta)
    impl_function(f"{op}_out", SOURCE, legacy=f"at::native::{op}_out")(impl)
    scalar.__name__ = scalar.__qualname__ = op
    scalar_out.__name__ = scalar_out.__qualname__ = f"{op}_out"
    native_function(SOURCE, name=op)(scalar)
    native_function(SOURCE, name=f"{op}_out")(scalar_out)


for _name in STUBS:
    _register(_name)
