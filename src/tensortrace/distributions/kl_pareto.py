"""KL(p || q) with a Pareto on either side: the Pareto rows and columns of torch's table in
`torch/distributions/kl.py`. The infinite pairs whose function kl_cross_family.py already
registers for other families reuse it, as torch registers one function for all of them."""

from __future__ import annotations

import math
from typing import Any

from tensortrace.distributions.beta import Beta
from tensortrace.distributions.continuous_bernoulli import ContinuousBernoulli
from tensortrace.distributions.exponential import Exponential
from tensortrace.distributions.gamma import Gamma
from tensortrace.distributions.gumbel import Gumbel
from tensortrace.distributions.kl import _infinite_like, _x_log_x, inf, register_kl
from tensortrace.distributions.kl_cross_family import (
    _kl_exponential_infinity,
    _kl_gamma_infinity,
    _kl_gumbel_infinity,
    _kl_laplace_infinity,
    _kl_normal_infinity,
)
from tensortrace.distributions.laplace import Laplace
from tensortrace.distributions.normal import Normal
from tensortrace.distributions.pareto import Pareto
from tensortrace.distributions.uniform import Uniform

register_kl(Exponential, Pareto)(_kl_exponential_infinity)
register_kl(Gamma, Pareto)(_kl_gamma_infinity)
register_kl(Gumbel, Pareto)(_kl_gumbel_infinity)
register_kl(Laplace, Pareto)(_kl_laplace_infinity)
register_kl(Normal, Pareto)(_kl_normal_infinity)


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p: Any, q: Any) -> Any:
    scale_ratio = p.scale / q.scale
    alpha_ratio = q.alpha / p.alpha
    t1 = q.alpha * scale_ratio.log()
    t2 = -alpha_ratio.log()
    result = t1 + t2 + alpha_ratio - 1
    result[p.support.lower_bound < q.support.lower_bound] = inf
    return result


@register_kl(Beta, Pareto)
def _kl_beta_infinity(p: Any, q: Any) -> Any:
    return _infinite_like(p.concentration1)


@register_kl(ContinuousBernoulli, Pareto)
def _kl_continuous_bernoulli_infinity(p: Any, q: Any) -> Any:
    return _infinite_like(p.probs)


@register_kl(Pareto, Beta)
@register_kl(Pareto, ContinuousBernoulli)
@register_kl(Pareto, Uniform)
def _kl_pareto_infinity(p: Any, q: Any) -> Any:
    return _infinite_like(p.scale)


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p: Any, q: Any) -> Any:
    scale_rate_prod = p.scale * q.rate
    t1 = (p.alpha / scale_rate_prod).log()
    t2 = p.alpha.reciprocal()
    t3 = p.alpha * scale_rate_prod / (p.alpha - 1)
    result = t1 - t2 + t3 - 1
    result[p.alpha <= 1] = inf
    return result


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p: Any, q: Any) -> Any:
    common_term = p.scale.log() + p.alpha.reciprocal()
    t1 = p.alpha.log() - common_term
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * common_term
    t4 = q.rate * p.alpha * p.scale / (p.alpha - 1)
    result = t1 + t2 + t3 + t4 - 1
    result[p.alpha <= 1] = inf
    return result


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p: Any, q: Any) -> Any:
    var_normal = 2 * q.scale.pow(2)
    common_term = p.scale / (p.alpha - 1)
    t1 = (math.sqrt(2 * math.pi) * q.scale * p.alpha / p.scale).log()
    t2 = p.alpha.reciprocal()
    t3 = p.alpha * common_term.pow(2) / (p.alpha - 2)
    t4 = (p.alpha * common_term - q.loc).pow(2)
    result = t1 - t2 + (t3 + t4) / var_normal - 1
    result[p.alpha <= 2] = inf
    return result


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p: Any, q: Any) -> Any:
    support_uniform = p.high - p.low
    t1 = (q.alpha * q.scale.pow(q.alpha) * (support_uniform)).log()
    t2 = (_x_log_x(p.high) - _x_log_x(p.low) - support_uniform) / support_uniform
    result = t2 * (q.alpha + 1) - t1
    result[p.low < q.support.lower_bound] = inf
    return result
