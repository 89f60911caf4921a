"""Conformance of torch.func.functional_call / stack_module_state and the deprecated
nn.utils.stateless.functional_call against torch 2.13: the swapped-in tensors are used and the
originals come back (after an error too), tied weights, strict keys, buffers updated in the
call, gradients to the given tensors, and the errors."""

from __future__ import annotations

import pytest

from .harness import check

# data and weights from the CPU generator (device='cpu'), moved to the harness's device: on
# the emulated CUDA device they would draw from its generator, and torch's from the CPU one
PRE = (
    "import warnings\nnn = torch.nn\nfc = torch.func.functional_call\n"
    "dev = torch.empty(0).device\n"
    "def cpu_randn(*s, **k):\n    return torch.randn(*s, device='cpu', **k).to(dev)\n"
    "m = nn.Linear(3, 2, device='cpu').to(dev)\nx = cpu_randn(4, 3)\n"
)

PROGRAMS = {
    "basic": "w = cpu_randn(2, 3).requires_grad_(); b = torch.zeros(2)\n"
    "y = fc(m, {'weight': w, 'bias': b}, (x,)); y.sum().backward()\n"
    "out = (y.detach(), w.grad, m.weight.grad, type(m.weight).__name__, "
    "torch.equal(m(x), x @ m.weight.t() + m.bias))",
    "partial_and_single_arg": "y = fc(m, {'bias': torch.ones(2)}, x)\n"
    "out = (y.detach(), (y - x @ m.weight.t()).detach())",
    "kwargs": "class K(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
    "        self.s = nn.Parameter(torch.ones(1))\n"
    "    def forward(self, a, scale=1.0):\n        return a * self.s * scale\n"
    "k = K().to(dev)\nout = fc(k, {'s': torch.full((1,), 3.0)}, (torch.ones(2),), "
    "{'scale': 2.0})",
    "list_of_dicts": "out = fc(m, ({'weight': torch.ones(2, 3)}, {'bias': torch.zeros(2)}), "
    "(x,)).detach()",
    "nested_and_buffers": "s = nn.Sequential(nn.Linear(3, 3, device='cpu'), "
    "nn.BatchNorm1d(3)).to(dev)\n"
    "rm = torch.zeros(3)\n"
    "y = fc(s, {'1.running_mean': rm, '0.bias': torch.ones(3)}, (x,))\n"
    "out = (y.detach(), rm, s[1].running_mean, s[0].bias.detach())",
    "tied": "class T(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
    "        self.a = nn.Linear(2, 2, bias=False, device='cpu'); self.b = nn.Linear(2, 2, "
    "bias=False, device='cpu')\n"
    "        self.b.weight = self.a.weight\n"
    "    def forward(self, z):\n        return self.b(self.a(z))\n"
    "t = T().to(dev); z = torch.ones(1, 2); e = torch.eye(2) * 2\n"
    "out = (fc(t, {'a.weight': e}, (z,)), fc(t, {'a.weight': e}, (z,), tie_weights=False))",
    "strict_ok": "out = fc(m, dict(m.named_parameters()), (x,), strict=True).detach()",
    "restored_after_error": "w0 = m.weight\ntry:\n"
    "    fc(m, {'weight': torch.ones(5, 5)}, (x,))\nexcept RuntimeError as e:\n"
    "    msg = str(e)\nout = (m.weight is w0, msg)",
    "stack_module_state": "ms = [nn.Linear(2, 2).to(dev) for _ in range(3)]\n"
    "p, b = torch.func.stack_module_state(ms)\n"
    "out = (list(p), p['weight'].shape, p['weight'].requires_grad, p['weight'].is_leaf, b)",
    "stateless_deprecated": "with warnings.catch_warnings(record=True) as ws:\n"
    "    warnings.simplefilter('always')\n"
    "    y = torch.nn.utils.stateless.functional_call(m, {'bias': torch.zeros(2)}, x)\n"
    "out = (y.detach(), [c.category.__name__ for c in ws])",
    # ---- errors ----
    "err_strict": "out = fc(m, {'weight': torch.ones(2, 3), 'extra': torch.ones(1)}, (x,), "
    "strict=True)",
    "err_repeated_keys": "out = fc(m, ({'bias': torch.ones(2)}, {'bias': torch.ones(2)}), x)",
    "err_not_dicts": "out = fc(m, [{'bias': torch.ones(2)}, 3], x)",
    "err_type": "out = fc(m, 3, x)",
    "err_tied_conflict": "class T(nn.Module):\n    def __init__(self):\n"
    "        super().__init__()\n        self.a = nn.Linear(2, 2); self.b = self.a\n"
    "    def forward(self, z):\n        return self.a(z)\n"
    "out = fc(T(), {'a.bias': torch.ones(2), 'b.bias': torch.zeros(2)}, torch.ones(2))",
    "err_not_tensor": "out = fc(m, {'weight': 3}, x)",
    "err_stack_empty": "out = torch.func.stack_module_state([])",
    "err_stack_modes": "out = torch.func.stack_module_state([nn.Linear(1, 1), "
    "nn.Linear(1, 1).eval()])",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_functional_call(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], rtol=1e-5, atol=1e-6)
