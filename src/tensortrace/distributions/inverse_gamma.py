"""InverseGamma(concentration, rate): mirrors `torch/distributions/inverse_gamma.py`, 1 / X for
X ~ Gamma(concentration, rate)."""

from __future__ import annotations

from typing import Any

import tensortrace as torch
from tensortrace.distributions import constraints
from tensortrace.distributions.gamma import Gamma
from tensortrace.distributions.transformed_distribution import TransformedDistribution
from tensortrace.distributions.transforms_bijections import PowerTransform

__all__ = ["InverseGamma"]

inf = float("inf")


class InverseGamma(TransformedDistribution):
    arg_constraints = {  # noqa: RUF012
        "concentration": constraints.positive,
        "rate": constraints.positive,
    }
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration: Any, rate: Any, validate_args: bool | None = None) -> None:
        base_dist = Gamma(concentration, rate, validate_args=validate_args)
        neg_one = -base_dist.rate.new_ones(())
        super().__init__(base_dist, PowerTransform(neg_one), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> InverseGamma:
        new = self._get_checked_instance(InverseGamma, _instance)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def concentration(self) -> Any:
        return self.base_dist.concentration  # type: ignore[attr-defined]

    @property
    def rate(self) -> Any:
        return self.base_dist.rate  # type: ignore[attr-defined]

    @property
    def mean(self) -> Any:
        result = self.rate / (self.concentration - 1)
        return torch.where(self.concentration > 1, result, inf)

    @property
    def mode(self) -> Any:
        return self.rate / (self.concentration + 1)

    @property
    def variance(self) -> Any:
        result = self.rate.square() / ((self.concentration - 1).square() * (self.concentration - 2))
        return torch.where(self.concentration > 2, result, inf)

    def entropy(self) -> Any:
        return (
            self.concentration
            + self.rate.log()
            + self.concentration.lgamma()
            - (1 + self.concentration) * self.concentration.digamma()
        )
