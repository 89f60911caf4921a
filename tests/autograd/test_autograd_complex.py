"""Autograd through complex tensors against torch 2.13: gradients (the conjugate Wirtinger
convention torch uses), grad_fn graphs and the errors of complex outputs."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "conformance"))
from harness import check  # noqa: E402

PRELUDE = """
def graph(t):
    fn = t.grad_fn if hasattr(t, "grad_fn") else t
    def walk(fn):
        if fn is None:
            return None
        return (type(fn).__name__, fn.name(),
                tuple((walk(f), n) for f, n in fn.next_functions))
    return walk(fn)
z = torch.tensor([1 + 2j, -1j, 0.5 - 0.25j], requires_grad=True)
w = torch.tensor([2 - 1j, 1 + 1j, -3 + 0j], requires_grad=True)
x = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
"""

PROGRAMS: dict[str, str] = {
    "abs_squared": "(z.abs() ** 2).sum().backward(); out = z.grad",
    "abs": "z.abs().sum().backward(); out = z.grad",
    "real_of_square": "(z * z).sum().real.backward(); out = z.grad",
    "imag_of_exp": "z.exp().imag.sum().backward(); out = z.grad",
    "mul_conj_real": "(z * z.conj()).real.sum().backward(); out = z.grad",
    "mul_two": "(z * w).real.sum().backward(); out = (z.grad, w.grad)",
    "div": "(z / w).imag.sum().backward(); out = (z.grad, w.grad)",
    "add_sub_scalar": "((z + 1j) - 2 * w).abs().sum().backward(); out = (z.grad, w.grad)",
    "real_leaf_times_complex": "(x * (1 + 1j)).real.sum().backward(); out = x.grad",
    "real_leaf_abs": "(x * 1j).abs().sum().backward(); out = x.grad",
    "complex_parts": "torch.complex(x, x * 2).abs().sum().backward(); out = x.grad",
    "polar": "r = torch.tensor([1., 2., 3.], requires_grad=True); "
    "t = torch.tensor([0.5, -1., 2.], requires_grad=True); "
    "torch.polar(r, t).real.sum().backward(); out = (r.grad, t.grad)",
    "view_as_real": "torch.view_as_real(z).sum().backward(); out = z.grad",
    "view_as_real_weighted": "(torch.view_as_real(z) * torch.tensor([1., 3.])).sum().backward(); "
    "out = z.grad",
    "view_as_complex": "p = torch.tensor([[1., 2.], [3., -1.]], requires_grad=True); "
    "torch.view_as_complex(p).abs().sum().backward(); out = p.grad",
    "angle": "z.angle().sum().backward(); out = z.grad",
    "sgn": "z.sgn().real.sum().backward(); out = z.grad",
    "transcendental": "(z.exp() + z.sin() + z.cos() + z.sqrt() + z.log() + z.reciprocal()"
    ").abs().sum().backward(); out = z.grad",
    "tanh_sigmoid": "(z.tanh() + z.sigmoid()).real.sum().backward(); out = z.grad",
    "pow": "(z ** 2 + z ** 0.5).imag.sum().backward(); out = z.grad",
    "matmul": "a = z.reshape(3, 1) * w.reshape(1, 3); (a @ a).abs().sum().backward(); "
    "out = (z.grad, w.grad)",
    "dot_vdot": "(torch.dot(z, w) + torch.vdot(z, w)).real.backward(); out = (z.grad, w.grad)",
    "sum_mean": "(z.sum() * z.mean()).imag.backward(); out = z.grad",
    "conj_graph": "out = [graph(z.conj()), graph(z.real), graph(z.abs()), graph(z * w)]",
    "imag_graph": "out = graph(z.conj().imag)",
    "requires_grad_complex": "out = [z.requires_grad, (z * 2).requires_grad, "
    "torch.zeros(2, dtype=torch.cfloat).requires_grad_().is_leaf]",
    # ---- errors ---------------------------------------------------------------------------------
    "backward_complex_scalar": "(z * w).sum().backward()\nout = None",
    "backward_complex_nonscalar": "(z * w).backward()\nout = None",
    "backward_grad_dtype_mismatch": "(z * w).backward(torch.ones(3))\nout = None",
    "backward_with_complex_grad": "(z * w).backward(torch.ones(3, dtype=torch.cfloat)); "
    "out = (z.grad, w.grad)",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_complex_autograd(name: str) -> None:
    check(PRELUDE + PROGRAMS[name], rtol=1e-6, atol=1e-7)
