"""Conformance of MultivariateNormal (scale_tril / covariance_matrix / precision_matrix),
LowRankMultivariateNormal, their KL pairs,
the positive_definite constraint and PositiveDefiniteTransform, vs torch 2.13.

They need torch.linalg.cholesky / cholesky_ex / solve_triangular, which the linalg2 branch adds:
until it is merged the module skips. (Checked against torch on linalg2's tree with these
distributions on top: every program below agreed.)
"""

from __future__ import annotations

import pytest

import tensortrace

from . import harness
from .harness import check

if not all(hasattr(tensortrace.linalg, n) for n in ("cholesky", "cholesky_ex", "solve_triangular")):
    pytest.skip(
        "needs torch.linalg.cholesky / cholesky_ex / solve_triangular (the linalg2 branch)",
        allow_module_level=True,
    )

SETUP = "D = torch.distributions\n"

PROGRAMS = {
    "lowrank": (
        "W = torch.tensor([[1.0], [0.5], [-0.3]]); d = torch.tensor([0.5, 1.0, 2.0]); "
        "m = D.LowRankMultivariateNormal(torch.tensor([0.0, 1.0, -1.0]), W, d); "
        "v = torch.tensor([[0.3, -1.0, 0.5], [1.0, 2.0, 0.0]]); out = (m.sample((3,)), "
        "m.rsample(), m.log_prob(v), m.entropy(), m.mean, m.variance, m.covariance_matrix, "
        "m.precision_matrix, m.scale_tril)"
    ),
    "lowrank_batched": (
        "W = torch.tensor([[1.0, 0.2], [0.5, 0.1], [-0.3, 0.4]]); d = torch.tensor([0.5, "
        "1.0, 2.0]); m = D.LowRankMultivariateNormal(torch.zeros(2, 3), W, d); "
        "out = (m.batch_shape, m.log_prob(torch.ones(2, 3)), m.entropy(), m.expand((4, "
        "2)).batch_shape)"
    ),
    "lowrank_kl": (
        "W = torch.tensor([[1.0], [0.5]]); d = torch.tensor([0.5, 1.0]); "
        "p = D.LowRankMultivariateNormal(torch.zeros(2), W, d); "
        "q = D.LowRankMultivariateNormal(torch.ones(2), 2 * W, d + 1); "
        "r = D.MultivariateNormal(torch.ones(2), scale_tril=torch.tensor([[1.0, 0.0], [0.2, "
        "0.5]])); kl = D.kl_divergence; out = (kl(p, q), kl(p, r), kl(r, p))"
    ),
    "lowrank_grads": (
        "W = torch.tensor([[1.0], [0.5]], requires_grad=True); d = torch.tensor([0.5, 1.0], "
        "requires_grad=True); m = D.LowRankMultivariateNormal(torch.zeros(2), W, d); "
        "m.log_prob(torch.tensor([0.3, 0.2])).backward(); out = (W.grad, d.grad)"
    ),
    "scale_tril": (
        "L = torch.tensor([[1.0, 0.0], [0.5, 2.0]]); "
        "m = D.MultivariateNormal(torch.tensor([0.0, 1.0]), scale_tril=L); "
        "v = torch.tensor([[0.3, -1.0], [1.0, 2.0]]); out = (m.sample((3,)), m.rsample(), "
        "m.log_prob(v), m.entropy(), m.mean, m.variance, m.covariance_matrix, m.batch_shape, "
        "m.event_shape)"
    ),
    "covariance_batched": (
        "S = torch.tensor([[2.0, 0.3], [0.3, 1.0]]); m = D.MultivariateNormal(torch.zeros(3, "
        "2), covariance_matrix=S); out = (m.sample(), m.log_prob(torch.ones(3, 2)), "
        "m.scale_tril, m.entropy(), m.batch_shape)"
    ),
    "precision": (
        "P = torch.tensor([[2.0, 0.3], [0.3, 1.0]]); "
        "m = D.MultivariateNormal(torch.zeros(2), precision_matrix=P); out = (m.scale_tril, "
        "m.covariance_matrix, m.log_prob(torch.tensor([0.5, -0.5])))"
    ),
    "grads": (
        "loc = torch.tensor([0.5, -1.0], requires_grad=True); L = torch.tensor([[1.0, 0.0], "
        "[0.5, 2.0]], requires_grad=True); m = D.MultivariateNormal(loc, scale_tril=L); "
        "(m.log_prob(torch.tensor([0.3, 0.2])) + m.rsample().sum()).backward(); "
        "out = (loc.grad, L.grad)"
    ),
    "kl": (
        "S = torch.tensor([[2.0, 0.3], [0.3, 1.0]]); "
        "p = D.MultivariateNormal(torch.zeros(2), S); "
        "q = D.MultivariateNormal(torch.ones(2), scale_tril=torch.tensor([[1.0, 0.0], [0.2, "
        "0.5]])); out = D.kl_divergence(p, q)"
    ),
    "expand": (
        "m = D.MultivariateNormal(torch.zeros(2), torch.eye(2)).expand((3,)); "
        "out = (m.batch_shape, m.sample().shape, m.covariance_matrix.shape)"
    ),
    "positive_definite_transform": (
        "t = D.transforms.PositiveDefiniteTransform(); x = torch.tensor([[0.3, 0.0], [0.5, "
        "-0.2]]); y = t(x); out = (y, t.inv(y), "
        "repr(D.transform_to(D.constraints.positive_definite)), "
        "D.constraints.positive_definite.check(y))"
    ),
}

ERRORS = {
    "lowrank_bad_factor": (
        "out = D.LowRankMultivariateNormal(torch.zeros(2), torch.ones(3, 1), torch.ones(2))"
    ),
    "lowrank_bad_diag": (
        "out = D.LowRankMultivariateNormal(torch.zeros(2), torch.ones(2, 1), "
        "torch.tensor([1.0, -1.0]))"
    ),
    "bad_covariance": (
        "out = D.MultivariateNormal(torch.zeros(2), covariance_matrix=torch.tensor([[1.0, "
        "2.0], [2.0, 1.0]]))"
    ),
    "no_matrix": ("out = D.MultivariateNormal(torch.zeros(2))"),
    "loc_0d": ("out = D.MultivariateNormal(torch.tensor(0.0), torch.eye(2))"),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_distribution(name: str) -> None:
    cuda_generator = ("scale_tril", "covariance_batched", "grads", "expand", "lowrank")
    if harness.DEVICE != "cpu" and name in cuda_generator:
        pytest.skip("cpu only: normal_ on the emulated device draws from the CUDA generator")
    if harness.DEVICE != "cpu" and name == "lowrank_grads":
        # on linalg2's tree a backward of this graph mixes cuda:0 and cpu tensors (runtime bug,
        # not traced to its op yet)
        pytest.skip("cpu only: a backward on the emulated device mixes devices")
    check(SETUP + PROGRAMS[name], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error(name: str) -> None:
    if harness.DEVICE != "cpu" and name in ("bad_covariance", "lowrank_bad_diag"):
        pytest.skip("cpu only: the message prints a tensor")
    check(SETUP + ERRORS[name])
