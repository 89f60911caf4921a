"""Conformance of torch.igamma / igammac (and Tensor.igamma / igamma_) and torch.special's
gammainc / gammaincc against torch 2.13: float32 and float64 values on a grid of a and x that
crosses every branch of calc_igamma (series, continued fraction, Temme's asymptotic series for
large a near x) with 0, negatives, inf and nan; broadcasting, type promotion, out=, the gradient
for x (and the not-implemented one for a), and the integer inputs the kernel refuses."""

from __future__ import annotations

import pytest

from .harness import check

GRID = (
    "a = torch.tensor([0., 0.5, 1., 2.5, 10., 25., 30., 150., 250., float('inf'), float('nan'), "
    "-1.])[:, None]; x = torch.tensor([0., 0.3, 0.6, 1., 1.2, 2.5, 9., 24., 31., 240., "
    "float('inf'), float('nan'), -1.])[None, :]; "
)
PROGRAMS = {
    "values": GRID + "out = [torch.igamma(a, x), torch.igammac(a, x), a.igamma(x), "
    "a.igammac(x), torch.special.gammainc(a, x), torch.special.gammaincc(a, x)]",
    "double": GRID + "a, x = a.double(), x.double(); out = [torch.igamma(a, x), "
    "torch.igammac(a, x), torch.special.gammainc(a, x.float()), torch.igamma(a.float(), 2.5 * "
    "torch.ones(()))]",
    "inplace_and_out": "a = torch.tensor([0.5, 1., 2., 3.]); x = torch.tensor([1., 2., 0.1, 4.]);"
    " b = a.clone(); r = b.igamma_(x); c = a.clone(); c.igammac_(x); o1, o2 = torch.empty(0), "
    "torch.empty(0); torch.special.gammainc(a, x, out=o1); torch.igammac(a, x, out=o2); "
    "out = (b, r is b, c, o1, o2)",
    "grad_other": "s = torch.tensor([0.5, 1., 2., 3.]); y = torch.tensor([0.7, 1.3, 2.2, 0.2], "
    "requires_grad=True); l = torch.igamma(s, y); m = torch.special.gammaincc(s, y * 2); "
    "(l.sum() + (m * torch.arange(4.)).sum()).backward(); out = (l, m, y.grad, "
    "l.grad_fn.name(), m.grad_fn.name())",
    "err_grad_self": "y = torch.tensor([0.7, 1.3], requires_grad=True); "
    "torch.igamma(y, torch.ones(2)).sum().backward()",
    "err_grad_self_igammac": "y = torch.tensor([0.7, 1.3], requires_grad=True); "
    "torch.special.gammaincc(y, torch.ones(2)).sum().backward()",
    "err_integers": "torch.igamma(torch.arange(1, 4), torch.arange(3))",
    "err_shapes": "torch.igammac(torch.ones(3), torch.ones(2))",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_special_igamma(name: str) -> None:
    check(PROGRAMS[name], rtol=1e-5, atol=1e-6)
