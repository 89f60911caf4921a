"""Conformance of the samplers and special functions under torch.distributions, vs torch 2.13.

_standard_gamma, _sample_dirichlet, poisson, binomial, cauchy_, log_normal_ and geometric_ draw
exactly torch's values after manual_seed (Marsaglia-Tsang, BTRS / inversion and Hoermann's
rejection on the same generator words); lgamma / digamma / polygamma and the reparameterized
gradients (_standard_gamma_grad, _dirichlet_grad) agree to float rounding; the bad inputs raise
torch's errors and leak nothing.
"""

from __future__ import annotations

import pytest

from .harness import check

PROGRAMS = {
    "gamma_float": (
        "out = torch._standard_gamma(torch.tensor([0.5, 1.0, 2.5, 10.0, 0.01, 3.0] * 4))"
    ),
    "gamma_double": (
        "out = torch._standard_gamma(torch.tensor([[0.3, 4.0], [1.5, 50.0]], dtype=torch.float64))"
    ),
    "gamma_strided": "out = torch._standard_gamma(torch.tensor([[0.5, 2.0], [3.0, 7.0]]).t())",
    "gamma_twice": (
        "a = torch._standard_gamma(torch.ones(3) * 2); out = (a, torch._standard_gamma(a))"
    ),
    "dirichlet": (
        "out = torch._sample_dirichlet(torch.tensor([[0.5, 1.0, 2.5], [10.0, 0.01, 3.0]]))"
    ),
    "poisson": "out = torch.poisson(torch.tensor([0.5, 1.0, 2.5, 10.0, 0.0, 30.0, 100.0] * 3))",
    "poisson_double": "out = torch.poisson(torch.full((2, 3), 12.5, dtype=torch.float64))",
    "binomial": (
        "out = torch.binomial(torch.tensor([10.0, 100.0, 5.0, 50.0, 200.0] * 3), "
        "torch.tensor([0.3, 0.5, 0.9, 0.7, 0.05] * 3))"
    ),
    "binomial_edges": (
        "out = torch.binomial(torch.tensor([0.0, 7.0, 7.0, 40.0]), "
        "torch.tensor([0.5, 0.0, 1.0, 0.999]))"
    ),
    "cauchy": "out = (torch.empty(20).cauchy_(), torch.empty(5, 4).cauchy_(1.0, 2.0))",
    "log_normal": (
        "out = (torch.empty(20, dtype=torch.float64).log_normal_(), "
        "torch.empty(3).log_normal_(0.0, 0.5))"
    ),
    "geometric": (
        "out = (torch.empty(20).geometric_(0.3), torch.empty(6, dtype=torch.long).geometric_(0.7))"
    ),
    "lgamma": (
        "x = torch.tensor([0.5, 1.0, 2.5, -0.5, 0.0, 10.0, 1e-3]); "
        "out = (torch.lgamma(x), x.lgamma(), torch.lgamma(torch.tensor([1, 2, 3])))"
    ),
    "digamma": (
        "x = torch.tensor([0.5, 1.0, 2.5, -0.5, 0.0, 10.0, 1e-3, -2.0, 30.0]); "
        "out = (torch.digamma(x), torch.digamma(x.double()), x.clone().digamma_())"
    ),
    "polygamma": (
        "x = torch.tensor([0.5, 1.0, 2.5, -0.5, 10.0, 1e-3]); "
        "out = (torch.polygamma(1, x), torch.polygamma(2, x.abs()), x.polygamma(0), "
        "torch.polygamma(3, x.abs().double()), x.clone().polygamma_(1))"
    ),
    "special_grads": (
        "x = torch.tensor([0.5, 2.5, 7.0], requires_grad=True); "
        "(torch.lgamma(x) + torch.digamma(x) + torch.polygamma(2, x)).sum().backward(); "
        "out = x.grad"
    ),
    "gamma_rsample_grad": (
        "x = torch.tensor([0.5, 2.5, 7.0, 20.0], requires_grad=True); "
        "s = torch._standard_gamma(x); s.sum().backward(); out = (s.detach(), x.grad)"
    ),
    "standard_gamma_grad": (
        "out = torch._standard_gamma_grad(torch.tensor([0.5, 1.0, 2.5, 10.0, 20.0, 9.0]), "
        "torch.tensor([0.3, 1.5, 2.0, 9.0, 30.0, 2.0]))"
    ),
    "dirichlet_grad": (
        "out = torch._dirichlet_grad(torch.tensor([0.1, 0.5, 0.9, 0.4, 0.01, 0.99]), "
        "torch.tensor([0.5, 2.0, 3.0, 10.0, 1.0, 2.0]), "
        "torch.tensor([1.5, 4.0, 3.5, 25.0, 3.0, 2.5]))"
    ),
}

ERRORS = {
    "poisson_negative": "out = torch.poisson(torch.tensor([1.0, -1.0]))",
    "polygamma_negative": "out = torch.polygamma(-1, torch.tensor([0.5]))",
    "geometric_p": "out = torch.empty(3).geometric_(1.5)",
    "cauchy_sigma": "out = torch.empty(3).cauchy_(0.0, -1.0)",
    "log_normal_std": "out = torch.empty(3).log_normal_(0.0, 0.0)",
    "gamma_int": "out = torch._standard_gamma(torch.tensor([1, 2]))",
    "binomial_int": "out = torch.binomial(torch.tensor([1, 2]), torch.tensor([0, 1]))",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_sampler(name: str) -> None:
    check(PROGRAMS[name], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error(name: str) -> None:
    check(ERRORS[name])


@pytest.mark.parametrize("name", ["poisson_negative", "gamma_int"])
def test_an_error_leaks_nothing(name: str) -> None:
    """The result a sampler allocated before it raised is freed with the exception."""
    import gc

    import tensortrace

    namespace = {"torch": tensortrace}
    exec("x = torch.randn(3, 4)", namespace)  # noqa: S102 - warm up the allocator's state
    gc.collect()
    before = tensortrace.memory_allocated()
    with pytest.raises(RuntimeError):
        exec(ERRORS[name], namespace)  # noqa: S102 - the program under test
    gc.collect()
    assert tensortrace.memory_allocated() == before
