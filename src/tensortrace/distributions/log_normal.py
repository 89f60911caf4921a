"""LogNormal(loc, scale): mirrors `torch/distributions/log_normal.py`, exp of a Normal."""

from __future__ import annotations

from typing import Any

from tensortrace.distributions import constraints
from tensortrace.distributions.normal import Normal
from tensortrace.distributions.transformed_distribution import TransformedDistribution
from tensortrace.distributions.transforms_bijections import ExpTransform

__all__ = ["LogNormal"]


class LogNormal(TransformedDistribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}  # noqa: RUF012
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        base_dist = Normal(loc, scale, validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LogNormal:
        new = self._get_checked_instance(LogNormal, _instance)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def loc(self) -> Any:
        return self.base_dist.loc  # type: ignore[attr-defined]

    @property
    def scale(self) -> Any:
        return self.base_dist.scale  # type: ignore[attr-defined]

    @property
    def mean(self) -> Any:
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self) -> Any:
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self) -> Any:
        scale_sq = self.scale.pow(2)
        return scale_sq.expm1() * (2 * self.loc + scale_sq).exp()

    def entropy(self) -> Any:
        return self.base_dist.entropy() + self.loc
