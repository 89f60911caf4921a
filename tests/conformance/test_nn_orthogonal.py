"""Conformance of nn.utils.parametrizations.orthogonal (matrix_exp, cayley, householder, with and
without the trivialization, right_inverse on assignment) and of the ops under it, torch.geqrf
and torch.linalg.householder_product (values, strides, gradients, errors) against torch 2.13."""

from __future__ import annotations

import pytest

from .harness import check

# modules and data from the CPU generator (device='cpu'), moved to the harness's device: on
# the emulated CUDA device they would draw from its generator, and torch's from the CPU one
PRE = (
    "nn = torch.nn\nP = torch.nn.utils.parametrizations\ndev = torch.empty(0).device\n"
    "def cpu_randn(*s, **k):\n    return torch.randn(*s, device='cpu', **k).to(dev)\n"
    "def orth_error(Q):\n"
    "    QH = Q.mH if Q.size(-2) >= Q.size(-1) else Q\n"
    "    G = QH @ QH.mH if Q.size(-2) < Q.size(-1) else QH @ Q\n"
    "    return (G - torch.eye(G.size(-1), dtype=G.dtype)).abs().max() < 1e-5\n"
)

# right_inverse completes a non-square weight with torch.randn on the weight's device: those
# modules are made under `with torch.device('cpu')`, so the draws come from the CPU generator
PROGRAMS = {
    "default_square": "m = P.orthogonal(nn.Linear(4, 4, device='cpu').to(dev))\n"
    "out = (m.weight.detach(), orth_error(m.weight), "
    "type(m.parametrizations.weight[0]).__name__, m.parametrizations.weight[0].base, "
    "m.parametrizations.weight.original)",
    "householder_tall": "with torch.device('cpu'):\n    m = P.orthogonal(nn.Linear(3, 5))\n"
    "m = m.to(dev)\n"
    "out = (m.weight.detach(), orth_error(m.weight), m.parametrizations.weight[0].base)",
    "householder_wide": "with torch.device('cpu'):\n    m = P.orthogonal(nn.Linear(5, 3))\n"
    "m = m.to(dev)\nout = (m.weight.detach(), orth_error(m.weight))",
    "cayley_tall": "with torch.device('cpu'):\n"
    "    m = P.orthogonal(nn.Linear(2, 4), orthogonal_map='cayley')\n"
    "m = m.to(dev)\nout = (m.weight.detach(), orth_error(m.weight))",
    "matrix_exp_wide": "with torch.device('cpu'):\n"
    "    m = P.orthogonal(nn.Linear(4, 3), orthogonal_map='matrix_exp')\n"
    "m = m.to(dev)\nout = (m.weight.detach(), orth_error(m.weight))",
    "no_trivialization_householder": "m = P.orthogonal(nn.Linear(3, 4, device='cpu').to(dev), "
    "use_trivialization=False)\nout = (m.weight.detach(), orth_error(m.weight), "
    "hasattr(m.parametrizations.weight[0], 'base'), m.parametrizations.weight.original)",
    "no_trivialization_matrix_exp": "m = P.orthogonal(nn.Linear(3, 3, device='cpu').to(dev), "
    "use_trivialization=False)\nout = (m.weight.detach(), orth_error(m.weight))",
    "batch_buffer": "m = nn.Module(); m.register_buffer('w', cpu_randn(2, 3, 3))\n"
    "P.orthogonal(m, 'w')\nout = (m.w, orth_error(m.w))",
    "complex": "m = nn.Linear(3, 3, dtype=torch.complex64, device='cpu').to(dev)\n"
    "P.orthogonal(m)\nout = (m.weight.detach(), orth_error(m.weight))",
    "assign_orthogonal": "m = P.orthogonal(nn.Linear(3, 3, device='cpu').to(dev))\n"
    "Q = torch.linalg.qr(cpu_randn(3, 3)).Q\nm.weight = Q\n"
    "out = (m.weight.detach(), (m.weight - Q).abs().max() < 1e-5, "
    "m.parametrizations.weight.original)",
    "gradients": "out = []\nfor mp in ('matrix_exp', 'cayley', 'householder'):\n"
    "    with torch.device('cpu'):\n"
    "        m = P.orthogonal(nn.Linear(3, 4), orthogonal_map=mp)\n"
    "    m = m.to(dev)\n"
    "    x = cpu_randn(2, 3)\n    m(x).pow(2).sum().backward()\n"
    "    out += [m.parametrizations.weight.original.grad, m.bias.grad]",
    "training_step": "m = P.orthogonal(nn.Linear(3, 3, device='cpu').to(dev), "
    "orthogonal_map='cayley')\nopt = torch.optim.SGD(m.parameters(), lr=0.1)\n"
    "x = cpu_randn(4, 3)\nfor _ in range(3):\n    opt.zero_grad(); m(x).sum().backward(); "
    "opt.step()\nout = (m.weight.detach(), orth_error(m.weight))",
    # ---- geqrf / householder_product ----
    "geqrf": "A = cpu_randn(2, 4, 3); a, tau = torch.geqrf(A)\n"
    "r = A.geqrf()\nout = (a, tau, r.a, type(r).__name__, torch.geqrf(cpu_randn(3, 5, "
    "dtype=torch.float64)))",
    "householder_product": "a, tau = torch.geqrf(cpu_randn(5, 3, dtype=torch.float64))\n"
    "Q = torch.linalg.householder_product(a, tau)\n"
    "out = (Q, torch.linalg.householder_product(a, tau[:1]), (Q.mT @ Q))",
    "householder_product_grad": "a, tau = torch.geqrf(cpu_randn(2, 4, 3, dtype=torch.float64))\n"
    "a.requires_grad_(); tau.requires_grad_()\n"
    "Q = torch.linalg.householder_product(a, tau[..., :2])\n"
    "(Q * cpu_randn(2, 4, 3, dtype=torch.float64)).sum().backward()\n"
    "out = (Q.detach(), a.grad, tau.grad, Q.grad_fn.name())",
    "householder_product_complex_grad": "A = cpu_randn(3, 2, dtype=torch.complex128)\n"
    "a, tau = torch.geqrf(A); a.requires_grad_(); tau.requires_grad_()\n"
    "Q = torch.linalg.householder_product(a, tau)\n"
    "(Q * cpu_randn(3, 2, dtype=torch.complex128)).sum().abs().backward()\n"
    "out = (Q.detach(), a.grad, tau.grad)",
    # ---- errors ----
    "err_no_weight": "out = P.orthogonal(nn.ReLU())",
    "err_1d": "m = nn.Module(); m.register_buffer('w', torch.ones(3)); out = P.orthogonal(m, 'w')",
    "err_map": "out = P.orthogonal(nn.Linear(3, 3), orthogonal_map='qr')",
    "err_householder_complex": "out = P.orthogonal(nn.Linear(2, 2, dtype=torch.complex64), "
    "orthogonal_map='householder')",
    "err_assign_shape": "m = P.orthogonal(nn.Linear(3, 3)); m.weight = torch.eye(2)",
    "err_assign_no_trivialization": "m = P.orthogonal(nn.Linear(3, 3), use_trivialization=False)"
    "\nm.weight = torch.eye(3)",
    "err_geqrf_1d": "out = torch.geqrf(torch.ones(3))",
    "err_geqrf_long": "out = torch.geqrf(torch.ones(2, 2, dtype=torch.long))",
    "err_hp_wide": "out = torch.linalg.householder_product(torch.ones(2, 3), torch.ones(2))",
    "err_hp_tau_long": "out = torch.linalg.householder_product(torch.ones(3, 2), torch.ones(3))",
    "err_hp_tau_ndim": "out = torch.linalg.householder_product(torch.ones(3, 2), torch.ones(1, 2))",
    "err_hp_batch": "out = torch.linalg.householder_product(torch.ones(2, 3, 2), torch.ones(3, 2))",
    "err_hp_dtype": "out = torch.linalg.householder_product(torch.ones(3, 2), "
    "torch.ones(2, dtype=torch.float64))",
    "err_geqrf_backward": "A = torch.randn(3, 2, requires_grad=True)\n"
    "a, tau = torch.geqrf(A); a.sum().backward()",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_nn_orthogonal(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], rtol=1e-4, atol=1e-5)
