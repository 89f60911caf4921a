"""torch.autograd.Function against torch 2.13: custom forward and backward, program by program.

Each program defines Functions the way PyTorch's tutorials and docs do (save_for_backward,
needs_input_grad, mark_dirty, mark_non_differentiable, set_materialize_grads, setup_context,
once_differentiable, non-tensor arguments and outputs) and leaves in `out` what is compared:
gradients, the grad_fn graph (class names, name() and next_functions), flags, or the error.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "conformance"))
from harness import check  # noqa: E402

PRELUDE = """
def graph(t):
    def walk(fn):
        if fn is None:
            return None
        return (type(fn).__name__, fn.name(),
                tuple((walk(f), n) for f, n in fn.next_functions))
    return walk(t.grad_fn)
def leaf(*shape, dtype=None):
    return torch.rand(*shape, dtype=dtype).requires_grad_()
class Legendre3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)
    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)
class MulConst(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        return x * k
    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        result = x.exp()
        ctx.save_for_backward(result)
        return result
    @staticmethod
    def backward(ctx, g):
        result, = ctx.saved_tensors
        return g * result
"""

PROGRAMS: dict[str, str] = {
    # ---- the tutorials' Functions ----
    "legendre_grad": "x = leaf(5); Legendre3.apply(x).sum().backward(); out = x.grad",
    "legendre_graph": "x = leaf(5); y = Legendre3.apply(x * 2); out = graph(y.sum())",
    "legendre_in_training": "a = torch.full((), 0.0, requires_grad=True); "
    "b = torch.full((), -1.0, requires_grad=True); x = torch.linspace(-3, 3, 50); "
    "y = torch.sin(x)\n"
    "for t in range(20):\n"
    "    loss = (a + b * Legendre3.apply(0.3 * x) - y).pow(2).sum()\n"
    "    loss.backward()\n"
    "    with torch.no_grad():\n"
    "        a -= 1e-3 * a.grad; b -= 1e-3 * b.grad; a.grad = None; b.grad = None\n"
    "out = (a, b, loss)",
    "saved_output": "x = leaf(4); y = Exp.apply(x); (y * 2).sum().backward(); "
    "out = (x.grad, y.requires_grad, y.is_leaf)",
    "non_tensor_argument": "x = leaf(3); MulConst.apply(x, 4.0).sum().backward(); out = x.grad",
    "two_inputs": "class Mul(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, a, b):\n"
    "        ctx.save_for_backward(a, b)\n"
    "        return a * b\n"
    "    @staticmethod\n"
    "    def backward(ctx, g):\n"
    "        a, b = ctx.saved_tensors\n"
    "        return g * b, g * a\n"
    "a, b = leaf(2, 3), leaf(3); Mul.apply(a, b).sum().backward(); out = (a.grad, b.grad)",
    "needs_input_grad": "seen = []\n"
    "class F(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, a, b, k):\n"
    "        seen.append(ctx.needs_input_grad)\n"
    "        return a + b\n"
    "    @staticmethod\n"
    "    def backward(ctx, g):\n"
    "        seen.append(ctx.needs_input_grad)\n"
    "        return (g if ctx.needs_input_grad[0] else None), "
    "(g if ctx.needs_input_grad[1] else None), None\n"
    "a = leaf(3); b = torch.ones(3); F.apply(a, b, 2).sum().backward(); out = (seen, a.grad)",
    "two_outputs": "class Split(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x):\n"
    "        return x * 2, x * 3\n"
    "    @staticmethod\n"
    "    def backward(ctx, g1, g2):\n"
    "        return g1 * 2 + g2 * 3\n"
    "x = leaf(3); p, q = Split.apply(x); (p * q).sum().backward(); "
    "out = (x.grad, p.grad_fn is q.grad_fn, graph(p))",
    "materialized_zero_grad": "got = []\n"
    "class Split(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x):\n"
    "        return x * 2, x * 3\n"
    "    @staticmethod\n"
    "    def backward(ctx, g1, g2):\n"
    "        got.append(g2)\n"
    "        return g1 * 2 + g2 * 3\n"
    "x = leaf(3); p, q = Split.apply(x); p.sum().backward(); out = (x.grad, got)",
    "set_materialize_grads_false": "got = []\n"
    "class Split(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x):\n"
    "        ctx.set_materialize_grads(False)\n"
    "        return x * 2, x * 3\n"
    "    @staticmethod\n"
    "    def backward(ctx, g1, g2):\n"
    "        got.append(g2)\n"
    "        return g1 * 2\n"
    "x = leaf(3); p, q = Split.apply(x); p.sum().backward(); out = (x.grad, got)",
    "non_tensor_output": "class F(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x):\n"
    "        return x * 2, 'label', 7\n"
    "    @staticmethod\n"
    "    def backward(ctx, g, g_label, g_seven):\n"
    "        return g * 2 if g_label is None and g_seven is None else None\n"
    "x = leaf(3); y, s, n = F.apply(x); y.sum().backward(); out = (x.grad, s, n)",
    "mark_non_differentiable": "class Sort(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x):\n"
    "        values, idx = x.sort()\n"
    "        ctx.mark_non_differentiable(idx)\n"
    "        ctx.save_for_backward(idx)\n"
    "        return values, idx\n"
    "    @staticmethod\n"
    "    def backward(ctx, g, g_idx):\n"
    "        idx, = ctx.saved_tensors\n"
    "        return torch.zeros_like(g).scatter(0, idx, g)\n"
    "x = leaf(5); v, i = Sort.apply(x); (v * torch.arange(5.)).sum().backward(); "
    "out = (x.grad, i.requires_grad, v.requires_grad, i.grad_fn is None)",
    "non_differentiable_float_output": "class F(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x):\n"
    "        m = x.max()\n"
    "        ctx.mark_non_differentiable(m)\n"
    "        return x * 2, m\n"
    "    @staticmethod\n"
    "    def backward(ctx, g, gm):\n"
    "        return g * 2 + gm\n"
    "x = leaf(3); y, m = F.apply(x); (y.sum() + m * 0).sum(); y.sum().backward(); "
    "out = (x.grad, m.requires_grad)",
    "integer_output_not_differentiable": "class F(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x):\n"
    "        return x * 2, x.argmax()\n"
    "    @staticmethod\n"
    "    def backward(ctx, g, gi):\n"
    "        return g * 2\n"
    "x = leaf(3); y, i = F.apply(x); y.sum().backward(); out = (x.grad, i.requires_grad)",
    "return_input_as_is": "class Id(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x):\n"
    "        return x\n"
    "    @staticmethod\n"
    "    def backward(ctx, g):\n"
    "        return g * 3\n"
    "x = leaf(3); y = Id.apply(x); y.sum().backward(); "
    "out = (x.grad, y is x, y._is_view(), x.is_leaf, graph(y))",
    "mark_dirty": "class AddOne_(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x):\n"
    "        x.add_(1)\n"
    "        ctx.mark_dirty(x)\n"
    "        return x\n"
    "    @staticmethod\n"
    "    def backward(ctx, g):\n"
    "        return g\n"
    "a = leaf(3); x = a * 2; y = AddOne_.apply(x); (y * y).sum().backward(); "
    "out = (a.grad, y is x, graph(y), x._version)",
    "setup_context": "class Mul(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(x, k=3.0):\n"
    "        return x * k\n"
    "    @staticmethod\n"
    "    def setup_context(ctx, inputs, output):\n"
    "        x, k = inputs\n"
    "        ctx.k = k\n"
    "    @staticmethod\n"
    "    def backward(ctx, g):\n"
    "        return g * ctx.k, None\n"
    "x = leaf(3); Mul.apply(x).sum().backward(); a = x.grad.clone(); x.grad = None; "
    "Mul.apply(x, k=5.0).sum().backward(); out = (a, x.grad)",
    "no_grad_inputs": "y = Legendre3.apply(torch.rand(3)); out = (y.requires_grad, y.grad_fn, y)",
    "under_no_grad": "x = leaf(3)\nwith torch.no_grad():\n    y = Legendre3.apply(x)\n"
    "out = (y.requires_grad, y.grad_fn)",
    "double_backward": "x = leaf(4); y = Legendre3.apply(x); "
    "g, = torch.autograd.grad(y.sum(), x, create_graph=True); g.sum().backward(); "
    "out = (g, x.grad)",
    "ctx_is_grad_fn": "x = leaf(3); y = Legendre3.apply(x); ctx = y.grad_fn; "
    "out = (type(ctx).__name__, ctx.name(), ctx.needs_input_grad, "
    "len(ctx.saved_tensors), ctx.saved_tensors[0] is x)",
    "hooks_on_ctx": "seen = []; x = leaf(3); y = Legendre3.apply(x); "
    "y.grad_fn.register_hook(lambda gi, go: seen.append((gi[0].shape, go[0].shape))); "
    "y.sum().backward(); out = seen",
    "once_differentiable": "once_differentiable = torch.autograd.function.once_differentiable\n"
    "class F(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x):\n"
    "        return x * 2\n"
    "    @staticmethod\n"
    "    @once_differentiable\n"
    "    def backward(ctx, g):\n"
    "        return g * 2\n"
    "x = leaf(3); v = torch.ones(3, requires_grad=True); "
    "g, = torch.autograd.grad(F.apply(x), x, v, create_graph=True); out = (g, graph(g))",
    "keyword_arguments": "seen = []\n"
    "class F(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x, k=2.0):\n"
    "        seen.append(ctx.needs_input_grad)\n"
    "        return x * k\n"
    "    @staticmethod\n"
    "    def backward(ctx, g):\n"
    "        return g * 2, None\n"
    "x = leaf(3); F.apply(x=x).sum().backward(); a = x.grad; "
    "k = torch.full((3,), 3.0, requires_grad=True); y = F.apply(x, k=k); "
    "out = (a, y, seen)",
    "function_in_module": "class Sq(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x):\n"
    "        ctx.save_for_backward(x)\n"
    "        return x * x\n"
    "    @staticmethod\n"
    "    def backward(ctx, g):\n"
    "        x, = ctx.saved_tensors\n"
    "        return 2 * x * g\n"
    "class M(torch.nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.lin = torch.nn.Linear(3, 2)\n"
    "    def forward(self, x):\n"
    "        return Sq.apply(self.lin(x))\n"
    "m = M(); m(torch.rand(4, 3)).sum().backward(); out = (m.lin.weight.grad, m.lin.bias.grad)",
}

ERRORS: dict[str, str] = {
    "wrong_gradient_count": "class F(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x, y):\n"
    "        return x + y\n"
    "    @staticmethod\n"
    "    def backward(ctx, g):\n"
    "        return g\n"
    "F.apply(leaf(2), leaf(2)).sum().backward()",
    "grad_for_non_tensor_input": "class F(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x, k):\n"
    "        return x * k\n"
    "    @staticmethod\n"
    "    def backward(ctx, g):\n"
    "        return g, g\n"
    "F.apply(leaf(2), 2.0).sum().backward()",
    "backward_returns_non_tensor": "class F(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x):\n"
    "        return x * 2\n"
    "    @staticmethod\n"
    "    def backward(ctx, g):\n"
    "        return 'grad'\n"
    "F.apply(leaf(2)).sum().backward()",
    "wrong_gradient_shape": "class F(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x):\n"
    "        return x * 2\n"
    "    @staticmethod\n"
    "    def backward(ctx, g):\n"
    "        return torch.ones(5)\n"
    "F.apply(leaf(2)).sum().backward()",
    "saved_tensors_after_backward": "x = leaf(3); y = Legendre3.apply(x); "
    "y.sum().backward(); y.grad_fn.saved_tensors",
    "backward_twice": "x = leaf(3); y = Legendre3.apply(x).sum(); y.backward(); y.backward()",
    "saved_modified_in_place": "x = leaf(3); z = x * 1; y = Legendre3.apply(z); z.add_(1); "
    "y.sum().backward()",
    "save_non_tensor": "class F(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x):\n"
    "        ctx.save_for_backward(x, 3)\n"
    "        return x * 2\n"
    "    @staticmethod\n"
    "    def backward(ctx, g):\n"
    "        return g\n"
    "F.apply(leaf(2))",
    "dirty_leaf": "class AddOne_(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x):\n"
    "        x.add_(1)\n"
    "        ctx.mark_dirty(x)\n"
    "        return x\n"
    "    @staticmethod\n"
    "    def backward(ctx, g):\n"
    "        return g\n"
    "AddOne_.apply(leaf(3))",
    "dirty_not_returned": "class F(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x):\n"
    "        x.add_(1)\n"
    "        ctx.mark_dirty(x)\n"
    "        return x * 2\n"
    "    @staticmethod\n"
    "    def backward(ctx, g):\n"
    "        return g\n"
    "F.apply(leaf(3) * 1)",
    "once_differentiable_twice": "once_differentiable = "
    "torch.autograd.function.once_differentiable\n"
    "class F(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x):\n"
    "        return x * 2\n"
    "    @staticmethod\n"
    "    @once_differentiable\n"
    "    def backward(ctx, g):\n"
    "        return g * 2\n"
    "x = leaf(3); v = torch.ones(3, requires_grad=True); "
    "g, = torch.autograd.grad(F.apply(x), x, v, create_graph=True); g.sum().backward()",
    "forward_not_implemented": "class F(torch.autograd.Function):\n    pass\nF.apply(leaf(2))",
    "backward_not_implemented": "class F(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x):\n"
    "        return x * 2\n"
    "F.apply(leaf(2)).sum().backward()",
    "instance_call": "import warnings\nwarnings.simplefilter('ignore')\nLegendre3()(leaf(2))",
}


def _program(src: str) -> str:
    return PRELUDE + src


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_custom_function(name: str) -> None:
    check(_program(PROGRAMS[name]), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_custom_function_errors(name: str) -> None:
    check(_program(ERRORS[name]))
