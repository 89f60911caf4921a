"""Conformance of nn.Module's forward hooks and state_dict hooks (module_hooks.py) against
torch 2.13: argument / result replacement, order, removal, always_call, the metadata the
state_dict hooks see, and the errors."""

from __future__ import annotations

import pytest

from .harness import check

# the data and the weights from the CPU generator, moved to the harness's device (on the
# emulated CUDA device randn and nn.Linear would draw from the CUDA generator)
PRE = (
    "nn = torch.nn\ndev = torch.empty(0).device\n"
    "x = torch.randn(4, 3, device='cpu').to(dev)\nm = nn.Linear(3, 2, device='cpu').to(dev)\n"
    "log = []\n"
)

PROGRAMS = {
    "pre_hook_replaces_args": "h = m.register_forward_pre_hook(lambda mod, a: a[0] * 2); "
    "y = m(x); h.remove(); out = (y, m(x), len(m._forward_pre_hooks))",
    "hook_replaces_result": "m.register_forward_hook(lambda mod, a, r: r.sum()); out = m(x)",
    "order_and_prepend": "m.register_forward_pre_hook(lambda mod, a: log.append('a'))\n"
    "m.register_forward_pre_hook(lambda mod, a: log.append('b'), prepend=True)\n"
    "m.register_forward_hook(lambda mod, a, r: log.append('c'))\n"
    "m.register_forward_hook(lambda mod, a, r: log.append('d'), prepend=True)\n"
    "y = m(x); out = (log, y)",
    "with_kwargs": "class M(nn.Module):\n    def forward(self, a, scale=1.0):\n"
    "        return a * scale\nmm = M()\n"
    "mm.register_forward_pre_hook(lambda mod, a, k: (a, {'scale': 3.0}), with_kwargs=True)\n"
    "mm.register_forward_hook(lambda mod, a, k, r: r + k['scale'], with_kwargs=True)\n"
    "out = mm(torch.ones(2))",
    "always_call": "class Bad(nn.Module):\n    def forward(self, a):\n"
    "        raise ValueError('boom')\nb = Bad()\n"
    "b.register_forward_hook(lambda mod, a, r: log.append(('always', r)), always_call=True)\n"
    "b.register_forward_hook(lambda mod, a, r: log.append('never'))\n"
    "try:\n    b(x)\nexcept ValueError as e:\n    log.append(str(e))\nout = log",
    "handle_context": "with m.register_forward_hook(lambda mod, a, r: r * 0):\n"
    "    inside = m(x)\nout = (inside, m(x))",
    "state_dict_hooks": "def post(mod, sd, prefix, meta):\n"
    "    log.append((prefix, dict(meta)))\n    sd[prefix + 'extra'] = torch.ones(1)\n"
    "def pre(mod, prefix, keep_vars):\n    log.append(('pre', prefix, keep_vars))\n"
    "s = nn.Sequential(m)\nm._register_state_dict_hook(post); m.register_state_dict_pre_hook(pre)\n"
    "sd = s.state_dict(); out = (list(sd), log, dict(sd._metadata))",
    "load_hooks": "def pre(sd, prefix, meta, strict, missing, unexpected, errors):\n"
    "    log.append((prefix, dict(meta), strict))\n"
    "    sd[prefix + 'bias'] = sd[prefix + 'bias'] * 0\n"
    "def post(mod, keys):\n    log.append(('post', keys.missing_keys, keys.unexpected_keys))\n"
    "s = nn.Sequential(m)\nm._register_load_state_dict_pre_hook(pre)\n"
    "m.register_load_state_dict_post_hook(post)\n"
    "r = s.load_state_dict(s.state_dict()); out = (log, m.bias.detach(), repr(r))",
    "load_pre_hook_with_module": "m.register_load_state_dict_pre_hook(lambda mod, sd, p, *a: "
    "log.append((type(mod).__name__, p)))\nm.load_state_dict(m.state_dict()); out = log",
    # ---- errors ----
    "err_pre_hook_kwargs_result": "m.register_forward_pre_hook(lambda mod, a, k: 1, "
    "with_kwargs=True); out = m(x)",
    "err_public_post_hook_returns": "m.register_state_dict_post_hook(lambda *a: {}); "
    "out = m.state_dict()",
    "err_post_hook_returns": "m.register_load_state_dict_post_hook(lambda *a: 1); "
    "out = m.load_state_dict(m.state_dict())",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_nn_module_hooks(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], rtol=1e-5, atol=1e-6)
