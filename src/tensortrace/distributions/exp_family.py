"""ExponentialFamily: distributions of the form p(x; theta) = exp(<t(x), theta> - F(theta) + k(x)).

Mirrors `torch/distributions/exp_family.py`: subclasses give their natural parameters theta,
the log normalizer F and the carrier measure's mean E[k(x)]; entropy() is then the Bregman
divergence of F, F(theta) - <theta, grad F(theta)> - E[k(x)], with grad F from autograd.grad
(create_graph=True, so the entropy itself stays differentiable). kl.py uses the same pieces for
KL between two members of one family.
"""

from __future__ import annotations

from typing import Any

import tensortrace as torch
from tensortrace.distributions.distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    @property
    def _natural_params(self) -> tuple[Any, ...]:
        """The natural parameters theta of the distribution (a tuple of tensors)."""
        raise NotImplementedError

    def _log_normalizer(self, *natural_params: Any) -> Any:
        """The log normalizer F(theta), a function of the natural parameters."""
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self) -> float:
        """The expected carrier measure E[k(x)], needed for the entropy."""
        raise NotImplementedError

    def entropy(self) -> Any:
        """Entropy by the Bregman divergence of the log normalizer."""
        result: Any = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg_normal = self._log_normalizer(*nparams)
        gradients = torch.autograd.grad(lg_normal.sum(), nparams, create_graph=True)
        result += lg_normal
        for np, g in zip(nparams, gradients):
            result -= (np * g).reshape(self._batch_shape + (-1,)).sum(-1)
        return result
