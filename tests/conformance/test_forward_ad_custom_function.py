"""Conformance of forward-mode AD through custom autograd.Functions against torch 2.13: jvp
with save_for_forward, forward seeing no tangents, mark_dirty updating the tangent in place,
a Function without jvp raising torch's error."""

from __future__ import annotations

import pytest

from .harness import check

PRE = """fwAD = torch.autograd.forward_ad
seen = []
class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        seen.append(fwAD.unpack_dual(x).tangent is None)
        ctx.save_for_forward(x)
        ctx.k = k
        return x * k
    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None
class ScaleJvp(Scale):
    @staticmethod
    def jvp(ctx, xt, kt):
        x, = ctx.saved_tensors
        seen.append(kt)
        return xt * ctx.k * x
class Double_(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.mark_dirty(x)
        return x.mul_(2)
    @staticmethod
    def jvp(ctx, xt):
        return xt.mul_(2)
class Two(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        return a + b, a * b
    @staticmethod
    def jvp(ctx, at, bt):
        return at + bt, at - bt
x = torch.randn(3); t = torch.randn(3)
"""

PROGRAMS = {
    "jvp": "with fwAD.dual_level():\n    r = ScaleJvp.apply(fwAD.make_dual(x, t), 2.0)\n"
    "    out = (tuple(fwAD.unpack_dual(r)), seen)",
    "no_tangent_input": "with fwAD.dual_level():\n    r = ScaleJvp.apply(x, 2.0)\n"
    "    out = (tuple(fwAD.unpack_dual(r)), seen)",
    "mark_dirty": "with fwAD.dual_level():\n    c = fwAD.make_dual(x.clone(), t.clone())\n"
    "    r = Double_.apply(c)\n    out = (tuple(fwAD.unpack_dual(r)), tuple(fwAD.unpack_dual(c)))",
    "two_outputs": "with fwAD.dual_level():\n"
    "    p, q = Two.apply(fwAD.make_dual(x, t), fwAD.make_dual(torch.ones(3), t))\n"
    "    out = (tuple(fwAD.unpack_dual(p)), tuple(fwAD.unpack_dual(q)))",
    "err_func_jvp_needs_setup_context": "out = torch.func.jvp(lambda a: ScaleJvp.apply(a, 3.0), "
    "(x,), (t,))",
    "func_jvp_setup_context": "class Sq(torch.autograd.Function):\n"
    "    @staticmethod\n    def forward(a):\n        return a * a\n"
    "    @staticmethod\n    def setup_context(ctx, inputs, output):\n"
    "        ctx.save_for_forward(inputs[0])\n"
    "    @staticmethod\n    def jvp(ctx, at):\n        a, = ctx.saved_tensors\n"
    "        return 2 * a * at\n"
    "out = torch.func.jvp(Sq.apply, (x,), (t,))",
    "err_no_jvp": "with fwAD.dual_level():\n    out = Scale.apply(fwAD.make_dual(x, t), 2.0)",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_forward_ad_custom_function(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], rtol=1e-5, atol=1e-6)
