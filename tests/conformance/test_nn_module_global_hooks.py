"""Conformance of the global nn.Module hooks (torch.nn.modules.module's register_module_*
functions, module_global_hooks.py) against torch 2.13: they run for every module, before the
module's own hooks, in containers too; the registration hooks may replace what is registered;
the global backward hooks are full or legacy, never both. Each test leaves both libraries'
global hook state as it found it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import tensortrace.nn.modules.module_global_hooks as ours

from .harness import check, torch

_DICTS = [name for name in vars(ours) if name.startswith("_global_") and name.endswith("s")]


@pytest.fixture(autouse=True)
def _clean_global_hooks() -> Iterator[None]:
    yield
    import torch.nn.modules.module as theirs

    for lib in (ours, theirs):
        for name in _DICTS:
            getattr(lib, name).clear()
        lib._global_is_full_backward_hook = None


PRE = (
    "import warnings\nnn = torch.nn\nG = torch.nn.modules.module\n"
    "dev = torch.empty(0).device\n"
    "x = torch.randn(4, 3, device='cpu').to(dev).requires_grad_()\nlog = []\n"
    "def grads(gs):\n    return [None if g is None else g.detach().clone() for g in gs]\n"
    "s = nn.Sequential(nn.Linear(3, 4, device='cpu'), nn.ReLU(), nn.Linear(4, 2, "
    "device='cpu')).to(dev)\n"
)

PROGRAMS = {
    "forward_pre_and_forward": "h1 = G.register_module_forward_pre_hook(lambda m, a: "
    "log.append(('pre', type(m).__name__, tuple(a[0].shape))))\n"
    "h2 = G.register_module_forward_hook(lambda m, a, r: log.append(('fwd', type(m).__name__)))\n"
    "s[0].register_forward_hook(lambda m, a, r: log.append('own'))\n"
    "y = s(x); h1.remove(); h2.remove(); s(x)\n"
    "out = (log, y, len(G._global_forward_hooks), len(G._global_forward_pre_hooks))",
    "global_pre_hook_replaces_args": "h = G.register_module_forward_pre_hook(lambda m, a: "
    "(a[0] * 2,) if isinstance(m, nn.Linear) else None)\nout = s(x)",
    "forward_hook_with_kwargs": "class K(nn.Module):\n"
    "    def forward(self, a, scale=1.0):\n        return a * scale\n"
    "G.register_module_forward_hook(lambda m, a, k, r: r + k.get('scale', 0), with_kwargs=True)\n"
    "out = (K()(x, scale=3.0), K()(x))",
    "forward_hook_always_call": "class Bad(nn.Module):\n    def forward(self, a):\n"
    "        raise ValueError('boom')\n"
    "h = G.register_module_forward_hook(lambda m, a, r: log.append(('always', r)), "
    "always_call=True)\n"
    "try:\n    Bad()(x)\nexcept ValueError as e:\n    log.append(str(e))\n"
    "h.remove(); out = (log, len(G._global_forward_hooks_always_called))",
    "full_backward_hooks_on_sequential": "G.register_module_full_backward_hook(lambda m, gi, go: "
    "log.append(('full', type(m).__name__, grads(gi), grads(go))))\n"
    "G.register_module_full_backward_pre_hook(lambda m, go: "
    "log.append(('pre', type(m).__name__, grads(go))))\n"
    "s[2].register_full_backward_hook(lambda m, gi, go: log.append('own'))\n"
    "s(x).sum().backward(); out = (log, x.grad)",
    "global_pre_hook_replaces_grad_output": "G.register_module_full_backward_pre_hook("
    "lambda m, go: (go[0] * 2,))\ns(x).sum().backward(); out = x.grad",
    "legacy_global_hook": "G.register_module_backward_hook(lambda m, gi, go: "
    "log.append((type(m).__name__, len(gi), grads(go))))\n"
    "with warnings.catch_warnings(record=True) as w:\n    warnings.simplefilter('always')\n"
    "    y = s(x)\ny.sum().backward()\n"
    "out = (log, sorted({str(c.message) for c in w}), x.grad)",
    "parameter_registration_hook": "def hook(m, name, p):\n"
    "    log.append((type(m).__name__, name, tuple(p.shape) if p is not None else None))\n"
    "    return nn.Parameter(torch.zeros(p.shape)) if name == 'bias' else None\n"
    "h = G.register_module_parameter_registration_hook(hook)\n"
    "l = nn.Linear(3, 2); l.extra = nn.Parameter(torch.ones(1)); l.register_parameter('n', None)\n"
    "h.remove(); nn.Linear(2, 2); out = (log, l.extra, l.bias.shape)",
    "buffer_registration_hook": "def hook(m, name, b):\n"
    "    log.append((type(m).__name__, name, None if b is None else tuple(b.shape)))\n"
    "    return b * 0 + 7 if name == 'running_mean' else None\n"
    "h = G.register_module_buffer_registration_hook(hook)\n"
    "bn = nn.BatchNorm1d(3).to(dev); bn.running_var = torch.full((3,), 2.0)\n"
    "m = nn.Module(); m.register_buffer('a', torch.ones(2), persistent=False); m.a = None\n"
    "out = (log, bn.running_mean, bn.running_var, list(m.state_dict()))",
    "module_registration_hook": "def hook(m, name, sub):\n"
    "    log.append((type(m).__name__, name, type(sub).__name__))\n"
    "    return nn.Tanh() if isinstance(sub, nn.ReLU) else None\n"
    "h = G.register_module_module_registration_hook(hook)\n"
    "q = nn.Sequential(nn.Linear(3, 3), nn.ReLU()); q.extra = nn.ReLU(); q.extra = None\n"
    "q.add_module('more', nn.Identity()); h.remove(); q.last = nn.ReLU()\n"
    "out = (log, repr(q))",
    # ---- errors ----
    "err_full_then_legacy": "G.register_module_full_backward_hook(lambda *a: None)\n"
    "G.register_module_backward_hook(lambda *a: None)",
    "err_legacy_then_full": "G.register_module_backward_hook(lambda *a: None)\n"
    "G.register_module_full_backward_hook(lambda *a: None)",
    "err_global_full_hook_returns_too_many": "G.register_module_full_backward_hook("
    "lambda m, gi, go: (gi[0], gi[0]))\ns(x).sum().backward()",
    "err_inplace_on_output": "G.register_module_full_backward_pre_hook(lambda m, go: None)\n"
    "y = s(x); y.add_(1)",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_nn_module_global_hooks(name: str) -> None:
    assert torch is not None
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], rtol=1e-5, atol=1e-6)
