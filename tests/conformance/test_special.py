"""Conformance of torch.special against torch 2.13: the aliases of torch ops (special_erf ->
erf, special_expit -> sigmoid, special_ndtr over erf, the softmax / logsumexp / xlogy ones),
their values, dtypes, gradients (and the grad_fn they take from the op they alias), out= and
errors."""

from __future__ import annotations

import pytest

from .harness import check

X = "x = torch.randn(3, 4, requires_grad=True); "
# away from the poles, where float rounding decides between huge values
GX = "x = torch.tensor([-2.5, -0.5, 0., 0.3, 1., 2., 7.5, 12., float('inf'), float('nan')]); "
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
    # ---- the gamma family, erfinv, the Bessel functions, ndtri, entr, logit, multigammaln ----
    "gamma_family": GX + "out = [torch.lgamma(x), torch.digamma(x), torch.polygamma(1, x), "
    "torch.polygamma(2, x), torch.polygamma(3, x), torch.special.gammaln(x), "
    "torch.special.psi(x), torch.special.digamma(x), torch.special.polygamma(4, x), "
    "x.lgamma(), x.digamma(), x.polygamma(0)]",
    "gamma_family_double": GX + "x = x.double(); out = [torch.lgamma(x), torch.digamma(x), "
    "torch.polygamma(1, x), torch.polygamma(2, x), torch.polygamma(5, x)]",
    "bessel": GX + "x = torch.cat([x, torch.tensor([-9., 20., 50.])]); out = [torch.i0(x), "
    "torch.special.i0(x), torch.special.i0e(x), torch.special.i1(x), torch.special.i1e(x), "
    "torch.special.i1(x.double()), torch.special.i1e(x.double()), x.i0()]",
    "erfinv_ndtri_logit": "x = torch.tensor([-1.5, -1., -0.99, -0.5, 0., 0.3, 0.7, 0.71, 0.999, "
    "1., 2., float('nan')]); out = [torch.erfinv(x), torch.special.erfinv(x), x.erfinv(), "
    "torch.special.ndtri(x), torch.special.ndtri(torch.tensor([1e-20, 1e-8, 0.02, 0.98], "
    "dtype=torch.double)), torch.logit(x), torch.logit(x, 0.1), torch.special.logit(x, eps=0.25), "
    "x.logit(), torch.special.entr(x), torch.special.entr(torch.tensor([0., -1., 3.]))]",
    "multigammaln": "x = torch.tensor([[2.5, 3.], [4., 1.5]]); out = [torch.mvlgamma(x, 1), "
    "torch.special.multigammaln(x, 2), torch.mvlgamma(torch.tensor([3, 4]), 3), x.mvlgamma(3), "
    "torch.special.multigammaln(x.double(), 2)]",
    "integer_inputs": "x = torch.arange(1, 5); out = [torch.lgamma(x), torch.digamma(x), "
    "torch.polygamma(2, x), torch.special.i1(x), torch.special.entr(x), torch.logit(x), "
    "torch.erfinv(torch.tensor([0, 1]))]",
    "special_grads": "x = (torch.randn(5, dtype=torch.double).abs() + 0.1).requires_grad_(); "
    "out = []\nfor f in (torch.lgamma, torch.digamma, lambda t: torch.polygamma(2, t), "
    "torch.special.i0, torch.special.i0e, torch.special.i1, torch.special.i1e, "
    "torch.special.entr, lambda t: torch.special.multigammaln(t + 2, 3)):\n"
    "    x.grad = None\n    y = f(x)\n    (y * torch.arange(5.)).sum().backward()\n"
    "    out += [x.grad.clone(), y.grad_fn.name()]",
    "special_grads_unit_interval": "x = torch.tensor([0.1, 0.3, 0.5, 0.95], dtype=torch.double, "
    "requires_grad=True); out = []\nfor f in (torch.erfinv, torch.special.ndtri, torch.logit, "
    "lambda t: torch.logit(t, 0.2), lambda t: torch.special.logit(t - 0.2)):\n"
    "    x.grad = None\n    y = f(x)\n    (y * torch.arange(4.)).sum().backward()\n"
    "    out += [x.grad.clone(), y.grad_fn.name()]",
    "bessel_grad_at_zero": "x = torch.tensor([0., -1., 2.], requires_grad=True); "
    "torch.special.i1(x).sum().backward(); a = x.grad.clone(); x.grad = None; "
    "torch.special.i1e(x).sum().backward(); out = (a, x.grad)",
    "inplace": "x = torch.rand(3); y = x.clone(); y.lgamma_(); z = x.clone(); z.digamma_(); "
    "w = x.clone(); w.polygamma_(2); v = x.clone(); v.logit_(0.1); u = x.clone(); "
    "torch.i0_(u); t = x.clone() + 2; t.mvlgamma_(2); s = x.clone(); s.erfinv_(); "
    "out = [y, z, w, v, u, t, s]",
    "new_ops_out": "x = torch.rand(3); o = [torch.empty(0) for _ in range(8)]; "
    "torch.special.i1(x, out=o[0]); torch.special.polygamma(2, x, out=o[1]); "
    "torch.special.logit(x, out=o[2]); torch.special.multigammaln(x + 2, 2, out=o[3]); "
    "torch.lgamma(x, out=o[4]); torch.special.ndtri(x, out=o[5]); "
    "torch.special.entr(x, out=o[6]); torch.special.gammaln(x, out=o[7]); out = o",
    # ---- xlog1py and zeta ----
    "xlog1py": "x = torch.tensor([0., 1., -0.5, 2., float('nan'), 3.]); y = torch.tensor(["
    "float('nan'), 0.5, 2., -1., 1., 0.]); out = [torch.special.xlog1py(x, y), "
    "torch.special.xlog1py(2, y), torch.special.xlog1py(x, 3.), "
    "torch.special.xlog1py(torch.arange(3), torch.arange(3))]",
    "zeta": "x = torch.tensor([1., 1.5, 2., 3., 0.5, 4., 2., 2.]); q = torch.tensor([1., 2., "
    "0.5, -1.5, 1., -2., 100., 1e-3]); out = [torch.special.zeta(x, q), torch.special.zeta(3, "
    "q.abs() + 1), torch.special.zeta(x, 2.), torch.special.zeta(x.double(), q.double()), "
    "torch.special.zeta(torch.arange(2, 5), torch.arange(1, 4))]",
    "xlog1py_grads": "x = torch.randn(4, requires_grad=True); y = (torch.rand(4) + 0.1)"
    ".requires_grad_(); z = torch.special.xlog1py(x, y); z.sum().backward(); a = (x.grad.clone(), "
    "y.grad.clone(), z.grad_fn.name()); x.grad = None; y.grad = None; "
    "torch.special.xlog1py(2., y).sum().backward(); torch.special.xlog1py(x, 3.).sum()"
    ".backward(); out = a + (x.grad, y.grad)",
    "zeta_grads": "x = torch.tensor([2., 3.]); q = torch.tensor([1.5, 2.], requires_grad=True); "
    "z = torch.special.zeta(x, q); z.sum().backward(); g = q.grad.clone(); q.grad = None; "
    "torch.special.zeta(3., q).sum().backward(); out = (g, q.grad, z.grad_fn.name())",
    "binary_out": "o = torch.empty(0); o2 = torch.empty(0); torch.special.xlog1py(torch.rand(3), "
    "torch.rand(3), out=o); torch.special.zeta(2, torch.rand(3) + 1, out=o2); out = (o, o2)",
    "err_zeta_grad_x": "x = torch.tensor([2., 3.], requires_grad=True); "
    "out = torch.special.zeta(x, torch.tensor([1., 2.])).sum().backward()",
    # ---- bessel_j0 / bessel_j1 (not differentiable in torch) ----
    "bessel_j": "x = torch.tensor([-12., -5., -1e-6, 0., 1e-6, 0.5, 2.4048, 4.99, 5., 5.01, 10., "
    "100., float('inf'), float('nan')]); out = [torch.special.bessel_j0(x), "
    "torch.special.bessel_j1(x), torch.special.bessel_j0(x.double()), "
    "torch.special.bessel_j1(x.double()), torch.special.bessel_j0(torch.arange(3))]",
    "bessel_j_no_grad": "x = torch.randn(3, requires_grad=True); y = torch.special.bessel_j0(x); "
    "z = torch.special.bessel_j1(x); o = torch.empty(0); torch.special.bessel_j1(torch.arange(4.), "
    "out=o); out = (y.requires_grad, y.grad_fn, z.requires_grad, o)",
    "err_bessel_half": "out = torch.special.bessel_j0(torch.ones(2, dtype=torch.half))",
    # ---- errors ----
    "err_lgamma_complex": "out = torch.lgamma(torch.tensor([1 + 1j]))",
    "err_polygamma_n": "out = torch.polygamma(-1, torch.ones(2))",
    "err_mvlgamma_p": "out = torch.mvlgamma(torch.ones(2), 0)",
    "err_mvlgamma_bool": "out = torch.special.multigammaln(torch.ones(2, dtype=torch.bool), 1)",
    "err_softmax_long": "out = torch.special.softmax(torch.arange(3), 0)",
    "err_logsumexp_dim": "out = torch.special.logsumexp(torch.randn(3), 1)",
    "err_round_int_out": "o = torch.empty(0, dtype=torch.long); "
    "out = torch.special.erf(torch.randn(3), out=o)",
    "err_arg": "out = torch.special.erf(torch.randn(3), 2)",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_special(name: str) -> None:
    check("torch.manual_seed(0)\n" + PROGRAMS[name], rtol=1e-5, atol=1e-6)
