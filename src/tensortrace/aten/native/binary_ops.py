"""add: the structured kernel's meta and impl halves, the Scalar overload, and add_stub.

Mirrors `aten/src/ATen/native/BinaryOps.cpp` / `BinaryOps.h`. The meta function
(TORCH_META_FUNC2(add, Tensor)) builds a TensorIterator over (out, self, other), which
broadcasts, promotes and allocates; the impl (TORCH_IMPL_FUNC(ufunc_add_CPU)) calls add_stub,
which jumps to add_kernel in native/cpu/binary_ops_kernel.py.
"""

from __future__ import annotations

from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.scalar_ops import Scalar, wrapped_scalar_tensor
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType, isFloatingType

SOURCE = "aten/src/ATen/native/BinaryOps.cpp"

add_stub = DECLARE_DISPATCH("add_stub", "aten/src/ATen/native/BinaryOps.h")


def alpha_check(dtype: ScalarType, alpha: Scalar) -> None:
    TORCH_CHECK(not isinstance(alpha, bool) or dtype == ScalarType.Bool,
                "Boolean alpha only supported for Boolean results.")
    TORCH_CHECK(isFloatingType(dtype) or isinstance(alpha, (bool, int)),
                "For integral input tensors, argument alpha must not be a floating point "
                "number.")
    TORCH_CHECK(not isinstance(alpha, complex),
                "For non-complex input tensors, argument alpha must not be a complex number.")


@meta_function("add.Tensor", SOURCE)
def meta_add(it: TensorIteratorBase, self: Tensor, other: Tensor, alpha: Scalar) -> None:
    it.build_borrowing_binary_op(it.maybe_get_output(), self, other)
    alpha_check(it.dtype(), alpha)


@impl_function("ufunc_add_CPU", "build/aten/src/ATen/UfuncCPU_add.cpp",
               legacy="at::native::add")
def ufunc_add_cpu(it: TensorIteratorBase, self: Tensor, other: Tensor, alpha: Scalar,
                  out: Tensor) -> None:
    add_stub(it.device_type(), it, alpha)


@native_function(SOURCE, name="add", legacy="at::native::add (Scalar other)")
def add_scalar(self: Tensor, other: Scalar, alpha: Scalar = 1) -> Tensor:
    from tensortrace.aten import functions as at

    return at.add(self, wrapped_scalar_tensor(other), alpha=alpha)


@native_function(SOURCE, name="add_")
def add_scalar_(self: Tensor, other: Scalar, alpha: Scalar = 1) -> Tensor:
    return self.add_(wrapped_scalar_tensor(other), alpha=alpha)
