"""Conformance of the window functions (hann / hamming / blackman / bartlett / kaiser_window,
TensorFactories.cpp) against torch 2.13: values, dtypes, every overload, the default device,
and the errors with their TensorOptions."""

from __future__ import annotations

import pytest

from .harness import check

WINDOWS = (
    "(torch.hann_window, torch.hamming_window, torch.blackman_window, torch.bartlett_window, "
    "torch.kaiser_window)"
)

PROGRAMS = {
    "periodic": f"out = [f(n) for f in {WINDOWS} for n in (0, 1, 2, 5, 8)]",
    "symmetric": f"out = [f(n, False) for f in {WINDOWS} for n in (0, 1, 2, 5, 8)]",
    "overloads": "out = [torch.hamming_window(6, True, 0.5), torch.hamming_window(6, False, 0.6, "
    "0.3, dtype=torch.double), torch.kaiser_window(7, False, 5.0), torch.kaiser_window(6, "
    "beta=3.0, periodic=True, dtype=torch.double), torch.hann_window(4, dtype=torch.half), "
    "torch.blackman_window(5, periodic=False, dtype=torch.float64)]",
    "requires_grad": "w = torch.hann_window(4, requires_grad=True); (w * 2).sum().backward(); "
    "out = (w.requires_grad, w.is_leaf, w.grad)",
    "default_dtype": "torch.set_default_dtype(torch.float64)\n"
    f"try:\n    out = [f(3) for f in {WINDOWS}]\n"
    "finally:\n    torch.set_default_dtype(torch.float32)",
    "err_long": "out = torch.hann_window(4, dtype=torch.long, device='cpu')",
    "err_int_kaiser": "out = torch.kaiser_window(4, dtype=torch.int32, device='cpu')",
    "err_negative": "out = torch.bartlett_window(-1)",
    "err_complex_arange": "out = torch.hann_window(4, dtype=torch.cfloat)",
    "err_complex_kaiser": "out = torch.kaiser_window(3, dtype=torch.cfloat)",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_windows(name: str) -> None:
    check("torch.manual_seed(0)\n" + PROGRAMS[name], rtol=1e-6, atol=1e-7)
