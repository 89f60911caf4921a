"""lgamma, digamma, polygamma, erfinv, i0, logit, mvlgamma and the torch.special kernels
special_entr, special_ndtri, special_i0e, special_i1, special_i1e, special_bessel_j0 / j1, with
their special_* aliases.

Mirrors `aten/src/ATen/native/UnaryOps.cpp`: the structured ones are
CREATE_UNARY_FLOAT_META_FUNC (integers and bools compute in the default float) with a
DispatchStub each (the kernels: cpu/unary_special_ops_kernel.py); polygamma's meta refuses a
negative n; logit builds a unary float TensorIterator and passes eps to its stub; mvlgamma is
the sum of lgamma over p shifted arguments plus p(p-1)/4 log(pi) (mvlgamma_check first).
special_psi / special_digamma / special_gammaln / special_erfinv / special_i0 /
special_polygamma / special_logit / special_multigammaln are CompositeImplicitAutograd calls
of the ops they alias.
"""

from __future__ import annotations

import math

from tensortrace.aten import functions as at
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH, DispatchStub
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.native.resize import resize_output
from tensortrace.aten.native.unary_ops import register_structured_unary
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIterator, TensorIteratorBase
from tensortrace.c10.default_dtype import get_default_dtype
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType, isIntegralType

SOURCE = "aten/src/ATen/native/UnaryOps.cpp"
HEADER = "aten/src/ATen/native/UnaryOps.h"

FLOAT_OPS = (
    "lgamma",
    "digamma",
    "erfinv",
    "i0",
    "special_entr",
    "special_ndtri",
    "special_i0e",
    "special_i1",
    "special_i1e",
    "special_bessel_j0",
    "special_bessel_j1",
    "special_erfcx",
    "special_log_ndtr",
    "special_airy_ai",
    "special_bessel_y0",
    "special_bessel_y1",
    "special_modified_bessel_i0",
    "special_modified_bessel_i1",
    "special_modified_bessel_k0",
    "special_modified_bessel_k1",
    "special_scaled_modified_bessel_k0",
    "special_scaled_modified_bessel_k1",
    "special_spherical_bessel_j0",
)
STUBS: dict[str, DispatchStub] = {
    name: DECLARE_DISPATCH(f"{name}_stub", HEADER) for name in (*FLOAT_OPS, "polygamma", "logit")
}

for _name in FLOAT_OPS:
    register_structured_unary(_name, float_op=True, stub=STUBS[_name])


@meta_function("polygamma", SOURCE)
def polygamma_meta(it: TensorIteratorBase, n: int, self: Tensor) -> None:
    TORCH_CHECK(n >= 0, "polygamma(n, x) does not support negative n.")
    it.build_borrowing_unary_float_op(it.maybe_get_output(), self)


@impl_function("polygamma_out", SOURCE, legacy="at::native::polygamma_out")
def polygamma_out(it: TensorIteratorBase, n: int, self: Tensor, out: Tensor) -> None:
    STUBS["polygamma"](it.device_type(), it, n)


@native_function(SOURCE)
def polygamma_(self: Tensor, n: int) -> Tensor:
    return at.polygamma(n, self, out=self)  # type: ignore[no-any-return]


# ---- logit: not structured, eps goes to the stub ----------------------------------------------
@native_function(SOURCE)
def logit_out(self: Tensor, eps: float | None, out: Tensor) -> Tensor:
    it = TensorIterator.unary_float_op(out, self)
    STUBS["logit"](it.device_type(), it, eps)
    return out


@native_function(SOURCE)
def logit(self: Tensor, eps: float | None = None) -> Tensor:
    it = TensorIterator.unary_float_op(Tensor(), self)
    STUBS["logit"](it.device_type(), it, eps)
    return it.output()


@native_function(SOURCE)
def logit_(self: Tensor, eps: float | None = None) -> Tensor:
    return logit_out(self, eps, self)


# ---- mvlgamma: the multivariate log-gamma function --------------------------------------------
def mvlgamma_check(self: Tensor, p: int) -> None:
    TORCH_CHECK(
        self.scalar_type() != ScalarType.Bool, "The input tensor may not be a boolean tensor."
    )
    TORCH_CHECK(p >= 1, "p has to be greater than or equal to 1")


@native_function(SOURCE)
def mvlgamma(self: Tensor, p: int) -> Tensor:
    mvlgamma_check(self, p)
    dtype = self.scalar_type()
    if isIntegralType(dtype, True):  # int -> float promotion
        dtype = get_default_dtype()
    args = at.arange(-p * 0.5 + 0.5, 0.5, 0.5, dtype=dtype, device=self.device())
    args = args.add(self.unsqueeze(-1))
    p2_sub_p = float(p * (p - 1))
    return args.lgamma_().sum([-1]).add_(p2_sub_p * math.log(math.pi) * 0.25)  # type: ignore[no-any-return]


@native_function(SOURCE)
def mvlgamma_(self: Tensor, p: int) -> Tensor:
    mvlgamma_check(self, p)
    args = at.arange(-p * 0.5 + 0.5, 0.5, 0.5, dtype=self.scalar_type(), device=self.device())
    args = args.add(self.unsqueeze(-1))
    p2_sub_p = float(p * (p - 1))
    return self.copy_(args.lgamma_().sum([-1]).add_(p2_sub_p * math.log(math.pi) * 0.25))


@native_function(SOURCE)
def mvlgamma_out(self: Tensor, p: int, out: Tensor) -> Tensor:
    result = mvlgamma(self, p)
    TORCH_CHECK(
        at.can_cast(result.scalar_type(), out.scalar_type()),
        "mvlgamma: result type ",
        result.scalar_type(),
        " can't be cast to the desired output type ",
        out.scalar_type(),
    )
    resize_output(out, result.sizes())
    return out.copy_(result)


# ---- the special_* aliases ----------------------------------------------------------------------
def _register_alias(name: str, target: str) -> None:
    def functional(self: Tensor) -> Tensor:
        return getattr(at, target)(self)  # type: ignore[no-any-return]

    def out_variant(self: Tensor, out: Tensor) -> Tensor:
        return getattr(at, target)(self, out=out)  # type: ignore[no-any-return]

    for fn, cpp in ((functional, f"special_{name}"), (out_variant, f"special_{name}_out")):
        fn.__name__ = fn.__qualname__ = cpp
        native_function(SOURCE, name=cpp)(fn)


for _name, _target in (
    ("psi", "digamma"),
    ("digamma", "digamma"),
    ("gammaln", "lgamma"),
    ("erfinv", "erfinv"),
    ("i0", "i0"),
):
    _register_alias(_name, _target)


@native_function(SOURCE)
def special_polygamma(n: int, self: Tensor) -> Tensor:
    return at.polygamma(n, self)  # type: ignore[no-any-return]


@native_function(SOURCE)
def special_polygamma_out(n: int, self: Tensor, out: Tensor) -> Tensor:
    return at.polygamma(n, self, out=out)  # type: ignore[no-any-return]


@native_function(SOURCE)
def special_logit(self: Tensor, eps: float | None = None) -> Tensor:
    return self.logit(eps)  # type: ignore[no-any-return]


@native_function(SOURCE)
def special_logit_out(self: Tensor, eps: float | None, out: Tensor) -> Tensor:
    return at.logit(self, eps, out=out)  # type: ignore[no-any-return]


@native_function(SOURCE)
def special_multigammaln(self: Tensor, p: int) -> Tensor:
    return self.mvlgamma(p)  # type: ignore[no-any-return]


@native_function(SOURCE)
def special_multigammaln_out(self: Tensor, p: int, out: Tensor) -> Tensor:
    return at.mvlgamma(self, p, out=out)  # type: ignore[no-any-return]
