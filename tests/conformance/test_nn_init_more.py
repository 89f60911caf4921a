"""Conformance of nn.init's trunc_normal_, eye_, dirac_, orthogonal_, sparse_ and the deprecated
aliases against torch 2.13: seeded draws, shapes, errors."""

from __future__ import annotations

import pytest

from .harness import check

PRE = "init = torch.nn.init\n"

PROGRAMS = {
    "trunc_normal": "w = torch.empty(4, 5); init.trunc_normal_(w); out = w",
    "trunc_normal_narrow": "w = torch.empty(3, 7); r = init.trunc_normal_(w, 0.5, 2.0, 0.0, 0.3); "
    "out = (w, r is w, bool(((w >= 0) & (w <= 0.3)).all()))",
    "trunc_normal_generator": "g = torch.Generator().manual_seed(3); w = torch.empty(6); "
    "init.trunc_normal_(w, std=0.02, a=-0.04, b=0.04, generator=g); out = w",
    "trunc_normal_double": "w = torch.empty(2, 3, dtype=torch.float64); "
    "init.trunc_normal_(w, 1.0, 0.5, 0.0, 2.0); out = w",
    "eye": "w = torch.empty(3, 5); init.eye_(w); out = w",
    "eye_requires_grad": "w = torch.empty(4, 2, requires_grad=True); init.eye_(w); "
    "out = (w.detach(), w.requires_grad, w.grad_fn)",
    "dirac": "out = [init.dirac_(torch.empty(*s)) for s in [(3, 2, 3), (2, 3, 3, 4), "
    "(2, 2, 3, 3, 3)]]",
    "dirac_groups": "out = init.dirac_(torch.empty(6, 2, 3, 3), groups=2)",
    "orthogonal": "w = torch.empty(4, 6); init.orthogonal_(w); out = (w, w @ w.t())",
    "orthogonal_tall": "w = torch.empty(6, 2, 2); init.orthogonal_(w, gain=2.0); "
    "f = w.reshape(6, 4); out = (w, f.t() @ f)",
    "orthogonal_empty": "out = init.orthogonal_(torch.empty(0, 3))",
    # the zeros' rows come from the CPU generator, the values from the tensor's device: only
    # on the CPU are both one stream, so the values are compared through the zero counts
    "sparse": "w = torch.empty(5, 4); init.sparse_(w, 0.5); out = ((w == 0).sum(0), w.shape)",
    "sparse_std": "w = torch.empty(3, 3); r = init.sparse_(w, 0.1, std=1.0); "
    "out = ((w == 0).sum(0), r is w)",
    "deprecated": "import warnings\nwith warnings.catch_warnings(record=True) as caught:\n"
    "    warnings.simplefilter('always')\n    w = torch.nn.init.xavier_uniform(torch.empty(2, 3))\n"
    "    o = init.orthogonal(torch.empty(2, 2))\n"
    "out = (w, o, [str(c.message) for c in caught], [c.category.__name__ for c in caught], "
    "init.uniform.__name__)",
    # ---- errors ----
    "err_eye": "out = init.eye_(torch.empty(2, 2, 2))",
    "err_dirac_dims": "out = init.dirac_(torch.empty(2, 2))",
    "err_dirac_groups": "out = init.dirac_(torch.empty(5, 2, 3), groups=2)",
    "err_orthogonal": "out = init.orthogonal_(torch.empty(3))",
    "err_sparse": "out = init.sparse_(torch.empty(3), 0.5)",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_nn_init_more(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], rtol=1e-5, atol=1e-6)
