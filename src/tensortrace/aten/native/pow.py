"""pow: Tensor ** Tensor, Tensor ** Scalar and Scalar ** Tensor, as structured kernels.

Mirrors `aten/src/ATen/native/Pow.cpp` / `Pow.h`. pow.Tensor_Scalar computes its dtype with
at::result_type(base, exp), converts the base to it (`base.to(common_dtype)`), and short-cuts
exponents 0 (fill_(1)) and 1 (copy_); integers to negative integer powers are refused, as in
NumPy. pow.Scalar allocates its output from the exponent's sizes and redispatches to
pow.Tensor_Tensor_out with the base as a wrapped number (unless the base is 1).
"""

from __future__ import annotations

from typing import TypeGuard

from tensortrace.aten import functions as at
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.registry import impl_function, meta_function
from tensortrace.aten.scalar_ops import Scalar, wrapped_scalar_tensor
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import isIntegralType
from tensortrace.c10.tensor_options import TensorOptions

SOURCE = "aten/src/ATen/native/Pow.cpp"
HEADER = "aten/src/ATen/native/Pow.h"

pow_tensor_tensor_stub = DECLARE_DISPATCH("pow_tensor_tensor_stub", HEADER)
pow_tensor_scalar_stub = DECLARE_DISPATCH("pow_tensor_scalar_stub", HEADER)


def _is_integral(s: Scalar) -> TypeGuard[int]:
    """Scalar::isIntegral(/*includeBool=*/true)."""
    return isinstance(s, (bool, int))


@meta_function("pow.Tensor_Tensor", SOURCE)
def meta_pow_tensor_tensor(it: TensorIteratorBase, self: Tensor, exponent: Tensor) -> None:
    it.build_borrowing_binary_op(it.maybe_get_output(), self, exponent)


@meta_function("pow.Tensor_Scalar", SOURCE)
def meta_pow_tensor_scalar(it: TensorIteratorBase, self: Tensor, exponent: Scalar) -> None:
    # Numpy compatibility check
    TORCH_CHECK(
        not (isIntegralType(self.scalar_type(), True) and _is_integral(exponent) and exponent < 0),
        "Integers to negative integer powers are not allowed.",
    )
    common_dtype = at.result_type(self, exponent)
    it.build_output_borrowing_argument_owning_unary_op(it.maybe_get_output(), self.to(common_dtype))


@meta_function("pow.Scalar", SOURCE)
def meta_pow_scalar(it: TensorIteratorBase, self: Scalar, exponent: Tensor) -> None:
    # This overload does not use TensorIterator: it short-circuits or redispatches.
    out = it.maybe_get_output()
    dtype = out.scalar_type() if out.defined() else at.result_type(self, exponent)
    it.set_output_raw_strided(0, exponent.sizes(), (), TensorOptions(dtype, exponent.device()))


@impl_function("pow_Tensor_Tensor_out", SOURCE, legacy="at::native::pow_out")
def pow_tensor_tensor_out(
    it: TensorIteratorBase, self: Tensor, exponent: Tensor, out: Tensor
) -> None:
    pow_tensor_tensor_stub(it.device_type(), it)


@impl_function("pow_Tensor_Scalar_out", SOURCE, legacy="at::native::pow_out")
def pow_tensor_scalar_out(
    it: TensorIteratorBase, self: Tensor, exponent: Scalar, out: Tensor
) -> None:
    if exponent == 0:  # exp.equal(0.0) || exp.equal(false)
        out.fill_(1)
    elif exponent == 1:  # exp.equal(1.0) || exp.equal(true)
        out.copy_(self)
    else:
        pow_tensor_scalar_stub(it.device_type(), it, exponent)


@impl_function("pow_Scalar_out", SOURCE, legacy="at::native::pow_out")
def pow_scalar_out(it: TensorIteratorBase, self: Scalar, exponent: Tensor, out: Tensor) -> None:
    if self == 1 and not isinstance(self, bool):  # base.equal(1.0)
        out.fill_(1)
    else:
        at.pow(wrapped_scalar_tensor(self), exponent, out=out)  # redispatch
