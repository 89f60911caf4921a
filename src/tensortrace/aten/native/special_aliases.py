"""torch.special's aliases: special_<op> ops that call an op of the torch namespace.

Mirrors the CompositeImplicitAutograd `special_*` functions of `aten/src/ATen/native/UnaryOps.cpp`
(special_expm1 is self.expm1(), special_expit is self.sigmoid(), special_psi / special_digamma
are digamma, special_gammaln is lgamma, special_ndtr is (1 + erf(x / sqrt 2)) / 2 ...),
`BinaryOps.cpp` (special_xlogy, special_gammainc / gammaincc over igamma / igammac),
`ReduceOps.cpp` (special_logsumexp) and `SoftMax.cpp` (special_softmax, special_log_softmax).
Being aliases, they run (and differentiate) as the op they name: the trace shows aten::special_erf
calling aten::erf.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.native.resize import resize_output
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.scalar import Scalar
from tensortrace.c10.scalar_type import ScalarType

UNARY = "aten/src/ATen/native/UnaryOps.cpp"
BINARY = "aten/src/ATen/native/BinaryOps.cpp"
REDUCE = "aten/src/ATen/native/ReduceOps.cpp"
SOFTMAX = "aten/src/ATen/native/SoftMax.cpp"
M_SQRT1_2 = 1 / math.sqrt(2)

# special_<name> -> the at:: op it calls, and the file it is in
UNARY_ALIASES: dict[str, tuple[str, str]] = {
    "expm1": ("expm1", UNARY),
    "exp2": ("exp2", UNARY),
    "erf": ("erf", UNARY),
    "erfc": ("erfc", UNARY),
    "expit": ("sigmoid", UNARY),
    "sinc": ("sinc", UNARY),
    "log1p": ("log1p", UNARY),
}


def _register_unary(name: str, target: str, source: str) -> None:
    def functional(self: Tensor) -> Tensor:
        return getattr(at, target)(self)  # type: ignore[no-any-return]

    def out_variant(self: Tensor, out: Tensor) -> Tensor:
        return getattr(at, target)(self, out=out)  # type: ignore[no-any-return]

    for fn, cpp in ((functional, f"special_{name}"), (out_variant, f"special_{name}_out")):
        fn.__name__ = fn.__qualname__ = cpp
        native_function(source, name=cpp)(fn)


for _name, (_target, _source) in UNARY_ALIASES.items():
    _register_unary(_name, _target, _source)


@native_function(UNARY)
def special_ndtr(self: Tensor) -> Tensor:
    """The standard normal CDF: (1 + erf(x / sqrt(2))) / 2."""
    x_sqrt_2 = at.mul(self, M_SQRT1_2)
    return at.mul(at.erf(x_sqrt_2).add(1), 0.5)


@native_function(UNARY)
def special_ndtr_out(self: Tensor, out: Tensor) -> Tensor:
    result = special_ndtr(self)
    resize_output(out, result.sizes())
    return out.copy_(result)


@native_function(UNARY)
def special_round(self: Tensor, decimals: int = 0) -> Tensor:
    return at.round(self, decimals=decimals)


@native_function(UNARY)
def special_round_out(self: Tensor, decimals: int, out: Tensor) -> Tensor:
    return at.round(self, decimals=decimals, out=out)


@native_function(BINARY)
def special_xlogy(self: Tensor | Scalar, other: Tensor | Scalar) -> Tensor:
    """special_xlogy and its self_scalar / other_scalar overloads."""
    return at.xlogy(self, other)  # type: ignore[no-any-return]


@native_function(BINARY)
def special_xlogy_out(self: Tensor | Scalar, other: Tensor | Scalar, out: Tensor) -> Tensor:
    return at.xlogy(self, other, out=out)  # type: ignore[no-any-return]


@native_function(REDUCE)
def special_logsumexp(self: Tensor, dim: Sequence[int], keepdim: bool = False) -> Tensor:
    return self.logsumexp(list(dim), keepdim)


@native_function(REDUCE)
def special_logsumexp_out(self: Tensor, dim: Sequence[int], keepdim: bool, out: Tensor) -> Tensor:
    result = self.logsumexp(list(dim), keepdim)
    resize_output(out, result.sizes())
    return out.copy_(result)


@native_function(SOFTMAX)
def special_softmax(self: Tensor, dim: int, dtype: ScalarType | None = None) -> Tensor:
    return self.softmax(dim, dtype)


@native_function(SOFTMAX)
def special_log_softmax(self: Tensor, dim: int, dtype: ScalarType | None = None) -> Tensor:
    return self.log_softmax(dim, dtype)
