"""Conformance of nn.MaxUnpool1d/2d and F.max_unpool1d/2d (aten::max_unpool2d, its derivative
gathering the gradient at the indices) against torch 2.13: values, gradients, float64, reprs and
errors."""

from __future__ import annotations

import pytest

from .harness import check

PRE = "nn = torch.nn\nF = torch.nn.functional\n"

PROGRAMS = {
    "unpool2d": "x = torch.randn(2, 3, 6, 5); y, i = F.max_pool2d(x, 2, return_indices=True); "
    "out = (F.max_unpool2d(y, i, 2, output_size=[6, 5]), "
    "F.max_unpool2d(y, i, 2, output_size=x.size()), "
    "F.max_unpool2d(*F.max_pool2d(x[..., :4], 2, return_indices=True), 2))",
    "unpool2d_args": "x = torch.randn(1, 2, 7, 7); y, i = F.max_pool2d(x, 3, 2, 1, "
    "return_indices=True); out = (F.max_unpool2d(y, i, 3, 2, 1), "
    "nn.MaxUnpool2d(3, stride=2, padding=1)(y, i, output_size=[8, 8]))",
    "unpool2d_grad": "x = torch.randn(2, 2, 4, 4); y, i = F.max_pool2d(x, 2, return_indices=True); "
    "y.requires_grad_(); z = F.max_unpool2d(y, i, 2); (z * torch.randn(z.shape)).sum().backward(); "
    "out = (z.detach(), y.grad, z.grad_fn.name())",
    "unpool1d": "x = torch.randn(2, 3, 9, requires_grad=True); "
    "y, i = F.max_pool1d(x, 3, return_indices=True); z = nn.MaxUnpool1d(3)(y, i); "
    "z.pow(2).sum().backward(); out = (z.detach(), x.grad, F.max_unpool1d(y.detach(), i, 3, "
    "output_size=[10]))",
    "unbatched_float64": "x = torch.randn(2, 4, 4, dtype=torch.float64); "
    "y, i = F.max_pool2d(x, 2, return_indices=True); out = (F.max_unpool2d(y, i, 2), "
    "F.max_unpool1d(*F.max_pool1d(x[0], 2, return_indices=True), 2))",
    "empty_batch": "out = torch._C._nn.max_unpool2d(torch.ones(0, 1, 2, 2), "
    "torch.zeros(0, 1, 2, 2, dtype=torch.long), [3, 3])",
    "half": "out = torch._C._nn.max_unpool2d(torch.arange(8.).view(1, 2, 2, 2).half(), "
    "torch.arange(4).repeat(1, 2, 1).view(1, 2, 2, 2), [3, 3])",
    "module_reprs": "out = [repr(nn.MaxUnpool1d(3)), repr(nn.MaxUnpool2d(3, stride=2, padding=1)), "
    "repr(nn.MaxUnpool2d((2, 3)))]",
    # ---- errors ----
    "err_index_range": "out = torch._C._nn.max_unpool2d(torch.ones(1, 2, 2, 2), "
    "torch.full((1, 2, 2, 2), 9, dtype=torch.long), [3, 3])",
    "err_index_negative": "out = torch._C._nn.max_unpool2d(torch.ones(1, 2, 2, 2), "
    "torch.full((1, 2, 2, 2), -1, dtype=torch.long), [3, 3])",
    "err_index_dtype": "out = torch._C._nn.max_unpool2d(torch.ones(1, 2, 2, 2), "
    "torch.zeros(1, 2, 2, 2, dtype=torch.int32), [3, 3])",
    "err_output_size_len": "out = torch._C._nn.max_unpool2d(torch.ones(1, 2, 2, 2), "
    "torch.zeros(1, 2, 2, 2, dtype=torch.long), [3, 3, 3])",
    "err_dims": "out = torch._C._nn.max_unpool2d(torch.ones(2, 2), "
    "torch.zeros(2, 2, dtype=torch.long), [3, 3])",
    "err_shape": "out = torch._C._nn.max_unpool2d(torch.ones(1, 2, 2, 2), "
    "torch.zeros(1, 2, 2, 1, dtype=torch.long), [3, 3])",
    "err_empty": "out = torch._C._nn.max_unpool2d(torch.ones(1, 0, 2, 2), "
    "torch.zeros(1, 0, 2, 2, dtype=torch.long), [3, 3])",
    "err_dtype": "out = torch._C._nn.max_unpool2d(torch.ones(1, 2, 2, 2, dtype=torch.long), "
    "torch.zeros(1, 2, 2, 2, dtype=torch.long), [3, 3])",
    "err_f_output_size": "out = F.max_unpool2d(torch.ones(1, 2, 2, 2), "
    "torch.zeros(1, 2, 2, 2, dtype=torch.long), 2, output_size=[9, 9])",
    "err_f_output_size_len": "out = F.max_unpool2d(torch.ones(1, 2, 2, 2), "
    "torch.zeros(1, 2, 2, 2, dtype=torch.long), 2, output_size=[9])",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_max_unpool(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], rtol=1e-6, atol=1e-6)
