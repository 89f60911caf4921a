"""torch.autograd.functional against torch 2.13: jacobian, hessian, vjp, jvp, vhp and hvp of
several functions, tuple inputs and outputs, create_graph (the results keep a graph that can be
differentiated again), strict mode's errors and the argument checks, program by program through
tests/conformance/harness.py."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "conformance"))
from harness import check  # noqa: E402

PRELUDE = """
AF = torch.autograd.functional
x = torch.randn(3, dtype=torch.float64); y = torch.randn(2, 3, dtype=torch.float64)
v3 = torch.randn(3, dtype=torch.float64); v23 = torch.randn(2, 3, dtype=torch.float64)
def cube(a):
    return (a ** 3).sum()
def mixed(a, b):
    return (a.exp() * b).sum() + (a * a).sum() * b.sum()
def pair(a, b):
    return a.sin() * b, (a + b).sum(1)
"""

PROGRAMS: dict[str, str] = {
    # ---- jacobian ----
    "jacobian_elementwise": "out = AF.jacobian(lambda a: a.exp() * a, x)",
    "jacobian_matrix": "w = torch.randn(4, 3, dtype=torch.float64); "
    "out = AF.jacobian(lambda a: w @ a.tanh(), x)",
    "jacobian_2d": "out = AF.jacobian(lambda a: a.softmax(1), y)",
    "jacobian_tuple_in_out": "out = AF.jacobian(pair, (y, y.cos()))",
    "jacobian_tuple_in": "out = AF.jacobian(lambda a, b: a * b.sum(), (x, y))",
    "jacobian_tuple_out": "out = AF.jacobian(lambda a: (a * 2, a.sum()), x)",
    "jacobian_unused_input": "out = AF.jacobian(lambda a, b: a * 2, (x, v3))",
    "jacobian_constant_output": "out = AF.jacobian(lambda a: torch.ones(2, dtype=a.dtype), x)",
    "jacobian_scalar_input": "out = AF.jacobian(lambda a: a * a, torch.tensor(3.0))",
    "jacobian_create_graph": "a = x.clone().requires_grad_(); "
    "j = AF.jacobian(lambda t: t.sin() * t, a, create_graph=True); "
    "j.sum().backward(); out = (j.detach(), j.requires_grad, a.grad)",
    "jacobian_no_create_graph": "a = x.clone().requires_grad_(); "
    "j = AF.jacobian(lambda t: t * t, a); out = (j, j.requires_grad, j.grad_fn is None)",
    "jacobian_strict_unused": "out = AF.jacobian(lambda a, b: a * 2, (x, v3), strict=True)",
    "jacobian_strict_no_grad": "out = AF.jacobian(lambda a: torch.ones(2), x, strict=True)",
    "jacobian_strict_create_graph_linear": "out = AF.jacobian(lambda a: a * 2, x, "
    "create_graph=True, strict=True)",
    "jacobian_bad_strategy": "out = AF.jacobian(cube, x, strategy='sideways')",
    "jacobian_forward_create_graph": "out = AF.jacobian(cube, x, create_graph=True, "
    "strategy='forward-mode')",
    "jacobian_forward_strict": "out = AF.jacobian(cube, x, strict=True, strategy='forward-mode')",
    "jacobian_forward_no_vectorize": "out = AF.jacobian(cube, x, strategy='forward-mode')",
    "jacobian_vectorize_strict": "out = AF.jacobian(cube, x, strict=True, vectorize=True)",
    "jacobian_vectorize": "out = AF.jacobian(lambda a: a.exp() * a.sum(), x, vectorize=True)",
    "jacobian_vectorize_tuple": "out = AF.jacobian(pair, (y, y.cos()), vectorize=True)",
    "jacobian_vectorize_unused": "out = AF.jacobian(lambda a, b: a * 2, (x, v3), vectorize=True)",
    "jacobian_vectorize_create_graph": "a = x.clone().requires_grad_(); "
    "j = AF.jacobian(lambda t: t.sin() * t, a, create_graph=True, vectorize=True); "
    "j.sum().backward(); out = (j.detach(), j.requires_grad, a.grad)",
    "hessian_vectorize": "out = AF.hessian(mixed, (x, v3), vectorize=True)",
    "grad_is_grads_batched": "a = x.clone().requires_grad_(); o = a.sin() * a.sum(); "
    "out = torch.autograd.grad(o, a, torch.eye(3, dtype=a.dtype), is_grads_batched=True)",
    "grad_is_grads_batched_two": "a = x.clone().requires_grad_(); b = y.clone().requires_grad_(); "
    "o1 = a * b; o2 = (a * a).sum(); out = torch.autograd.grad((o1, o2), (a, b), "
    "(torch.ones(4, 2, 3, dtype=a.dtype), torch.arange(4.0, dtype=a.dtype)), "
    "is_grads_batched=True)",
    "grad_is_grads_batched_bad_shape": "a = x.clone().requires_grad_(); "
    "out = torch.autograd.grad(a * 2, a, torch.ones(2, 2, dtype=a.dtype), is_grads_batched=True)",
    "jacobian_bad_input": "out = AF.jacobian(cube, [x])",
    "jacobian_bad_input_in_tuple": "out = AF.jacobian(mixed, (x, 2.0))",
    "jacobian_bad_output": "out = AF.jacobian(lambda a: [a], x)",
    # ---- hessian ----
    "hessian_cube": "out = AF.hessian(cube, x)",
    "hessian_tuple": "out = AF.hessian(mixed, (x, v3))",
    "hessian_softmax": "out = AF.hessian(lambda a: (a.softmax(1) * a.tanh()).sum(), y)",
    "hessian_create_graph": "a = x.clone().requires_grad_(); "
    "h = AF.hessian(cube, a, create_graph=True); h.sum().backward(); "
    "out = (h.detach(), a.grad)",
    "hessian_strict_linear": "out = AF.hessian(lambda a: (a * 2).sum(), x, strict=True)",
    "hessian_not_scalar": "out = AF.hessian(lambda a: a * a, x)",
    "hessian_tuple_output": "out = AF.hessian(lambda a: (cube(a),), x)",
    "hessian_bad_strategy": "out = AF.hessian(cube, x, outer_jacobian_strategy='nope')",
    # ---- vjp ----
    "vjp_vector": "out = AF.vjp(lambda a: a.sin() * a, x, v3)",
    "vjp_scalar_no_v": "out = AF.vjp(cube, x)",
    "vjp_tuple": "out = AF.vjp(pair, (y, y.cos()), (v23, torch.ones(2, dtype=torch.float64)))",
    "vjp_unused_input": "out = AF.vjp(lambda a, b: (a * a).sum(), (x, v3))",
    "vjp_create_graph": "a = x.clone().requires_grad_(); "
    "o, g = AF.vjp(lambda t: t.exp(), a, v3, create_graph=True); g.sum().backward(); "
    "out = (o.detach(), g.detach(), a.grad)",
    "vjp_v_needed": "out = AF.vjp(lambda a: a * 2, x)",
    "vjp_v_wrong_size": "out = AF.vjp(lambda a: a * 2, x, torch.ones(4))",
    "vjp_v_wrong_length": "out = AF.vjp(pair, (y, y), (v23,))",
    "vjp_v_entry_size": "out = AF.vjp(pair, (y, y), (v23, torch.ones(3)))",
    "vjp_v_single": "out = AF.vjp(lambda a: a * 2, x, (v3, v3))",
    "vjp_strict_unused": "out = AF.vjp(lambda a, b: a.sum(), (x, v3), strict=True)",
    "vjp_strict_no_grad": "out = AF.vjp(lambda a: torch.zeros(()), x, strict=True)",
    "vjp_strict_create_graph": "out = AF.vjp(lambda a: a * 2, x, v3, create_graph=True, "
    "strict=True)",
    # ---- jvp ----
    "jvp_vector": "out = AF.jvp(lambda a: a.sin() * a, x, v3)",
    "jvp_scalar_input": "out = AF.jvp(lambda a: a.exp() * 2, torch.tensor(0.5))",
    "jvp_tuple": "out = AF.jvp(pair, (y, y.cos()), (v23, v23.exp()))",
    "jvp_create_graph": "a = x.clone().requires_grad_(); "
    "o, t = AF.jvp(lambda s: s.exp() * s, a, v3, create_graph=True); t.sum().backward(); "
    "out = (o.detach(), t.detach(), a.grad)",
    "jvp_v_needed": "out = AF.jvp(lambda a: a * 2, x)",
    "jvp_v_wrong_size": "out = AF.jvp(lambda a: a * 2, x, torch.ones(2))",
    "jvp_strict_constant": "out = AF.jvp(lambda a: a.detach() * 2, x, v3, strict=True)",
    "jvp_strict_linear_ok": "out = AF.jvp(lambda a: a * 2, x, v3, strict=True)",
    # ---- vhp / hvp ----
    "vhp_cube": "out = AF.vhp(cube, x, v3)",
    "hvp_cube": "out = AF.hvp(cube, x, v3)",
    "vhp_tuple": "out = AF.vhp(mixed, (x, v3), (v3, x))",
    "hvp_tuple": "out = AF.hvp(mixed, (x, v3), (v3, x))",
    "hvp_scalar_no_v": "out = AF.hvp(lambda a: a.exp() * a, "
    "torch.tensor(0.3, dtype=torch.float64))",
    "vhp_create_graph": "a = x.clone().requires_grad_(); "
    "o, h = AF.vhp(cube, a, v3, create_graph=True); h.sum().backward(); "
    "out = (o.detach(), h.detach(), a.grad)",
    "hvp_create_graph": "a = x.clone().requires_grad_(); "
    "o, h = AF.hvp(cube, a, v3, create_graph=True); h.sum().backward(); "
    "out = (o.detach(), h.detach(), a.grad)",
    "vhp_not_single_tensor": "out = AF.vhp(lambda a: (cube(a), cube(a)), x, v3)",
    "hvp_not_single_element": "out = AF.hvp(lambda a: a * a, x, v3)",
    "vhp_strict_linear": "out = AF.vhp(lambda a: (a * 2).sum(), x, v3, strict=True)",
    "hvp_strict_linear": "out = AF.hvp(lambda a: (a * 2).sum(), x, v3, strict=True)",
    "hvp_strict_quadratic": "out = AF.hvp(lambda a: (a * a).sum(), x, v3, strict=True)",
    "vhp_v_needed": "out = AF.vhp(cube, x)",
    "hvp_v_wrong_size": "out = AF.hvp(cube, x, torch.ones(4))",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_functional(name: str) -> None:
    check(PRELUDE + PROGRAMS[name], rtol=1e-10, atol=1e-12)


def test_forward_mode_needs_forward_ad() -> None:
    """strategy="forward-mode" needs forward AD, which tensortrace lacks: a NotImplementedError."""
    import tensortrace

    AF = tensortrace.autograd.functional
    with pytest.raises(NotImplementedError, match="needs forward-mode AD"):
        AF.jacobian(lambda a: a * a, tensortrace.ones(2), vectorize=True, strategy="forward-mode")


def test_lazy_submodule() -> None:
    import tensortrace

    assert tensortrace.autograd.functional.__all__ == [
        "hessian",
        "hvp",
        "jacobian",
        "jvp",
        "vhp",
        "vjp",
    ]
