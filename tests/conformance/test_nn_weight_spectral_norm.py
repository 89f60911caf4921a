"""Conformance of torch._weight_norm / _weight_norm_interface / norm_except_dim (WeightNorm.cpp
through the dispatcher, with its derivatives entry) and of the hook versions of
nn.utils.weight_norm / spectral_norm against torch 2.13: values, gradients (double backward
too), parameters and buffers, state_dict round trips with the spectral_norm version metadata,
remove_*, and the errors."""

from __future__ import annotations

import pytest

from .harness import check

# data and weights from the CPU generator, moved to the harness's device
PRE = (
    "import warnings\nwarnings.simplefilter('ignore')\nnn = torch.nn\nU = torch.nn.utils\n"
    "dev = torch.empty(0).device\n"
    "def cpu_randn(*s, **k):\n    return torch.randn(*s, device='cpu', **k).to(dev)\n"
    "names = lambda m: (sorted(n for n, _ in m.named_parameters()), "
    "sorted(n for n, _ in m.named_buffers()))\n"
)

PROGRAMS = {
    "weight_norm_op": "v = cpu_randn(3, 4).requires_grad_(); g = cpu_randn(3, 1).requires_grad_()\n"
    "w = torch._weight_norm(v, g); (w * cpu_randn(3, 4)).sum().backward()\n"
    "out = (w.detach(), v.grad, g.grad, w.grad_fn.name())",
    "weight_norm_last_dim": "v = cpu_randn(2, 3, 4).requires_grad_(); "
    "g = cpu_randn(1, 1, 4).requires_grad_()\nw = torch._weight_norm(v, g, 2); "
    "w.pow(3).sum().backward(); out = (w.detach(), v.grad, g.grad, w.grad_fn.name())",
    "weight_norm_middle_dim": "v = cpu_randn(2, 3, 4).requires_grad_(); "
    "g = cpu_randn(1, 3, 1).requires_grad_()\nw = torch._weight_norm(v, g, 1); "
    "w.pow(3).sum().backward(); out = (w.detach(), v.grad, g.grad, w.grad_fn.name())",
    "weight_norm_interface": "v = cpu_randn(3, 2, 2); g = cpu_randn(3, 1, 1)\n"
    "w, n = torch._weight_norm_interface(v, g, 0); out = (w, n)",
    "weight_norm_double_backward": "v = cpu_randn(2, 3, dtype=torch.float64).requires_grad_()\n"
    "g = cpu_randn(2, 1, dtype=torch.float64).requires_grad_()\n"
    "w = torch._weight_norm(v, g, 0)\n"
    "gv, gg = torch.autograd.grad(w.sin().sum(), (v, g), create_graph=True)\n"
    "(gv.sum() + gg.sum()).backward(); out = (gv.detach(), gg.detach(), v.grad, g.grad, "
    "gv.grad_fn.name())",
    "norm_except_dim": "v = cpu_randn(2, 3, 4)\n"
    "out = [torch.norm_except_dim(v, 2, d) for d in (-1, 0, 1, 2)] + "
    "[torch.norm_except_dim(v, 3, 0)]",
    "weight_norm_half": "v = cpu_randn(3, 4).half(); g = cpu_randn(3, 1).half()\n"
    "w, n = torch._weight_norm_interface(v, g, 0); out = (w, n)",
    # ---- the hook weight_norm ----
    "weight_norm_module": "m = U.weight_norm(nn.Linear(4, 3, device='cpu')).to(dev); x = "
    "cpu_randn(2, 4)\n"
    "y = m(x); y.sum().backward()\n"
    "out = (names(m), m.weight_g.detach(), m.weight_v.detach(), y.detach(), "
    "m.weight_g.grad, m.weight_v.grad, m.weight.grad_fn.name())",
    "weight_norm_dim_none": "m = U.weight_norm(nn.Linear(4, 3, device='cpu'), dim=None).to(dev)\n"
    "out = (m.weight_g.detach(), m.weight_g.shape, m(cpu_randn(2, 4)).detach())",
    "weight_norm_conv_dim1": "m = U.weight_norm(nn.Conv1d(2, 3, 2, device='cpu'), name='weight', "
    "dim=1).to(dev)\n"
    "w = torch._weight_norm(m.weight_v, m.weight_g, 1)\n"
    "out = (m.weight_g.shape, m.weight_g.detach(), w.detach(), w.grad_fn.name())",
    "weight_norm_remove": "m = U.weight_norm(nn.Linear(4, 3, device='cpu')).to(dev); "
    "m(cpu_randn(1, 4))\n"
    "w = m.weight.detach().clone()\nr = U.remove_weight_norm(m)\n"
    "out = (names(m), torch.allclose(m.weight, w), type(m.weight).__name__, r is m, "
    "len(m._forward_pre_hooks))",
    "weight_norm_state_dict": "m = U.weight_norm(nn.Linear(4, 3, device='cpu')).to(dev)\n"
    "m2 = U.weight_norm(nn.Linear(4, 3, device='cpu')).to(dev)\nr = "
    "m2.load_state_dict(m.state_dict())\n"
    "m2(cpu_randn(1, 4))\nout = (list(m.state_dict()), m2.weight.detach(), repr(r))",
    "weight_norm_warns": "with warnings.catch_warnings(record=True) as w:\n"
    "    warnings.simplefilter('always')\n    U.weight_norm(nn.Linear(2, 2))\n"
    "out = [(c.category.__name__, str(c.message)) for c in w]",
    # ---- the hook spectral_norm ----
    "spectral_norm_module": "m = U.spectral_norm(nn.Linear(5, 3, device='cpu')).to(dev); x = "
    "cpu_randn(2, 5)\n"
    "y = m(x); y.sum().backward()\n"
    "out = (names(m), m.weight_u, m.weight_v, y.detach(), m.weight.detach(), "
    "m.weight_orig.grad, m.weight.grad_fn.name())",
    "spectral_norm_iterations": "m = U.spectral_norm(nn.Linear(4, 4), n_power_iterations=5)\n"
    "m = m.to(dev)\nfor _ in range(3):\n    m(cpu_randn(1, 4))\n"
    "s = torch.linalg.svdvals(m.weight_orig.detach())[0]\n"
    "out = (m.weight_u, m.weight_v, m.weight.detach(), torch.linalg.svdvals(m.weight.detach()))",
    "spectral_norm_eval": "m = U.spectral_norm(nn.Linear(4, 2, device='cpu')).to(dev).eval()\n"
    "u = m.weight_u.clone(); m(cpu_randn(1, 4)); out = (torch.equal(u, m.weight_u), "
    "m.weight.detach())",
    "spectral_norm_conv_transpose": "m = U.spectral_norm(nn.ConvTranspose2d(2, 3, 2, "
    "device='cpu')).to(dev)\n"
    "out = (m.weight_u.shape, m.weight_v.shape, m.weight_u)",
    "spectral_norm_state_dict": "m = U.spectral_norm(nn.Linear(3, 2, device='cpu')).to(dev)\n"
    "sd = m.state_dict(); m2 = U.spectral_norm(nn.Linear(3, 2, device='cpu')).to(dev)\n"
    "r = m2.load_state_dict(sd)\n"
    "out = (list(sd), dict(sd._metadata), m2.weight_u, m2.weight_orig.detach(), repr(r))",
    "spectral_norm_remove": "m = U.spectral_norm(nn.Linear(3, 2, device='cpu')).to(dev); "
    "m(cpu_randn(1, 3))\n"
    "U.remove_spectral_norm(m)\nout = (names(m), m.weight.detach(), len(m._state_dict_hooks), "
    "len(m._forward_pre_hooks), list(m.state_dict()))",
    # ---- errors ----
    "err_weight_norm_op_dim": "out = torch._weight_norm(torch.ones(2, 2), torch.ones(2), 5)",
    "err_weight_norm_twice": "m = U.weight_norm(nn.Linear(2, 2)); out = U.weight_norm(m)",
    "err_remove_weight_norm": "out = U.remove_weight_norm(nn.Linear(2, 2), 'bias')",
    "err_spectral_norm_twice": "m = U.spectral_norm(nn.Linear(2, 2)); out = U.spectral_norm(m)",
    "err_spectral_norm_iterations": "out = U.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)",
    "err_spectral_norm_none": "out = U.spectral_norm(nn.Linear(2, 2, bias=False), 'bias')",
    "err_remove_spectral_norm": "out = U.remove_spectral_norm(nn.Linear(2, 2))",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_nn_weight_spectral_norm(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], rtol=1e-4, atol=1e-5)
