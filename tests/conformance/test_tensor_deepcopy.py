"""Conformance of copy.deepcopy of tensors (Tensor.__deepcopy__ of torch/_tensor.py) against
torch 2.13: one new storage per storage (views stay views of one copy), offsets and strides
kept, requires_grad and .grad copied, the conj bit resolved, non-leaves refused,
and a module or optimizer state copied through it."""

from __future__ import annotations

import pytest

from .harness import check

PRE = "import copy\n"

PROGRAMS = {
    "views_share_one_copy": "b = torch.arange(6.)\nv = b.view(2, 3)[:, 1:]; w = b[2:]\n"
    "c = copy.deepcopy([b, v, w]); c[1][0, 0] = 100.0\n"
    "out = (c, b, c[1].storage_offset(), c[1].stride(), "
    "c[1].untyped_storage().data_ptr() == c[2].untyped_storage().data_ptr(), "
    "c[0].untyped_storage().data_ptr() != b.untyped_storage().data_ptr())",
    "memo_keeps_identity": "b = torch.ones(3)\nc = copy.deepcopy({'a': b, 'b': b})\n"
    "out = (c['a'] is c['b'], c['a'] is b)",
    "grad_and_requires_grad": "b = torch.arange(4.).requires_grad_(); b.grad = torch.ones(4)\n"
    "c = copy.deepcopy(b)\nout = (c.detach(), c.requires_grad, c.is_leaf, c.grad, "
    "c.grad is b.grad)",
    "conj_and_dtypes": "z = torch.tensor([1 + 2j, 3 - 1j]).conj()\nc = copy.deepcopy(z)\n"
    "out = (c, c.is_conj(), copy.deepcopy(torch.tensor([1, 2], dtype=torch.int16)), "
    "copy.deepcopy(torch.tensor(True)))",
    "module": "m = torch.nn.Linear(3, 2, device='cpu').to(torch.empty(0).device)\n"
    "m2 = copy.deepcopy(m)\nwith torch.no_grad():\n    m2.weight.add_(1.0)\n"
    "out = (m2.weight.detach() - m.weight.detach(), m2.weight is m.weight, "
    "type(m2.weight).__name__)",
    "optimizer_state": "m = torch.nn.Linear(2, 2)\nopt = torch.optim.Adam(m.parameters())\n"
    "m.weight.grad = torch.ones(2, 2); m.bias.grad = torch.ones(2); opt.step()\n"
    "sd = copy.deepcopy(opt.state_dict())\n"
    "out = [sd['state'][0]['step'], sd['state'][0]['exp_avg'], sd['state'][1]['exp_avg_sq']]",
    # ---- errors ----
    "err_non_leaf": "b = torch.ones(2, requires_grad=True)\nout = copy.deepcopy(b * 2)",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_tensor_deepcopy(name: str) -> None:
    check(PRE + PROGRAMS[name])
