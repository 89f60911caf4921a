"""HalfNormal(scale): mirrors `torch/distributions/half_normal.py`, |X| for X ~ Normal(0, scale)."""

from __future__ import annotations

import math
from typing import Any

import tensortrace as torch
from tensortrace.distributions import constraints
from tensortrace.distributions.normal import Normal
from tensortrace.distributions.transformed_distribution import TransformedDistribution
from tensortrace.distributions.transforms_bijections import AbsTransform

__all__ = ["HalfNormal"]

inf = float("inf")


class HalfNormal(TransformedDistribution):
    arg_constraints = {"scale": constraints.positive}  # noqa: RUF012
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale: Any, validate_args: bool | None = None) -> None:
        base_dist = Normal(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> HalfNormal:
        new = self._get_checked_instance(HalfNormal, _instance)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def scale(self) -> Any:
        return self.base_dist.scale  # type: ignore[attr-defined]

    @property
    def mean(self) -> Any:
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self) -> Any:
        return torch.zeros_like(self.scale)

    @property
    def variance(self) -> Any:
        return self.scale.pow(2) * (1 - 2 / math.pi)

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return torch.where(value >= 0, log_prob, -inf)

    def cdf(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1  # type: ignore[attr-defined]

    def icdf(self, prob: Any) -> Any:
        return self.base_dist.icdf((prob + 1) / 2)  # type: ignore[attr-defined]

    def entropy(self) -> Any:
        return self.base_dist.entropy() - math.log(2)
