"""Conformance of the continuous torch.distributions beyond Normal / Uniform, vs torch 2.13.

Exponential, Laplace, Cauchy, Gamma, Chi2, Beta, Dirichlet, StudentT, LogNormal, Gumbel,
HalfNormal, RelaxedBernoulli, RelaxedOneHotCategorical: seeded samples (sample and rsample,
with sample shapes, batches and expand) are bit-exact with torch; log_prob, entropy, the
moments, cdf / icdf and the reparameterized gradients (Gamma, Beta, Dirichlet rsample) agree to
float rounding; parameters outside their constraint and values outside the support raise
torch's ValueError with its message.
"""

from __future__ import annotations

import pytest

from . import harness
from .harness import check

SETUP = "D = torch.distributions\n"

# bit-exact draws
SAMPLES = {
    "exponential": (
        "m = D.Exponential(torch.tensor([0.5, 2.0])); out = (m.sample((3,)), m.rsample())"
    ),
    "laplace": "out = D.Laplace(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.5])).sample((3,))",
    "cauchy": "out = D.Cauchy(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.5])).rsample((3,))",
    "gamma": (
        "m = D.Gamma(torch.tensor([0.5, 3.0]), torch.tensor([1.0, 2.0])); out = m.sample((4,))"
    ),
    "gamma_scalar": "out = D.Gamma(2.0, 3.0).sample((5,))",
    "chi2": "out = D.Chi2(torch.tensor([1.0, 4.0])).sample((3,))",
    "beta": "out = D.Beta(torch.tensor([0.5, 3.0]), torch.tensor([2.0, 2.0])).sample((3,))",
    "beta_scalar": "m = D.Beta(2.0, 3.0); out = (m.sample(), m.batch_shape, m.concentration1)",
    "dirichlet": "out = D.Dirichlet(torch.tensor([[0.5, 3.0, 1.0], [2.0, 2.0, 0.3]])).sample((2,))",
    "student_t": (
        "m = D.StudentT(torch.tensor([0.5, 3.0, 1.5]), torch.tensor([0.0, 1.0, 2.0])); "
        "out = (m.sample((2,)), m.rsample())"
    ),
    "log_normal": (
        "out = D.LogNormal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.5])).sample((3,))"
    ),
    "gumbel": "out = (D.Gumbel(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.5])).sample((3,)), "
    "D.Gumbel(1.0, 2.0).sample((2,)))",
    "half_normal": "out = D.HalfNormal(torch.tensor([1.0, 0.5])).sample((3,))",
    "relaxed_bernoulli": (
        "out = D.RelaxedBernoulli(torch.tensor(0.5), torch.tensor([0.3, 0.8])).rsample((3,))"
    ),
    "relaxed_one_hot": (
        "out = D.RelaxedOneHotCategorical(torch.tensor(0.5), torch.tensor([0.2, 0.3, 0.5]))"
        ".rsample((2,))"
    ),
    "continuous_bernoulli": (
        "m = D.ContinuousBernoulli(torch.tensor([0.2, 0.4995, 0.8])); "
        "out = (m.sample((3,)), m.rsample())"
    ),
    "expand": (
        "m = D.Exponential(torch.tensor([1.0, 2.0])).expand((3, 2)); "
        "t = D.StudentT(torch.tensor([3.0])).expand((2, 1)); "
        "l = D.LogNormal(torch.zeros(1), torch.ones(1)).expand((4,)); "
        "out = (m.batch_shape, m.sample(), t.batch_shape, t.sample(), l.batch_shape, l.sample())"
    ),
}

# densities, moments, entropies: float rounding
STATS = {
    "exponential": (
        "m = D.Exponential(torch.tensor([0.5, 2.0])); v = torch.tensor([1.0, 0.3]); "
        "out = (m.log_prob(v), m.entropy(), m.mean, m.mode, m.variance, m.stddev, m.cdf(v), "
        "m.icdf(torch.tensor([0.2, 0.9])))"
    ),
    "laplace": (
        "m = D.Laplace(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.5])); "
        "v = torch.tensor([1.0, 0.3]); out = (m.log_prob(v), m.entropy(), m.variance, "
        "m.stddev, m.cdf(v), m.icdf(torch.tensor([0.2, 0.9])))"
    ),
    "cauchy": (
        "m = D.Cauchy(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.5])); "
        "v = torch.tensor([1.0, 0.3]); out = (m.log_prob(v), m.entropy(), m.mean, m.variance, "
        "m.cdf(v), m.icdf(torch.tensor([0.2, 0.9])))"
    ),
    "gamma": (
        "m = D.Gamma(torch.tensor([0.5, 3.0]), torch.tensor([1.0, 2.0])); "
        "out = (m.log_prob(torch.tensor([1.0, 0.3])), m.entropy(), m.mean, m.variance, m.mode)"
    ),
    "chi2": (
        "m = D.Chi2(torch.tensor([1.0, 4.0])); "
        "out = (m.log_prob(torch.tensor([1.0, 0.3])), m.entropy(), m.df, repr(m))"
    ),
    "beta": (
        "m = D.Beta(torch.tensor([0.5, 3.0]), torch.tensor([2.0, 2.0])); "
        "out = (m.log_prob(torch.tensor([0.1, 0.7])), m.entropy(), m.mean, m.variance, m.mode)"
    ),
    "dirichlet": (
        "m = D.Dirichlet(torch.tensor([[0.5, 3.0, 1.0], [2.0, 2.0, 0.3]])); "
        "out = (m.log_prob(torch.tensor([0.1, 0.7, 0.2])), m.entropy(), m.mean, m.variance, "
        "m.mode, m.batch_shape, m.event_shape)"
    ),
    "student_t": (
        "m = D.StudentT(torch.tensor([0.5, 3.0, 1.5]), torch.tensor([0.0, 1.0, 2.0])); "
        "out = (m.log_prob(torch.tensor([0.1, 0.7, 0.2])), m.entropy(), m.mean, m.variance)"
    ),
    "log_normal": (
        "m = D.LogNormal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.5])); "
        "v = torch.tensor([1.0, 0.3]); out = (m.log_prob(v), m.entropy(), m.mean, m.variance, "
        "m.mode, m.cdf(v), repr(m.support))"
    ),
    "gumbel": (
        "m = D.Gumbel(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.5])); "
        "out = (m.log_prob(torch.tensor([1.0, 0.3])), m.entropy(), m.mean, m.variance, m.mode)"
    ),
    "half_normal": (
        "m = D.HalfNormal(torch.tensor([1.0, 0.5])); v = torch.tensor([1.0, 0.3]); "
        "out = (m.log_prob(v), m.entropy(), m.mean, m.variance, m.cdf(v))"
    ),
    "continuous_bernoulli": (
        "m = D.ContinuousBernoulli(torch.tensor([0.2, 0.4995, 0.8])); "
        "v = torch.tensor([0.3, 0.5, 0.9]); out = (m.log_prob(v), m.entropy(), m.mean, "
        "m.variance, m.stddev, m.cdf(v), m.icdf(v), "
        "D.ContinuousBernoulli(logits=torch.tensor([0.2, -1.0])).probs)"
    ),
    "exp_family_entropy": (
        "class G(D.Gamma):\n    entropy = D.ExponentialFamily.entropy\n"
        "out = G(torch.tensor([0.5, 2.0]), torch.tensor([1.0, 3.0])).entropy()"
    ),
    "normal_cdf": "out = D.Normal(torch.tensor([0.0, 1.0]), 2.0).cdf(torch.tensor([0.5, 0.0]))",
    "relaxed": (
        "b = D.RelaxedBernoulli(torch.tensor(0.5), torch.tensor([0.3, 0.8])); "
        "c = D.RelaxedOneHotCategorical(torch.tensor(0.5), torch.tensor([0.2, 0.3, 0.5])); "
        "out = (b.log_prob(torch.tensor([0.2, 0.9])), c.log_prob(torch.tensor([0.2, 0.3, 0.5])))"
    ),
    "reprs": (
        "out = (repr(D.Exponential(torch.tensor([1.0]))), repr(D.Gamma(torch.ones(3), "
        "torch.ones(3))), repr(D.Dirichlet(torch.ones(3))), repr(D.StudentT(torch.tensor([2.0]))),"
        " repr(D.LogNormal(0.0, 1.0)), repr(D.Beta(torch.tensor([0.5]), torch.tensor([0.5]))))"
    ),
}

GRADS = {
    "gamma_rsample": (
        "c = torch.tensor([0.5, 3.0, 1.5], requires_grad=True); "
        "r = torch.tensor([1.0, 2.0, 0.5], requires_grad=True); "
        "s = D.Gamma(c, r).rsample((2,)); s.sum().backward(); out = (s.detach(), c.grad, r.grad)"
    ),
    "dirichlet_rsample": (
        "c = torch.tensor([0.5, 3.0, 1.5], requires_grad=True); s = D.Dirichlet(c).rsample(); "
        "(s * torch.tensor([1.0, 2.0, 3.0])).sum().backward(); out = (s.detach(), c.grad)"
    ),
    "beta_rsample": (
        "a = torch.tensor([0.5, 3.0], requires_grad=True); "
        "s = D.Beta(a, torch.tensor([2.0, 1.0])).rsample(); s.sum().backward(); "
        "out = (s.detach(), a.grad)"
    ),
    "log_prob_params": (
        "c = torch.tensor([0.5, 3.0], requires_grad=True); "
        "df = torch.tensor([2.0, 5.0], requires_grad=True); "
        "(D.Gamma(c, 1.0).log_prob(torch.tensor([1.0, 2.0])).sum() + "
        "D.StudentT(df).log_prob(torch.tensor([0.5, -1.0])).sum() + "
        "D.Beta(c, c).entropy().sum()).backward(); out = (c.grad, df.grad)"
    ),
    "continuous_bernoulli": (
        "p = torch.tensor([0.2, 0.7], requires_grad=True); "
        "s = D.ContinuousBernoulli(p).rsample(); (s.sum() + D.ContinuousBernoulli(p)"
        ".log_prob(torch.tensor([0.3, 0.4])).sum()).backward(); out = (s.detach(), p.grad)"
    ),
    "laplace_rsample": (
        "loc = torch.tensor([0.0, 1.0], requires_grad=True); "
        "s = D.Laplace(loc, torch.tensor([1.0, 2.0])).rsample((3,)); s.sum().backward(); "
        "out = (s.detach(), loc.grad)"
    ),
}

ERRORS = {
    "gamma_bad": "out = D.Gamma(torch.tensor([-1.0]), torch.tensor([1.0]))",
    "exponential_support": (
        "out = D.Exponential(torch.tensor([1.0])).log_prob(torch.tensor([-1.0]))"
    ),
    "dirichlet_0d": "out = D.Dirichlet(torch.tensor(1.0))",
    "dirichlet_bad": "out = D.Dirichlet(torch.tensor([1.0, -1.0]))",
    "beta_support": "out = D.Beta(torch.tensor([1.0]), 2.0).log_prob(torch.tensor([1.5]))",
    "student_t_bad": "out = D.StudentT(torch.tensor([0.0]))",
    "log_normal_bad": "out = D.LogNormal(torch.tensor([0.0]), torch.tensor([-1.0]))",
    "continuous_bernoulli_probs": (
        "out = D.ContinuousBernoulli(torch.tensor([1.5]), validate_args=True)"
    ),
    "cauchy_value": "out = D.Cauchy(0.0, 1.0).log_prob(1.0)",
}

# Programs the [cuda] run cannot compare, and why (torch runs them on the CPU):
CPU_ONLY = {
    # normal_ on the emulated device draws from the CUDA generator, torch's run from mt19937
    "student_t": "CUDA generator",
    "expand": "CUDA generator",
    # parameters given as Python numbers become tensors on the default device, which the
    # harness sets for the program's own factory calls only
    "gamma_scalar": "default device",
    "beta_scalar": "default device",
    "gumbel": "default device",
    # reprs and error messages print tensors, whose repr names the device
    "reprs": "repr shows the device",
    **{name: "the message prints a tensor" for name in ("beta_support", "dirichlet_bad")},
    **{name: "the message prints a tensor" for name in ("exponential_support", "gamma_bad")},
    **{name: "the message prints a tensor" for name in ("log_normal_bad", "student_t_bad")},
}


def _skip_on_cuda(name: str) -> None:
    if harness.DEVICE != "cpu" and name in CPU_ONLY:
        pytest.skip(f"cpu only: {CPU_ONLY[name]}")


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_sample(name: str) -> None:
    _skip_on_cuda(name)
    check(SETUP + SAMPLES[name], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", sorted(STATS))
def test_stats(name: str) -> None:
    _skip_on_cuda(name)
    check(SETUP + STATS[name], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", sorted(GRADS))
def test_grad(name: str) -> None:
    _skip_on_cuda(name)
    check(SETUP + GRADS[name], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error(name: str) -> None:
    _skip_on_cuda(name)
    check(SETUP + ERRORS[name])
