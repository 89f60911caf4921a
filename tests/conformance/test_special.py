"""Conformance of torch.special against torch 2.13: the aliases of torch ops (special_erf ->
erf, special_expit -> sigmoid, special_ndtr over erf, the softmax / logsumexp / xlogy ones),
their values, dtypes, gradients (and the grad_fn they take from the op they alias), out= and
errors."""

from __future__ import annotations

import pytest

from .harness import check

X = "x = torch.randn(3, 4, requires_grad=True); "
UNARY = (
    "(torch.special.expm1, torch.special.exp2, torch.special.erf, torch.special.erfc, "
    "torch.special.expit, torch.special.sinc, torch.special.log1p, torch.special.ndtr)"
)

PROGRAMS = {
    "unary_values": X + f"out = [f(x) for f in {UNARY}]",
    "unary_grads": X + f"out = []\nfor f in {UNARY}:\n    x.grad = None\n"
    "    y = f(x)\n    (y * torch.arange(12.).reshape(3, 4)).sum().backward()\n"
    "    out += [x.grad.clone(), y.grad_fn.name()]",
    "unary_integer_inputs": f"x = torch.arange(-2, 3); out = [f(x) for f in {UNARY}]",
    "unary_double": f"x = torch.randn(5, dtype=torch.double); out = [f(x) for f in {UNARY}]",
    "unary_out": "x = torch.randn(4); outs = [torch.empty(0) for _ in range(8)]; "
    f"rs = [f(x, out=o) for f, o in zip({UNARY}, outs)]; "
    "out = outs + [r is o for r, o in zip(rs, outs)]",
    "sinc_at_zero_grad": "x = torch.tensor([0., 1., -2., 0.5], requires_grad=True); "
    "torch.special.sinc(x).sum().backward(); out = x.grad",
    "round": "x = torch.randn(3, 4) * 100; out = [torch.special.round(x), "
    "torch.special.round(x, decimals=2), torch.special.round(x, decimals=-1)]",
    "round_out": "o = torch.empty(0); r = torch.special.round(torch.tensor([1.25, 2.5]), "
    "decimals=1, out=o); out = (o, r is o)",
    "logsumexp": X + "out = [torch.special.logsumexp(x, 1), torch.special.logsumexp(x, (0, 1), "
    "keepdim=True), torch.special.logsumexp(x, [0]).grad_fn.name()]",
    "logsumexp_out": "o = torch.empty(0); x = torch.randn(3, 4); "
    "r = torch.special.logsumexp(x, 1, out=o); out = (o, r is o)",
    "softmax": X + "y = torch.special.softmax(x, 0); z = torch.special.log_softmax(x, 1, "
    "dtype=torch.double); (y * z.float()).sum().backward(); out = (y, z, x.grad, "
    "y.grad_fn.name(), torch.special.softmax(x, -1, torch.double))",
    "xlogy": "x = torch.randn(3, 4, requires_grad=True); o = torch.rand(3, 4); "
    "y = torch.special.xlogy(x, o); y.sum().backward(); out = [y, x.grad, y.grad_fn.name(), "
    "torch.special.xlogy(2, o), torch.special.xlogy(x, 3.), torch.special.xlogy(0, "
    "torch.tensor([0., float('nan')]))]",
    "xlogy_out": "o1 = torch.empty(0); o2 = torch.empty(0); x = torch.rand(3); "
    "torch.special.xlogy(x, x, out=o1); torch.special.xlogy(2, x, out=o2); out = (o1, o2)",
    # ---- errors ----
    "err_softmax_long": "out = torch.special.softmax(torch.arange(3), 0)",
    "err_logsumexp_dim": "out = torch.special.logsumexp(torch.randn(3), 1)",
    "err_round_int_out": "o = torch.empty(0, dtype=torch.long); "
    "out = torch.special.erf(torch.randn(3), out=o)",
    "err_arg": "out = torch.special.erf(torch.randn(3), 2)",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_special(name: str) -> None:
    check("torch.manual_seed(0)\n" + PROGRAMS[name], rtol=1e-5, atol=1e-6)
