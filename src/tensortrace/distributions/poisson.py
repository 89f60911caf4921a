"""Poisson(rate): mirrors `torch/distributions/poisson.py`.

sample() is torch.poisson(rate.expand(shape)): aten::poisson's draws, bit-exact with torch
after manual_seed.
"""

from __future__ import annotations

from numbers import Number
from typing import Any

import tensortrace as torch
from tensortrace.distributions import constraints
from tensortrace.distributions.distribution import _no_grad
from tensortrace.distributions.exp_family import ExponentialFamily
from tensortrace.distributions.utils import EMPTY_SIZE, broadcast_all

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    @property
    def mean(self) -> Any:
        return self.rate

    @property
    def mode(self) -> Any:
        return self.rate.floor()

    @property
    def variance(self) -> Any:
        return self.rate

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        batch_shape = torch.Size() if isinstance(rate, Number) else self.rate.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Poisson:
        return self._expand_parameters(Poisson, ("rate",), batch_shape, _instance)

    def sample(self, sample_shape: Any = EMPTY_SIZE) -> Any:
        shape = self._extended_shape(sample_shape)
        with _no_grad():
            return torch.poisson(self.rate.expand(shape))

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()

    @property
    def _natural_params(self) -> tuple[Any]:
        return (torch.log(self.rate),)

    def _log_normalizer(self, x: Any) -> Any:
        return torch.exp(x)
