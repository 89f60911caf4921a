"""Conformance of nn.utils.parametrize and nn.utils.parametrizations (weight_norm,
spectral_norm) against torch 2.13: the Parametrized<Class> swap, original / original0..n,
right_inverse on assignment, chains, unsafe, cached(), remove_parametrizations, state_dict
round trips (a hook-version weight_norm checkpoint too), gradients, and the errors."""

from __future__ import annotations

import pytest

from .harness import check

# data and weights from the CPU generator, moved to the harness's device
PRE = (
    "import warnings\nwarnings.simplefilter('ignore')\nnn = torch.nn\n"
    "P = torch.nn.utils.parametrize\nPZ = torch.nn.utils.parametrizations\n"
    "dev = torch.empty(0).device\n"
    "def cpu_randn(*s, **k):\n    return torch.randn(*s, device='cpu', **k).to(dev)\n"
    "names = lambda m: (sorted(n for n, _ in m.named_parameters()), "
    "sorted(n for n, _ in m.named_buffers()))\n"
    "class Sym(nn.Module):\n    def forward(self, X):\n"
    "        return X.triu() + X.triu(1).transpose(-1, -2)\n"
    "    def right_inverse(self, A):\n        return A.triu()\n"
    "class Double(nn.Module):\n    def forward(self, X):\n        return X * 2\n"
    "class Split(nn.Module):\n    def forward(self, A, B):\n        return A + B\n"
    "    def right_inverse(self, X):\n        return (X, torch.zeros_like(X))\n"
    "m = nn.Linear(3, 3, device='cpu').to(dev)\nx = cpu_randn(2, 3)\n"
)

PROGRAMS = {
    "register": "P.register_parametrization(m, 'weight', Sym())\n"
    "y = m(x); y.sum().backward()\n"
    "out = (type(m).__name__, names(m), m.weight.detach(), y.detach(), "
    "m.parametrizations.weight.original.grad, P.is_parametrized(m), "
    "P.is_parametrized(m, 'weight'), P.is_parametrized(m, 'bias'), "
    "P.type_before_parametrizations(m).__name__, list(m.state_dict()), "
    "isinstance(m, nn.Linear), m.weight.grad_fn.name())",
    "repr": "P.register_parametrization(m, 'weight', Sym()); out = repr(m.cpu())",
    "assign_right_inverse": "P.register_parametrization(m, 'weight', Sym())\n"
    "o = m.parametrizations.weight.original\nm.weight = cpu_randn(3, 3)\n"
    "out = (m.weight.detach(), o.detach(), m.parametrizations.weight.original is o)",
    "chain": "P.register_parametrization(m, 'weight', Sym())\n"
    "P.register_parametrization(m, 'weight', Double())\n"
    "out = (m.weight.detach(), len(m.parametrizations.weight), "
    "m.parametrizations.weight.unsafe)",
    "sequence_originals": "P.register_parametrization(m, 'weight', Split())\n"
    "out = (names(m), m.weight.detach(), m.parametrizations.weight.original1, "
    "m.parametrizations.weight.ntensors, m.parametrizations.weight.is_tensor)",
    "buffer": "m.register_buffer('scale', cpu_randn(3, 3))\n"
    "P.register_parametrization(m, 'scale', Sym())\nout = (names(m), m.scale)",
    "unsafe_shape": "class Row(nn.Module):\n    def forward(self, X):\n        return X[0]\n"
    "P.register_parametrization(m, 'weight', Row(), unsafe=True)\n"
    "out = (m.weight.detach(), m.parametrizations.weight.unsafe)",
    "cached": "calls = []\nclass Count(nn.Module):\n    def forward(self, X):\n"
    "        calls.append(1)\n        return X\n"
    "P.register_parametrization(m, 'weight', Count())\nn0 = len(calls)\n"
    "with P.cached():\n    a = m.weight; b = m.weight\n"
    "c = m.weight\nout = (n0, len(calls), a is b, a is c)",
    "remove_leave": "P.register_parametrization(m, 'weight', Sym())\n"
    "w = m.weight.detach().clone()\nP.remove_parametrizations(m, 'weight')\n"
    "out = (type(m).__name__, names(m), torch.equal(m.weight.detach(), w), "
    "type(m.weight).__name__, hasattr(m, 'parametrizations'))",
    "remove_not_leave": "o = m.weight.detach().clone()\n"
    "P.register_parametrization(m, 'weight', Double())\n"
    "P.remove_parametrizations(m, 'weight', leave_parametrized=False)\n"
    "out = (torch.equal(m.weight.detach(), o), names(m))",
    "remove_sequence": "P.register_parametrization(m, 'weight', Split())\n"
    "P.remove_parametrizations(m, 'weight')\nout = (names(m), m.weight.detach())",
    "remove_one_of_two": "P.register_parametrization(m, 'weight', Sym())\n"
    "P.register_parametrization(m, 'bias', Double())\n"
    "P.remove_parametrizations(m, 'weight')\nout = (type(m).__name__, names(m))",
    "state_dict_roundtrip": "P.register_parametrization(m, 'weight', Sym())\n"
    "m2 = nn.Linear(3, 3, device='cpu').to(dev); P.register_parametrization(m2, 'weight', Sym())\n"
    "r = m2.load_state_dict(m.state_dict()); out = (m2.weight.detach(), repr(r))",
    "transfer": "P.register_parametrization(m, 'weight', Sym())\nm2 = nn.Linear(3, 3, "
    "device='cpu').to(dev)\n"
    "P.transfer_parametrizations_and_params(m, m2)\n"
    "out = (type(m2).__name__, m2.weight.detach(), "
    "m2.parametrizations.weight.original is m.parametrizations.weight.original)",
    "deepcopy": "import copy\nP.register_parametrization(m, 'weight', Sym())\n"
    "c = copy.deepcopy(m); out = (type(c).__name__, c.weight.detach())",
    # ---- parametrizations ----
    "weight_norm": "PZ.weight_norm(m)\ny = m(x); y.sum().backward()\n"
    "pl = m.parametrizations.weight\n"
    "out = (names(m), pl.original0.detach(), pl.original1.detach(), y.detach(), "
    "pl.original0.grad, pl.original1.grad, list(m.state_dict()))",
    "weight_norm_dim_none": "PZ.weight_norm(m, dim=None)\n"
    "out = (m.parametrizations.weight.original0.detach(), m.weight.detach())",
    "weight_norm_assign": "PZ.weight_norm(m)\nm.weight = cpu_randn(3, 3)\n"
    "out = (m.parametrizations.weight.original0.detach(), m.weight.detach())",
    "weight_norm_old_checkpoint": "old = torch.nn.utils.weight_norm(nn.Linear(3, 3, "
    "device='cpu')).to(dev)\n"
    "PZ.weight_norm(m)\nr = m.load_state_dict(old.state_dict()); old(x)\n"
    "out = (repr(r), m.weight.detach(), old.weight.detach())",
    # _SpectralNorm draws u and v on the weight's device: registered on the CPU (the
    # emulated CUDA device would draw from its own generator), then moved
    "spectral_norm": "PZ.spectral_norm(m.cpu()).to(dev)\ny = m(x); y.sum().backward()\n"
    "sn = m.parametrizations.weight[0]\n"
    "out = (names(m), sn._u, sn._v, y.detach(), m.parametrizations.weight.original.grad, "
    "torch.linalg.svdvals(m.weight.detach()))",
    "spectral_norm_eval_and_dims": "c = nn.Conv1d(2, 4, 3, device='cpu').to(dev)\n"
    "PZ.spectral_norm(c, n_power_iterations=3, dim=-1)\nc.eval()\n"
    "u = c.parametrizations.weight[0]._u.clone(); w = c.weight\n"
    "out = (c.parametrizations.weight[0].dim, torch.equal(u, c.parametrizations.weight[0]._u), "
    "w.detach())",
    "spectral_norm_vector": "PZ.spectral_norm(m, 'bias'); out = (m.bias.detach(), names(m))",
    "spectral_norm_state_dict": "PZ.spectral_norm(m.cpu()).to(dev)\nsd = m.state_dict()\n"
    "m2 = PZ.spectral_norm(nn.Linear(3, 3, device='cpu')).to(dev); r = m2.load_state_dict(sd)\n"
    "out = (list(sd), repr(r), m2.parametrizations.weight[0]._u)",
    # ---- errors ----
    "err_no_tensor": "out = P.register_parametrization(m, 'nothing', Sym())",
    "err_shape": "class Row(nn.Module):\n    def forward(self, X):\n        return X[0]\n"
    "out = P.register_parametrization(m, 'weight', Row())",
    "err_dtype": "class Half(nn.Module):\n    def forward(self, X):\n        return X.double()\n"
    "out = P.register_parametrization(m, 'weight', Half())",
    "err_chain_shape": "class Row(nn.Module):\n    def forward(self, X):\n        return X[0]\n"
    "P.register_parametrization(m, 'weight', Sym())\n"
    "out = P.register_parametrization(m, 'weight', Row())",
    "err_not_tensor": "class Bad(nn.Module):\n    def forward(self, X):\n        return 1\n"
    "out = P.register_parametrization(m, 'weight', Bad())",
    "err_right_inverse_missing": "P.register_parametrization(m, 'weight', Double())\n"
    "m.weight = torch.ones(3, 3)\nout = m.weight",
    "err_remove_unparametrized": "out = P.remove_parametrizations(nn.ReLU(), 'weight')",
    "err_remove_sequence_not_leave": "P.register_parametrization(m, 'weight', Split())\n"
    "out = P.remove_parametrizations(m, 'weight', leave_parametrized=False)",
    "err_empty_list": "out = P.ParametrizationList([], torch.ones(2))",
    "err_pickle": "import pickle\nP.register_parametrization(m, 'weight', Sym())\n"
    "out = pickle.dumps(m)",
    "err_spectral_norm_dim": "out = PZ.spectral_norm(m, dim=2)",
    "err_spectral_norm_iterations": "out = PZ.spectral_norm(m, n_power_iterations=0)",
    "err_spectral_norm_missing": "out = PZ.spectral_norm(nn.ReLU())",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_nn_parametrize(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], rtol=1e-4, atol=1e-5)
