"""lgamma, digamma and polygamma: the gamma-function family the distributions' densities use.

Mirrors their TORCH_META_FUNC / TORCH_IMPL_FUNC in `aten/src/ATen/native/UnaryOps.cpp`:
lgamma and digamma build with unary_float_op (integers compute in the default float);
polygamma checks n >= 0 first, then builds the same way, and its kernel is digamma for n = 0,
trigamma for n = 1 and the Hurwitz-zeta form otherwise. polygamma_ is CompositeExplicitAutograd
(`at::polygamma_out(self, n, self)`), as in torch.
"""

from __future__ import annotations

from tensortrace.aten import functions as at
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.native.unary_ops import register_structured_unary
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.exception import TORCH_CHECK

SOURCE = "aten/src/ATen/native/UnaryOps.cpp"
HEADER = "aten/src/ATen/native/UnaryOps.h"

lgamma_stub = DECLARE_DISPATCH("lgamma_stub", HEADER)
digamma_stub = DECLARE_DISPATCH("digamma_stub", HEADER)
polygamma_stub = DECLARE_DISPATCH("polygamma_stub", HEADER)

register_structured_unary("lgamma", float_op=True, stub=lgamma_stub)
register_structured_unary("digamma", float_op=True, stub=digamma_stub)


@meta_function("polygamma", SOURCE)
def polygamma_meta(it: TensorIteratorBase, n: int, self: Tensor) -> None:
    TORCH_CHECK(n >= 0, "polygamma(n, x) does not support negative n.")
    it.build_borrowing_unary_float_op(it.maybe_get_output(), self)


@impl_function("polygamma_out", SOURCE, legacy="at::native::polygamma_out")
def polygamma_out(it: TensorIteratorBase, n: int, self: Tensor, out: Tensor) -> None:
    polygamma_stub(it.device_type(), it, n)


@native_function(SOURCE, name="polygamma_", legacy="at::native::polygamma_")
def polygamma_(self: Tensor, n: int) -> Tensor:
    return at.polygamma(n, self, out=self)
