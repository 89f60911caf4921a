"""Gamma(concentration, rate): mirrors `torch/distributions/gamma.py`.

rsample() is `_standard_gamma(concentration) / rate`, the Marsaglia-Tsang draws of
aten::_standard_gamma (bit-exact with torch after manual_seed), differentiable through
_standard_gamma_grad. (cdf needs torch.special.gammainc, not in this runtime yet.)
"""

from __future__ import annotations

from numbers import Number
from typing import Any

import tensortrace as torch
from tensortrace.distributions import constraints
from tensortrace.distributions.exp_family import ExponentialFamily
from tensortrace.distributions.utils import EMPTY_SIZE, broadcast_all

__all__ = ["Gamma"]


def _standard_gamma(concentration: Any) -> Any:
    return torch._standard_gamma(concentration)


class Gamma(ExponentialFamily):
    arg_constraints = {
        "concentration": constraints.positive,
        "rate": constraints.positive,
    }
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self) -> Any:
        return self.concentration / self.rate

    @property
    def mode(self) -> Any:
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Any:
        return self.concentration / self.rate.pow(2)

    def __init__(self, concentration: Any, rate: Any, validate_args: bool | None = None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        if isinstance(concentration, Number) and isinstance(rate, Number):
            batch_shape = torch.Size()
        else:
            batch_shape = self.concentration.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Gamma:
        return self._expand_parameters(Gamma, ("concentration", "rate"), batch_shape, _instance)

    def rsample(self, sample_shape: Any = EMPTY_SIZE) -> Any:
        shape = self._extended_shape(sample_shape)
        value = _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        value.detach().clamp_(min=torch.finfo(value.dtype).tiny)  # not recorded in autograd
        return value

    def log_prob(self, value: Any) -> Any:
        value = torch.as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        return (
            torch.xlogy(self.concentration, self.rate)
            + torch.xlogy(self.concentration - 1, value)
            - self.rate * value
            - torch.lgamma(self.concentration)
        )

    def entropy(self) -> Any:
        return (
            self.concentration
            - torch.log(self.rate)
            + torch.lgamma(self.concentration)
            + (1.0 - self.concentration) * torch.digamma(self.concentration)
        )

    @property
    def _natural_params(self) -> tuple[Any, Any]:
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x: Any, y: Any) -> Any:
        return torch.lgamma(x + 1) + (x + 1) * torch.log(-y.reciprocal())
