"""Conformance of issue #15's small Tensor utilities against torch 2.13.0: is_signed,
reshape_as, Tensor.itemsize and Tensor.nbytes."""

from __future__ import annotations

import pytest

from .harness import check

PROGRAMS = {
    "is_signed": "out = [torch.is_signed(torch.zeros(1, dtype=d)) for d in (torch.uint8, "
    "torch.int8, torch.int16, torch.int32, torch.int64, torch.float16, "
    "torch.bfloat16, torch.float32, torch.float64, torch.bool, torch.complex64)]",
    "is_signed_method": "out = (torch.arange(3).is_signed(), torch.ones(2, dtype=torch.uint8)"
    ".is_signed())",
    "reshape_as": "x = torch.arange(6.); out = x.reshape_as(torch.empty(2, 3))",
    "reshape_as_copy": "x = torch.arange(6.).reshape(2, 3).t(); out = x.reshape_as(torch.empty(6))",
    "reshape_as_error": "out = torch.arange(6.).reshape_as(torch.empty(4))",
    "reshape_as_grad": "g = torch.arange(4., requires_grad=True); "
    "(g.reshape_as(torch.empty(2, 2)) * 2).sum().backward(); out = g.grad",
    "itemsize_nbytes": "out = [(t.itemsize, t.nbytes) for t in (torch.zeros(3), "
    "torch.zeros(2, 5, dtype=torch.float64)[:, ::2], torch.zeros(0), "
    "torch.zeros((), dtype=torch.int16), torch.zeros(4, dtype=torch.bool), "
    "torch.zeros(2, dtype=torch.complex64))]",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_tensor_utility(name: str) -> None:
    check(PROGRAMS[name])
