"""Conformance of nn.Module's backward hooks (module_backward_hooks.py, torch.utils.hooks'
BackwardHook) against torch 2.13: the grad_input / grad_output the hooks see (None for each
non-tensor or gradient-free argument), replacing them, prepend and handle.remove(), the order
against Tensor.register_hook / retain_grad / post-accumulate-grad hooks, Sequential
containers, several inputs and outputs, kwargs, the deprecated register_backward_hook with its
warnings, and the errors (mixing full and legacy hooks, wrong counts, in-place on an output)."""

from __future__ import annotations

import pytest

from .harness import check

# the data and the weights from the CPU generator, moved to the harness's device
PRE = (
    "import warnings\nnn = torch.nn\ndev = torch.empty(0).device\n"
    "x = torch.randn(4, 3, device='cpu').to(dev).requires_grad_()\n"
    "m = nn.Linear(3, 2, device='cpu').to(dev)\nlog = []\n"
    "def grads(gs):\n    return [None if g is None else g.detach().clone() for g in gs]\n"
    "def full(tag):\n    def hook(mod, gi, go):\n"
    "        log.append((tag, type(mod).__name__, grads(gi), grads(go)))\n    return hook\n"
    "def pre(tag):\n    def hook(mod, go):\n"
    "        log.append((tag, type(mod).__name__, grads(go)))\n    return hook\n"
    # a module with two tensor inputs, a non-tensor input, a kwarg and three outputs
    "class Two(nn.Module):\n"
    "    def forward(self, a, n, b, scale=1.0):\n"
    "        return a * b * scale, n, (a + b) * n\n"
)

PROGRAMS = {
    "full_hook_linear": "m.register_full_backward_hook(full('full'))\n"
    "m.register_full_backward_pre_hook(pre('pre'))\n"
    "y = m(x); y.sum().backward(); out = (log, x.grad, m.weight.grad, y.grad_fn.name())",
    "pre_hook_replaces_grad_output": "m.register_full_backward_pre_hook(lambda mod, go: "
    "(go[0] * 3,))\nm.register_full_backward_hook(full('full'))\n"
    "(m(x) * 2).sum().backward(); out = (log, x.grad, m.weight.grad)",
    "hook_replaces_grad_input": "m.register_full_backward_hook(lambda mod, gi, go: "
    "(gi[0] + 1,))\nm.register_full_backward_hook(full('second'))\n"
    "m(x).sum().backward(); out = (log, x.grad)",
    "prepend_and_remove": "h1 = m.register_full_backward_hook(full('a'))\n"
    "m.register_full_backward_hook(full('b'), prepend=True)\n"
    "m.register_full_backward_pre_hook(pre('c'))\n"
    "h4 = m.register_full_backward_pre_hook(pre('d'), prepend=True)\n"
    "m(x).sum().backward(); first = [e[0] for e in log]; log.clear()\n"
    "h1.remove(); h4.remove(); m(x).sum().backward()\n"
    "out = (first, [e[0] for e in log], len(m._backward_hooks), len(m._backward_pre_hooks))",
    "order_with_tensor_hooks": "m.register_full_backward_hook(lambda *a: log.append('full'))\n"
    "m.register_full_backward_pre_hook(lambda *a: log.append('pre'))\n"
    "m.weight.register_post_accumulate_grad_hook(lambda p: log.append('weight_acc'))\n"
    "x.register_post_accumulate_grad_hook(lambda t: log.append(('x_acc', t.grad.clone())))\n"
    "x.register_hook(lambda g: log.append('x_hook'))\n"
    "y = m(x); y.retain_grad()\ny.register_hook(lambda g: log.append(('y_hook', g.clone())))\n"
    "z = (y * y).sum(); z.backward(); out = (log, y.grad, x.grad)",
    "sequential": "s = nn.Sequential(nn.Linear(3, 4, device='cpu'), nn.ReLU(), nn.Linear(4, 2, "
    "device='cpu')).to(dev)\n"
    "for i, c in enumerate([s, *s]):\n"
    "    c.register_full_backward_hook(full(f'full{i}'))\n"
    "    c.register_full_backward_pre_hook(pre(f'pre{i}'))\n"
    "s(x).sum().backward(); out = (log, x.grad)",
    "several_inputs_outputs": "t = Two(); t.register_full_backward_hook(full('full'))\n"
    "t.register_full_backward_pre_hook(pre('pre'))\n"
    "b = torch.randn(4, 3, device='cpu').to(dev).requires_grad_()\n"
    "p, n, q = t(x, 2, b, scale=0.5); (p.sum() + q.sum() * 3).backward()\n"
    "out = (log, n, x.grad, b.grad)",
    "unused_output_and_input_without_grad": "t = Two(); t.register_full_backward_hook(full('f'))\n"
    "b = torch.randn(4, 3, device='cpu').to(dev)\n"
    "p, n, q = t(x, 3, b); q.sum().backward(); out = (log, x.grad)",
    "kwarg_tensor_gets_no_grad_input": "t = Two(); t.register_full_backward_hook(full('f'))\n"
    "s = torch.full((1,), 2.0, device=dev, requires_grad=True)\n"
    "p, n, q = t(x, 1, torch.ones(4, 3, device=dev), scale=s); p.sum().backward()\n"
    "out = (log, x.grad, s.grad)",
    "no_input_requires_grad": "m.register_full_backward_hook(full('f'))\n"
    "with warnings.catch_warnings(record=True) as w:\n    warnings.simplefilter('always')\n"
    "    m(x.detach()).sum().backward()\n"
    "out = (log, [(c.category.__name__, str(c.message)) for c in w], m.bias.grad)",
    "pre_hook_when_no_input_requires_grad": "m.register_full_backward_pre_hook(pre('p'))\n"
    "with warnings.catch_warnings(record=True) as w:\n    warnings.simplefilter('always')\n"
    "    m(x.detach()).sum().backward()\nout = (log, len(w), m.weight.grad)",
    "hooks_skipped_under_no_grad": "m.register_full_backward_hook(full('f'))\n"
    "with torch.no_grad():\n    y = m(x)\nout = (log, y.requires_grad, y.grad_fn)",
    "forward_hook_result_then_backward_hook": "m.register_forward_hook(lambda mod, a, r: r * 2)\n"
    "m.register_full_backward_hook(full('f'))\nm(x).sum().backward(); out = (log, x.grad)",
    "legacy_hook_linear": "m.register_backward_hook(full('legacy'))\n"
    "with warnings.catch_warnings(record=True) as w:\n    warnings.simplefilter('always')\n"
    "    y = m(x)\ny.sum().backward()\n"
    "out = (log, [(c.category.__name__, str(c.message)) for c in w], x.grad)",
    "legacy_hook_single_node": "r = nn.ReLU(); r.register_backward_hook(full('legacy'))\n"
    "with warnings.catch_warnings(record=True) as w:\n    warnings.simplefilter('always')\n"
    "    r(x).sum().backward()\nout = (log, len(w), x.grad)",
    "legacy_hook_non_tensor_output": "t = Two(); t.register_backward_hook(full('legacy'))\n"
    "with warnings.catch_warnings(record=True) as w:\n    warnings.simplefilter('always')\n"
    "    p, n, q = t(x, 2, x)\n(p.sum() + q.sum()).backward()\n"
    "out = (log, [(c.category.__name__, str(c.message)) for c in w], x.grad)",
    "backward_hook_module_output_not_tensor": "class D(nn.Module):\n"
    "    def forward(self, a):\n        return {'y': a * 2}\nd = D()\n"
    "d.register_full_backward_hook(full('f'))\n"
    "with warnings.catch_warnings(record=True) as w:\n    warnings.simplefilter('always')\n"
    "    r = d(x)\nr['y'].sum().backward()\n"
    "out = (log, [(c.category.__name__, str(c.message)) for c in w], x.grad)",
    "double_backward_skips_input_hook": "class Cube(nn.Module):\n"
    "    def forward(self, a):\n        return a * a * a\n"
    "c = Cube(); c.register_full_backward_hook(full('f'))\n"
    "(g,) = torch.autograd.grad(c(x).sum(), x, create_graph=True); log.append('first')\n"
    "g.sum().backward(); out = (log, x.grad)",
    "retain_graph_runs_hooks_twice": "m.register_full_backward_hook(full('f'))\n"
    "y = m(x); y.sum().backward(retain_graph=True); (y * 2).sum().backward(); out = (log, x.grad)",
    "module_called_twice": "r = nn.Tanh(); r.register_full_backward_hook(full('f'))\n"
    "r.register_full_backward_pre_hook(pre('p'))\nr(r(x)).sum().backward(); out = (log, x.grad)",
    "grad_of_output_only": "m.register_full_backward_hook(full('f'))\n"
    "m.register_full_backward_pre_hook(pre('p'))\ny = m(x)\n"
    "out = (torch.autograd.grad(y.sum(), y), log)",
    "legacy_hook_dict_output": "class D(nn.Module):\n"
    "    def forward(self, a):\n        return {'n': 1, 'y': a.exp()}\nd = D()\n"
    "d.register_backward_hook(full('legacy'))\n"
    "with warnings.catch_warnings(record=True) as w:\n    warnings.simplefilter('always')\n"
    "    r = d(x)\nr['y'].sum().backward()\n"
    "out = (log, [(c.category.__name__, str(c.message)) for c in w], x.grad)",
    "utils_hooks_backward_hook_by_hand": "bh = torch.utils.hooks.BackwardHook(m, [full('f')], "
    "[pre('p')])\nargs = bh.setup_input_hook((x, 'tag'))\n"
    "y = bh.setup_output_hook(m(args[0]))\ny.sum().backward()\n"
    "out = (args[1], bh.n_inputs, bh.input_tensors_index, log, x.grad)",
    # ---- errors ----
    "err_full_then_legacy": "m.register_full_backward_hook(full('f'))\n"
    "m.register_backward_hook(full('l'))",
    "err_legacy_then_full": "m.register_backward_hook(full('l'))\n"
    "m.register_full_backward_hook(full('f'))",
    "err_hook_returns_too_many": "m.register_full_backward_hook(lambda mod, gi, go: "
    "(gi[0], gi[0]))\nm(x).sum().backward()",
    "err_pre_hook_returns_too_many": "m.register_full_backward_pre_hook(lambda mod, go: "
    "(go[0], go[0]))\nm(x).sum().backward()",
    "err_no_input_grad_hook_returns": "m.register_full_backward_hook(lambda mod, gi, go: "
    "(torch.ones(1),))\nwith warnings.catch_warnings():\n    warnings.simplefilter('ignore')\n"
    "    m(x.detach()).sum().backward()",
    "err_inplace_on_output": "m.register_full_backward_hook(full('f'))\ny = m(x); y.add_(1)",
    "err_inplace_on_view_of_output": "m.register_full_backward_pre_hook(pre('p'))\n"
    "y = m(x); y[0].mul_(2)",
    "err_inplace_on_one_of_several_outputs": "t = Two(); t.register_full_backward_hook(full('f'))\n"
    "class Id(nn.Module):\n    def forward(self, a, b):\n        return a, b\n"
    "i = Id(); i.register_full_backward_hook(full('f'))\n"
    "a, b = i(x.clone(), x.clone()); b.relu_()",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_nn_module_backward_hooks(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], rtol=1e-5, atol=1e-6)
