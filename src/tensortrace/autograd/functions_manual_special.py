"""The helpers of derivatives.yaml's special-function formulas, with PyTorch's names.

Mirrors `i1_backward`, `i1e_backward`, `infinitely_differentiable_logit_backward` and
`mvlgamma_backward` of `torch/csrc/autograd/FunctionsManual.cpp`. functions_manual.py imports
them into the formulas' namespace.
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.scalar_type import ScalarType


def _eps(self: Tensor) -> float:
    """std::numeric_limits<scalar_t>::epsilon() of self's floating dtype."""
    st = self.scalar_type()
    if st == ScalarType.Double:
        return float(np.finfo(np.float64).eps)
    if st == ScalarType.Half:
        return float(np.finfo(np.float16).eps)
    if st == ScalarType.BFloat16:
        return 2.0**-7
    return float(np.finfo(np.float32).eps)


def _full(self: Tensor, value: float) -> Tensor:
    return at.full([], value, dtype=self.scalar_type(), device=self.device())


def _safe_self(self: Tensor) -> tuple[Tensor, Tensor]:
    """At x = 0 the formulas divide by x: they use eps there, and `where` picks the limit."""
    eps = _eps(self)
    self_is_not_tiny = self.abs().gt(eps)
    return self_is_not_tiny, at.where(self_is_not_tiny, self, _full(self, eps))


def i1_backward(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    """I1'(x) = I0(x) - I1(x) / x, and 1/2 at 0."""
    self_is_not_tiny, safe_self = _safe_self(self)
    gradx = safe_self.i0().sub(result.mul(safe_self.reciprocal()))
    return grad.mul(at.where(self_is_not_tiny, gradx, _full(self, 0.5)))


def i1e_backward(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    """i1e'(x) = i0e(x) - i1e(x) (sgn(x) + 1 / x), and 1/2 at 0."""
    self_is_not_tiny, safe_self = _safe_self(self)
    gradx = at.special_i0e(safe_self).sub(result.mul(safe_self.sgn().add(safe_self.reciprocal())))
    return grad.mul(at.where(self_is_not_tiny, gradx, _full(self, 0.5)))


def infinitely_differentiable_logit_backward(
    grad: Tensor, self: Tensor, eps: float | None
) -> Tensor:
    """grad / (x (1 - x)) inside the domain; 0 where eps clamped x, NaN outside [0, 1]."""
    if eps is not None:
        lo, hi = eps, 1.0 - eps
        inside = at.logical_and(self.ge(lo), self.le(hi))
        return at.where(inside, grad.div(self.mul(at.rsub(self, 1.0))), _full(self, 0.0))
    inside = at.logical_and(self.ge(0.0), self.le(1.0))
    return at.where(inside, grad.div(self.mul(at.rsub(self, 1.0))), _full(self, float("nan")))


def mvlgamma_backward(grad: Tensor, self: Tensor, p: int) -> Tensor:
    args = at.arange(-p / 2.0 + 0.5, 0.5, 0.5, dtype=self.scalar_type(), device=self.device())
    args = args.add(self.unsqueeze(-1))
    return grad.mul(args.digamma_().sum([-1]))
