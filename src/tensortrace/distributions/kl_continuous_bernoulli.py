"""KL(p || q) with a ContinuousBernoulli on either side: the ContinuousBernoulli rows and
columns of torch's table in `torch/distributions/kl.py` (Pareto's excepted: not in this
runtime). The infinite pairs reuse the functions kl_cross_family.py registers, as torch registers
one function for all of them."""

from __future__ import annotations

import math
from typing import Any

import tensortrace as torch
from tensortrace.distributions.beta import Beta
from tensortrace.distributions.continuous_bernoulli import ContinuousBernoulli
from tensortrace.distributions.exponential import Exponential
from tensortrace.distributions.kl import inf, register_kl
from tensortrace.distributions.kl_cross_family import _kl_exponential_infinity, _kl_normal_infinity
from tensortrace.distributions.normal import Normal
from tensortrace.distributions.uniform import Uniform

register_kl(Exponential, ContinuousBernoulli)(_kl_exponential_infinity)
register_kl(Normal, ContinuousBernoulli)(_kl_normal_infinity)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p: Any, q: Any) -> Any:
    t1 = p.mean * (p.logits - q.logits)
    t2 = p._cont_bern_log_norm() + torch.log1p(-p.probs)
    t3 = -q._cont_bern_log_norm() - torch.log1p(-q.probs)
    return t1 + t2 + t3


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p: Any, q: Any) -> Any:
    return -p.entropy() - p.mean * q.logits - torch.log1p(-q.probs) - q._cont_bern_log_norm()


@register_kl(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p: Any, q: Any) -> Any:
    return -p.entropy() - torch.log(q.rate) + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _kl_continuous_bernoulli_normal(p: Any, q: Any) -> Any:
    t1 = -p.entropy()
    t2 = 0.5 * (math.log(2.0 * math.pi) + torch.square(q.loc / q.scale)) + torch.log(q.scale)
    t3 = (p.variance + torch.square(p.mean) - 2.0 * q.loc * p.mean) / (2.0 * torch.square(q.scale))
    return t1 + t2 + t3


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p: Any, q: Any) -> Any:
    result = -p.entropy() + (q.high - q.low).log()
    return torch.where(
        torch.max(
            torch.ge(q.low, p.support.lower_bound),
            torch.le(q.high, p.support.upper_bound),
        ),
        torch.ones_like(result) * inf,
        result,
    )


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p: Any, q: Any) -> Any:
    result = -p.entropy() - p.mean * q.logits - torch.log1p(-q.probs) - q._cont_bern_log_norm()
    return torch.where(
        torch.max(
            torch.ge(p.high, q.support.upper_bound),
            torch.le(p.low, q.support.lower_bound),
        ),
        torch.ones_like(result) * inf,
        result,
    )
