"""Conformance of dropout (torch.dropout, F.dropout, nn.Dropout) against torch 2.13: bit-equal masks
after manual_seed, train/eval, in-place, gradients, repr and errors."""

from __future__ import annotations

import pytest

from .harness import check

PRE = "nn = torch.nn\nF = torch.nn.functional\n"

PROGRAMS = {
    "functional": "x = torch.randn(4, 5); out = (F.dropout(x), F.dropout(x, 0.2), "
    "F.dropout(x, training=False), F.dropout(x, 0.0), F.dropout(x, 1.0))",
    "torch_dropout": "out = (torch.dropout(torch.ones(3, 7), 0.3, True), "
    "torch.dropout(torch.ones(3, 7), 0.3, False))",
    "inplace": "x = torch.randn(6, 3); y = F.dropout(x, 0.5, inplace=True); out = (x, y, y is x)",
    "torch_dropout_": "x = torch.randn(4, 4); y = torch.dropout_(x, 0.5, True); out = (x, y is x)",
    "double": "out = F.dropout(torch.randn(3, 4, dtype=torch.float64), 0.25)",
    "grad": "x = torch.randn(5, 5, requires_grad=True); y = F.dropout(x, 0.4); "
    "y.sum().backward(); out = (y.detach(), x.grad, type(y.grad_fn).__name__)",
    "module_train_eval": "m = nn.Dropout(0.3); x = torch.randn(8, 4); a = m(x); m.eval(); "
    "b = m(x); m.train(); c = m(x); out = (a, b, c, b is x)",
    "module_repr": "out = (repr(nn.Dropout()), repr(nn.Dropout(0.1, inplace=True)))",
    "empty": "out = F.dropout(torch.randn(0, 3), 0.5)",
    "err_p": "out = F.dropout(torch.randn(3), 1.5)",
    "err_torch_p": "out = torch.dropout(torch.randn(3), -0.5, True)",
    "err_module_p": "out = nn.Dropout(-0.1)",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_dropout(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name])
