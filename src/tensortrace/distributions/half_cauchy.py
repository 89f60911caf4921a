"""HalfCauchy(scale): mirrors `torch/distributions/half_cauchy.py`, |X| for X ~ Cauchy(0, scale)."""

from __future__ import annotations

import math
from typing import Any

import tensortrace as torch
from tensortrace.distributions import constraints
from tensortrace.distributions.cauchy import Cauchy
from tensortrace.distributions.transformed_distribution import TransformedDistribution
from tensortrace.distributions.transforms_bijections import AbsTransform

__all__ = ["HalfCauchy"]

inf = float("inf")


class HalfCauchy(TransformedDistribution):
    arg_constraints = {"scale": constraints.positive}  # noqa: RUF012
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale: Any, validate_args: bool | None = None) -> None:
        base_dist = Cauchy(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> HalfCauchy:
        new = self._get_checked_instance(HalfCauchy, _instance)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def scale(self) -> Any:
        return self.base_dist.scale  # type: ignore[attr-defined]

    @property
    def mean(self) -> Any:
        return torch.full(
            self._extended_shape(), math.inf, dtype=self.scale.dtype, device=self.scale.device
        )

    @property
    def mode(self) -> Any:
        return torch.zeros_like(self.scale)

    @property
    def variance(self) -> Any:
        return self.base_dist.variance

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        scale = self.scale
        value = torch.as_tensor(value, dtype=scale.dtype, device=scale.device)
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
