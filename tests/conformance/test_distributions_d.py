"""Conformance of the other continuous and discrete families of torch.distributions, vs torch 2.13.

Pareto, Weibull, HalfCauchy, InverseGamma, Kumaraswamy, LogisticNormal (TransformedDistributions),
FisherSnedecor and NegativeBinomial (Gamma and Poisson draws, equal to torch's after
manual_seed), and the Pareto rows and columns of the KL table.
"""

from __future__ import annotations

import pytest

from . import harness
from .harness import check

SETUP = "D = torch.distributions\n"

PROGRAMS = {
    "kumaraswamy": (
        "m = D.Kumaraswamy(torch.tensor([0.5, 2.0]), torch.tensor([3.0, 1.5])); "
        "v = torch.tensor([0.3, 0.8]); out = (m.sample((3,)), m.rsample(), m.log_prob(v), "
        "m.entropy(), m.mean, m.variance, m.mode)"
    ),
    "kumaraswamy_grad": (
        "a = torch.tensor([0.5, 2.0], requires_grad=True); "
        "s = D.Kumaraswamy(a, torch.tensor([3.0, 1.5])).rsample(); s.sum().backward(); "
        "out = (s.detach(), a.grad)"
    ),
    "logistic_normal": (
        "m = D.LogisticNormal(torch.tensor([0.5, -1.0]), torch.tensor([1.0, 0.5])); "
        "out = (m.sample((3,)), m.log_prob(torch.tensor([0.2, 0.3, 0.5])), m.batch_shape, "
        "m.event_shape, m.loc)"
    ),
    "pareto": (
        "m = D.Pareto(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 1.5])); "
        "v = torch.tensor([1.5, 4.0]); out = (m.sample((3,)), m.rsample(), m.log_prob(v), "
        "m.entropy(), m.mean, m.variance, m.mode, m.cdf(v), m.support.lower_bound)"
    ),
    "weibull": (
        "m = D.Weibull(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 1.5])); "
        "v = torch.tensor([1.5, 4.0]); out = (m.sample((3,)), m.log_prob(v), m.entropy(), "
        "m.mean, m.variance, m.mode, m.cdf(v), m.expand((2, 2)).sample())"
    ),
    "half_cauchy": (
        "m = D.HalfCauchy(torch.tensor([1.0, 2.0])); v = torch.tensor([1.5, 4.0]); "
        "out = (m.sample((3,)), m.log_prob(v), m.entropy(), m.mean, m.variance, m.cdf(v), "
        "m.icdf(torch.tensor([0.3, 0.6])))"
    ),
    "inverse_gamma": (
        "m = D.InverseGamma(torch.tensor([1.0, 3.0]), torch.tensor([3.0, 1.5])); "
        "v = torch.tensor([1.5, 4.0]); out = (m.sample((3,)), m.log_prob(v), m.entropy(), "
        "m.mean, m.variance, m.mode)"
    ),
    "fisher_snedecor": (
        "m = D.FisherSnedecor(torch.tensor([1.0, 5.0]), torch.tensor([3.0, 6.0])); "
        "v = torch.tensor([1.5, 4.0]); out = (m.sample((3,)), m.log_prob(v), m.mean, "
        "m.variance, m.mode)"
    ),
    "negative_binomial": (
        "m = D.NegativeBinomial(torch.tensor([3.0, 10.0]), torch.tensor([0.3, 0.6])); "
        "v = torch.tensor([1.0, 4.0]); out = (m.sample((3,)), m.log_prob(v), m.mean, "
        "m.variance, m.mode)"
    ),
    "negative_binomial_logits": (
        "m = D.NegativeBinomial(torch.tensor([0.0, 10.0]), logits=torch.tensor([0.3, "
        "-0.6])); out = (m.sample((3,)), m.log_prob(torch.tensor([0.0, 2.0])), m.probs)"
    ),
    "kl_pareto": (
        "kl = D.kl_divergence; P = D.Pareto; t = torch.tensor; out = (kl(P(t([1.0]), "
        "t([2.0])), P(t([0.5]), t([3.0]))), kl(P(t([1.0]), t([2.0])), "
        "D.Exponential(t([2.0]))), kl(P(t([1.0]), t([2.0])), D.Gamma(t([2.0]), t([1.0]))), "
        "kl(P(t([1.0]), t([3.0])), D.Normal(t([0.0]), t([1.0]))), kl(D.Uniform(t([1.0]), "
        "t([2.0])), P(t([0.5]), t([3.0]))), kl(D.Beta(t([1.0]), t([2.0])), P(t([0.5]), "
        "t([3.0]))), kl(P(t([1.0]), t([2.0])), D.Uniform(t([0.0]), t([3.0]))))"
    ),
}

ERRORS = {
    "weibull_bad": "out = D.Weibull(torch.tensor([1.0]), torch.tensor([-1.0]))",
    "pareto_support": "out = D.Pareto(torch.tensor([2.0]), 1.0).log_prob(torch.tensor([1.0]))",
}

# the message prints a tensor, whose repr names the device; torch runs on the CPU
CPU_ONLY = {"weibull_bad", "pareto_support"}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_distribution(name: str) -> None:
    check(SETUP + PROGRAMS[name], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error(name: str) -> None:
    if harness.DEVICE != "cpu" and name in CPU_ONLY:
        pytest.skip("cpu only: the message prints a tensor")
    check(SETUP + ERRORS[name])
