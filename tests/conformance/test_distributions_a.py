"""Conformance of torch.distributions (Normal, Uniform, Bernoulli, Categorical) with torch 2.13.

Samples are bit-exact after manual_seed (sample, rsample, with sample shapes and batches);
log_prob, entropy and the moments agree to float rounding (rtol 1e-6: torch's softmax,
logsumexp and log_sigmoid kernels round differently from the composed ops here); reprs and the
validate_args errors (parameters outside their constraint, values outside the support) match.
"""

from __future__ import annotations

import pytest

from .harness import check

SETUP = (
    "Normal, Uniform, Bernoulli, Categorical = (torch.distributions.Normal, "
    "torch.distributions.Uniform, torch.distributions.Bernoulli, "
    "torch.distributions.Categorical)\n"
)

PROGRAMS = {
    "normal_sample": (
        "m = Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0])); out = m.sample()"
    ),
    "normal_sample_shape": "m = Normal(0.0, 1.0); out = m.sample((3, 20))",
    "normal_rsample": "m = Normal(torch.zeros(2), torch.ones(2) * 3); out = m.rsample((4,))",
    "normal_log_prob": (
        "m = Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0])); "
        "out = m.log_prob(torch.tensor([0.5, -1.0]))"
    ),
    "normal_entropy": "out = Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0])).entropy()",
    "normal_stats": (
        "m = Normal(torch.tensor([1.0]), torch.tensor([2.0])); "
        "out = (m.mean, m.variance, m.stddev, m.mode)"
    ),
    "normal_shapes": (
        "m = Normal(torch.zeros(3, 2), 1.0); "
        "out = (m.batch_shape, m.event_shape, m.sample((5,)).shape)"
    ),
    "normal_repr": (
        "out = repr(Normal(torch.tensor([0.0]), "
        "torch.tensor([1.0]))) + repr(Normal(torch.zeros(3), torch.ones(3)))"
    ),
    "normal_repr_scalar": "out = repr(Normal(0.0, 1.0))",
    "normal_bad_scale": "out = Normal(torch.zeros(2), torch.tensor([1.0, -1.0]))",
    "normal_bad_scale_novalidate": (
        "m = Normal(torch.zeros(2), torch.tensor([1.0, -1.0]), validate_args=False); out = m.scale"
    ),
    "normal_bad_value_shape": (
        "out = Normal(torch.zeros(2), torch.ones(2)).log_prob(torch.zeros(3))"
    ),
    "normal_value_not_tensor": "out = Normal(torch.zeros(2), torch.ones(2)).log_prob(1.0)",
    "normal_expand": (
        "m = Normal(torch.zeros(1), torch.ones(1)).expand((3,)); out = (m.batch_shape, m.sample())"
    ),
    "uniform_sample": (
        "m = Uniform(torch.tensor([0.0]), torch.tensor([5.0])); out = m.sample((4,))"
    ),
    "uniform_rsample": "m = Uniform(-1.0, 1.0); out = m.rsample((2, 3))",
    "uniform_log_prob": "m = Uniform(0.0, 2.0); out = m.log_prob(torch.tensor([0.5, 1.5]))",
    "uniform_log_prob_outside": (
        "m = Uniform(0.0, 2.0, validate_args=False); out = m.log_prob(torch.tensor([-0.5, 2.5]))"
    ),
    "uniform_outside_support": "m = Uniform(0.0, 2.0); out = m.log_prob(torch.tensor([3.0]))",
    "uniform_entropy_stats": (
        "m = Uniform(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 6.0])); "
        "out = (m.entropy(), m.mean, m.variance, m.stddev)"
    ),
    "uniform_bad": "out = Uniform(torch.tensor([1.0]), torch.tensor([0.0]))",
    "uniform_repr": "out = repr(Uniform(torch.tensor([1.0]), torch.tensor([3.0])))",
    "uniform_cdf": "out = Uniform(0.0, 4.0).cdf(torch.tensor([1.0, 3.0]))",
    "bernoulli_sample": "m = Bernoulli(torch.tensor([0.3, 0.7])); out = m.sample((5,))",
    "bernoulli_scalar": "m = Bernoulli(0.5); out = (m.sample(), m.sample((10,)), m.batch_shape)",
    "bernoulli_logits": (
        "m = Bernoulli(logits=torch.tensor([-1.0, 0.0, 2.0])); out = (m.probs, m.sample())"
    ),
    "bernoulli_probs_to_logits": "m = Bernoulli(torch.tensor([0.25, 0.5])); out = m.logits",
    "bernoulli_log_prob": (
        "m = Bernoulli(torch.tensor([0.25, 0.5])); out = m.log_prob(torch.tensor([1.0, 0.0]))"
    ),
    "bernoulli_entropy": "out = Bernoulli(torch.tensor([0.1, 0.5, 0.9])).entropy()",
    "bernoulli_stats": "m = Bernoulli(torch.tensor([0.2])); out = (m.mean, m.variance)",
    "bernoulli_both": "out = Bernoulli(probs=0.5, logits=0.0)",
    "bernoulli_neither": "out = Bernoulli()",
    "bernoulli_bad_p": "out = Bernoulli(torch.tensor([1.5]))",
    "bernoulli_bad_value": "out = Bernoulli(torch.tensor([0.5])).log_prob(torch.tensor([0.5]))",
    "bernoulli_repr": (
        "out = repr(Bernoulli(torch.tensor([0.3]))) + repr(Bernoulli(logits=torch.zeros(4)))"
    ),
    "bernoulli_enumerate": "out = Bernoulli(torch.tensor([0.3, 0.6])).enumerate_support()",
    "categorical_sample": "m = Categorical(torch.tensor([0.25, 0.25, 0.5])); out = m.sample()",
    "categorical_sample_n": "m = Categorical(torch.tensor([0.1, 0.2, 0.7])); out = m.sample((20,))",
    "categorical_batch": (
        "m = Categorical(torch.tensor([[0.5, 0.5], [0.9, 0.1]])); "
        "out = (m.sample(), m.sample((3,)), m.batch_shape)"
    ),
    "categorical_logits": (
        "m = Categorical(logits=torch.tensor([1.0, 2.0, 3.0])); "
        "out = (m.logits, m.probs, m.sample((4,)))"
    ),
    "categorical_unnormalized": "m = Categorical(torch.tensor([1.0, 3.0])); out = m.probs",
    "categorical_log_prob": (
        "m = Categorical(torch.tensor([0.2, 0.3, 0.5])); out = m.log_prob(torch.tensor([0, 2, 1]))"
    ),
    "categorical_log_prob_batch": (
        "m = Categorical(torch.tensor([[0.2, 0.8], [0.6, 0.4]])); "
        "out = m.log_prob(torch.tensor([1, 0]))"
    ),
    "categorical_entropy": "out = Categorical(torch.tensor([0.2, 0.3, 0.5])).entropy()",
    "categorical_stats": (
        "m = Categorical(torch.tensor([0.2, 0.8])); out = (m.mean, m.variance, m.mode)"
    ),
    "categorical_bad_value": (
        "out = Categorical(torch.tensor([0.2, 0.8])).log_prob(torch.tensor([2]))"
    ),
    "categorical_0d": "out = Categorical(torch.tensor(0.5))",
    "categorical_repr": (
        "out = repr(Categorical(torch.tensor([0.2, 0.8]))) + "
        "repr(Categorical(logits=torch.zeros(3)))"
    ),
    "categorical_negative": "out = Categorical(torch.tensor([-0.2, 1.2]))",
    "categorical_enumerate": (
        "out = Categorical(torch.tensor([[0.2, 0.8], [0.5, 0.5]])).enumerate_support()"
    ),
    "perplexity": "out = Categorical(torch.tensor([0.5, 0.5])).perplexity()",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_distribution(name: str) -> None:
    check(SETUP + PROGRAMS[name], rtol=1e-6, atol=1e-7)
