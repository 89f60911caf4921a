"""Saved tensors hooks and the post-accumulate-grad hook against torch 2.13, program by program.

torch.autograd.graph.saved_tensors_hooks / save_on_cpu / disable_saved_tensors_hooks (applied by
SavedVariable as saved_variable.cpp does), Tensor.register_post_accumulate_grad_hook,
torch.autograd.graph.Node and increment_version, and a Node's own hooks (register_hook,
register_prehook). Each program runs in tensortrace and in torch (tests/conformance/harness.py)
and leaves in `out` what is compared.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "conformance"))
from harness import check  # noqa: E402

PRELUDE = """
log = []
def pack(x):
    log.append(("pack", x.requires_grad, x.is_leaf, x.grad_fn.name() if x.grad_fn else None))
    return x.detach()
def unpack(x):
    log.append(("unpack", x.requires_grad))
    return x
"""

PROGRAMS: dict[str, str] = {
    "pack_unpack": "a = torch.ones(3, requires_grad=True)\n"
    "b = torch.ones(3, requires_grad=True) * 2\n"
    "with torch.autograd.graph.saved_tensors_hooks(pack, unpack):\n"
    "    y = a * b\n"
    "    z = y.exp()\n"
    "packed = sorted(log); log.clear()\n"
    "z.sum().backward()\n"
    "out = (packed, log, a.grad)",
    "pack_gets_the_saved_tensor_itself": "a = torch.ones(3, requires_grad=True)\n"
    "b = torch.ones(3, requires_grad=True) * 2\n"
    "seen = []\n"
    "def p(x):\n"
    "    seen.append((x is a, x is b))\n"
    "    return x\n"
    "with torch.autograd.graph.saved_tensors_hooks(p, lambda x: x):\n"
    "    y = a * b\n"
    "out = sorted(seen)",
    "unpacked_saved_tensors": "a = torch.ones(3, requires_grad=True)\n"
    "b = torch.ones(3, requires_grad=True) * 2\n"
    "with torch.autograd.graph.saved_tensors_hooks(pack, unpack):\n"
    "    y = a * b\n"
    "    z = y.exp()\n"
    "r, s, o = z.grad_fn._saved_result, y.grad_fn._saved_self, y.grad_fn._saved_other\n"
    "out = ((r.requires_grad, r.is_leaf, r.grad_fn.name(), r.grad_fn is z.grad_fn),\n"
    "       (s.requires_grad, s.is_leaf, s.grad_fn, s is a),\n"
    "       (o.requires_grad, o.is_leaf, o.grad_fn is b.grad_fn), r, s, o)",
    "wrapped_number_not_packed": "a = torch.ones(3, requires_grad=True)\n"
    "with torch.autograd.graph.saved_tensors_hooks(pack, unpack):\n"
    "    y = a * 2\n"
    "    w = torch.mul(a, torch.tensor(2.0))\n"
    "out = log",
    "no_version_check_with_hooks": "x = torch.ones(2, requires_grad=True)\n"
    "with torch.autograd.graph.saved_tensors_hooks(lambda t: t.clone(), lambda t: t):\n"
    "    e = x.detach() * x\n"
    "with torch.no_grad():\n"
    "    x.mul_(3)\n"
    "e.sum().backward()\n"
    "out = x.grad",
    "pack_to_numpy_and_back": "x = torch.arange(1., 4.).requires_grad_()\n"
    "with torch.autograd.graph.saved_tensors_hooks(lambda t: t.tolist(), "
    "lambda l: torch.tensor(l)):\n"
    "    y = (x * x).sum()\n"
    "y.backward()\n"
    "out = x.grad",
    "custom_function_save_for_backward": "class Sq(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x):\n"
    "        ctx.save_for_backward(x)\n"
    "        return x * x\n"
    "    @staticmethod\n"
    "    def backward(ctx, g):\n"
    "        x, = ctx.saved_tensors\n"
    "        return 2 * x * g\n"
    "x = torch.arange(3.).requires_grad_()\n"
    "with torch.autograd.graph.saved_tensors_hooks(pack, unpack):\n"
    "    y = Sq.apply(x)\n"
    "y.sum().backward()\n"
    "out = (log, x.grad)",
    "innermost_pair_applies": "x = torch.ones(2, requires_grad=True)\n"
    "with torch.autograd.graph.saved_tensors_hooks(lambda t: ('outer', t), lambda p: p[1]):\n"
    "    with torch.autograd.graph.saved_tensors_hooks(lambda t: ('inner', t), "
    "lambda p: p[1] * 10):\n"
    "        y = (x * x).sum()\n"
    "    z = (x * x).sum()\n"
    "y.backward(); g1 = x.grad.clone(); x.grad = None; z.backward()\n"
    "out = (g1, x.grad)",
    "double_backward": "x = torch.tensor([1., 2.], requires_grad=True)\n"
    "with torch.autograd.graph.saved_tensors_hooks(pack, unpack):\n"
    "    y = (x ** 3).sum()\n"
    "g, = torch.autograd.grad(y, x, create_graph=True)\n"
    "g2, = torch.autograd.grad(g.sum(), x)\n"
    "out = (g, g2)",
    "backward_twice": "x = torch.ones(2, requires_grad=True)\n"
    "with torch.autograd.graph.saved_tensors_hooks(pack, unpack):\n"
    "    y = x.exp().sum()\n"
    "y.backward()\n"
    "y.backward()",
    "unpack_returns_no_tensor": "a = torch.ones(3, requires_grad=True)\n"
    "with torch.autograd.graph.saved_tensors_hooks(lambda x: 1, lambda x: 2):\n"
    "    y = a * a\n"
    "y.sum().backward()",
    "pack_modifies_in_place": "a = torch.ones(3, requires_grad=True)\n"
    "with torch.autograd.graph.saved_tensors_hooks(lambda x: x.add_(1), lambda x: x):\n"
    "    y = a.detach().requires_grad_() * a.detach()",
    "save_on_cpu": "c = torch.arange(3.).requires_grad_()\n"
    "with torch.autograd.graph.save_on_cpu():\n"
    "    d = c.sin() * c\n"
    "d.sum().backward()\n"
    "out = (c.grad, d.grad_fn._saved_self.device.type)",
    "disable_then_hooks": "with torch.autograd.graph.disable_saved_tensors_hooks('no hooks'):\n"
    "    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):\n"
    "        pass",
    "hooks_then_disable": "with torch.autograd.graph.saved_tensors_hooks(pack, unpack):\n"
    "    with torch.autograd.graph.disable_saved_tensors_hooks('no hooks there'):\n"
    "        pass",
    "disable_restores": "with torch.autograd.graph.disable_saved_tensors_hooks('outer'):\n"
    "    with torch.autograd.graph.disable_saved_tensors_hooks('inner'):\n"
    "        pass\n"
    "    try:\n"
    "        with torch.autograd.graph.save_on_cpu():\n"
    "            pass\n"
    "    except RuntimeError as e:\n"
    "        msg = str(e)\n"
    "x = torch.ones(2, requires_grad=True)\n"
    "with torch.autograd.graph.saved_tensors_hooks(pack, unpack):\n"
    "    y = x * x\n"
    "out = (msg, log)",
    # ---- Tensor.register_post_accumulate_grad_hook ----
    "post_accumulate_grad_hook": "a = torch.ones(3, requires_grad=True)\n"
    "seen = []\n"
    "h = a.register_post_accumulate_grad_hook(lambda t: seen.append((t is a, t.grad.clone())))\n"
    "(a * 2).sum().backward()\n"
    "(a * 3).sum().backward()\n"
    "h.remove()\n"
    "(a * 3).sum().backward()\n"
    "out = (seen, a.grad)",
    "post_accumulate_grad_hook_after_tensor_hook": "b = torch.ones(2, requires_grad=True)\n"
    "b.register_post_accumulate_grad_hook(lambda t: [t.grad.mul_(10)] and None)\n"
    "b.register_hook(lambda g: g * 2)\n"
    "(b * 1).sum().backward()\n"
    "out = b.grad",
    "post_accumulate_grad_hook_not_run_by_grad": "c = torch.ones(2, requires_grad=True)\n"
    "seen = []\n"
    "c.register_post_accumulate_grad_hook(lambda t: seen.append(1))\n"
    "g = torch.autograd.grad((c * 2).sum(), c)\n"
    "out = (seen, g)",
    "post_accumulate_grad_hook_returns_tensor": "b = torch.ones(2, requires_grad=True)\n"
    "b.register_post_accumulate_grad_hook(lambda t: t.grad * 2)\n"
    "(b * 1).sum().backward()",
    "post_accumulate_grad_hook_returns_int": "b = torch.ones(2, requires_grad=True)\n"
    "b.register_post_accumulate_grad_hook(lambda t: 5)\n"
    "(b * 1).sum().backward()",
    "post_accumulate_grad_hook_no_grad": "torch.ones(2).register_post_accumulate_grad_hook(print)",
    "post_accumulate_grad_hook_non_leaf": "b = torch.ones(2, requires_grad=True)\n"
    "(b * 2).register_post_accumulate_grad_hook(print)",
    # ---- torch.autograd.graph.Node, increment_version ----
    "graph_node_isinstance": "class F(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x):\n"
    "        return x.clone()\n"
    "    @staticmethod\n"
    "    def backward(ctx, g):\n"
    "        return g\n"
    "x = torch.ones(2, requires_grad=True)\n"
    "N = torch.autograd.graph.Node\n"
    "y = x * 2\n"
    "out = (isinstance(y.grad_fn, N), isinstance(y.grad_fn.next_functions[0][0], N),\n"
    "       isinstance(F.apply(x).grad_fn, N), isinstance(1, N), issubclass(int, N))",
    "increment_version": "x = torch.ones(2, requires_grad=True)\n"
    "z = x.exp(); v = x._version\n"
    "torch.autograd.graph.increment_version(x)\n"
    "torch.autograd.graph.increment_version([x, z])\n"
    "with torch.inference_mode():\n"
    "    i = torch.ones(2)\n"
    "torch.autograd.graph.increment_version(i)\n"
    "out = x._version - v",
    "increment_version_then_backward": "x = torch.ones(2, requires_grad=True)\n"
    "z = x.exp()\n"
    "torch.autograd.graph.increment_version(z)\n"
    "z.sum().backward()",
    # ---- a Node's hooks ----
    "node_register_hook_and_prehook": "x = torch.tensor([1., 2.], requires_grad=True)\n"
    "y = x * 3\n"
    "seen = []\n"
    "y.grad_fn.register_prehook(lambda go: (seen.append(('pre', go[0].clone())), "
    "(go[0] * 2,))[1])\n"
    "y.grad_fn.register_hook(lambda gi, go: seen.append(('post', gi[0].clone(), "
    "go[0].clone())))\n"
    "y.sum().backward()\n"
    "out = (seen, x.grad)",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_saved_tensors_hooks(name: str) -> None:
    check(PRELUDE + PROGRAMS[name], rtol=1e-6)  # exp: NumPy's and SLEEF's last bit
