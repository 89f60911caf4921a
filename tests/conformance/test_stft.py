"""Conformance of torch.stft / Tensor.stft (torch/functional.py's centre padding over
aten::stft, SpectralOps.cpp), torch.istft and Tensor.unfold / unfold_backward against torch 2.13:
values, shapes, the frames' strides, dtypes, gradients and the REPR errors."""

from __future__ import annotations

import gc
import math
import warnings

import numpy as np
import pytest

import tensortrace

from .harness import check

X = "x = torch.randn(40); w = torch.hann_window(8); "
XB = "x = torch.randn(3, 30, dtype=torch.double); "

PROGRAMS = {
    "defaults": X + "out = [torch.stft(x, 8, window=w, return_complex=True), "
    "x.stft(8, window=w, return_complex=True)]",
    "not_centered": X + "out = torch.stft(x, 8, hop_length=3, window=w, return_complex=True, "
    "center=False)",
    "short_window_normalized": X + "out = torch.stft(x, 16, hop_length=4, win_length=8, "
    "window=w, return_complex=True, normalized=True)",
    "two_sided": X + "out = torch.stft(x, 8, window=w, return_complex=True, onesided=False)",
    "real_output": X + "out = torch.stft(x, 8, window=w, return_complex=False)",
    "no_window_constant_pad": X + "out = torch.stft(x, 8, return_complex=True, "
    "pad_mode='constant')",
    "batched_double": XB + "out = torch.stft(x, 10, window=torch.hamming_window(10, "
    "dtype=torch.double), return_complex=True)",
    "align_to_window": XB + "out = torch.stft(x, 8, hop_length=2, win_length=4, "
    "window=torch.hann_window(4, dtype=torch.double), center=False, return_complex=True, "
    "align_to_window=True)",
    "complex_input": XB + "out = torch.stft(x.to(torch.cdouble), 8, return_complex=True)",
    "grad": "x = torch.randn(30, requires_grad=True); y = torch.stft(x, 8, "
    "window=torch.hann_window(8), return_complex=True); y.abs().sum().backward(); "
    "out = (x.grad, y.grad_fn.name())",
    # ---- istft, and Tensor.unfold / unfold_backward under its overlap-add ----
    "istft": X + "s = torch.stft(x, 8, window=w, return_complex=True); out = [torch.istft(s, 8, "
    "window=w), torch.istft(s, 8, window=w, length=40), torch.istft(s, 8, window=w, length=45), "
    "s.istft(8, window=w, center=True)]",
    "istft_two_sided_normalized": XB + "w = torch.hann_window(10, dtype=torch.double); "
    "s = torch.stft(x, 10, hop_length=3, window=w, return_complex=True, onesided=False, "
    "normalized=True); out = [torch.istft(s, 10, hop_length=3, window=w, normalized=True), "
    "torch.istft(s, 10, hop_length=3, window=w, normalized=True, return_complex=True)]",
    "istft_grad": X + "s = torch.stft(x, 8, window=w, return_complex=True).requires_grad_(); "
    "y = torch.istft(s, 8, window=w); (y * torch.arange(40.)).sum().backward(); "
    "out = (s.grad, y.grad_fn.name())",
    "unfold": "x = torch.arange(24.).reshape(2, 12); out = [x.unfold(1, 4, 2), x.unfold(0, 1, 1), "
    "x.unfold(-1, 3, 5), torch.tensor(3.).unfold(0, 1, 1)]",
    "unfold_grads": "x = torch.randn(2, 10, requires_grad=True); y = x.unfold(1, 4, 2); "
    "(y * torch.arange(32.).reshape(2, 4, 4)).sum().backward(); g1 = x.grad.clone(); "
    "x.grad = None; z = x.unfold(1, 3, 4); (z * torch.arange(12.).reshape(2, 2, 3)).sum()"
    ".backward(); out = (g1, x.grad, y.grad_fn.name())",
    "err_unfold_size": "out = torch.arange(5.).unfold(0, 6, 1)",
    "err_unfold_step": "out = torch.arange(5.).unfold(0, 2, 0)",
    "err_istft_real": "out = torch.istft(torch.randn(5, 3), 8)",
    "err_istft_window": "out = torch.istft(torch.randn(5, 3, dtype=torch.cfloat, device='cpu'), "
    "8, window=torch.ones(3, device='cpu'))",
    "err_istft_overlap": "out = torch.istft(torch.randn(5, 3, dtype=torch.cfloat, device='cpu'), "
    "8, window=torch.zeros(8, device='cpu'))",
    "err_istft_nola": X + "w = torch.hann_window(6, device='cpu'); s = torch.stft(torch.randn(40, "
    "device='cpu'), 8, win_length=6, hop_length=2, window=w, return_complex=True, center=False); "
    "out = torch.istft(s, 8, win_length=6, hop_length=2, window=w, center=False)",
    # ---- errors (on the CPU: the message names the tensor type, torch.cuda.FloatTensor there) ----
    "err_n_fft": "out = torch.stft(torch.randn(10, device='cpu'), 20, return_complex=True, "
    "center=False)",
    "err_return_complex": "out = torch.stft(torch.randn(10), 4)",
    "err_window_size": "out = torch.stft(torch.randn(10, device='cpu'), 4, "
    "window=torch.ones(3, device='cpu'), "
    "return_complex=True)",
    "err_hop": "out = torch.stft(torch.randn(10, device='cpu'), 4, hop_length=0, "
    "return_complex=True)",
    "err_3d": "out = torch.stft(torch.randn(2, 2, 10, device='cpu'), 4, return_complex=True)",
    "err_long": "out = torch.stft(torch.arange(10, device='cpu'), 4, return_complex=True, "
    "center=False)",
    "err_align_centered": "out = torch.stft(torch.randn(10), 4, return_complex=True, "
    "align_to_window=True)",
    "err_onesided_complex": "out = torch.stft(torch.randn(10, dtype=torch.cfloat), 4, "
    "return_complex=True, onesided=True)",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@pytest.mark.filterwarnings("ignore:A window was not provided")
@pytest.mark.filterwarnings("ignore:stft with return_complex=False is deprecated")
@pytest.mark.filterwarnings("ignore:The length of signal is shorter")
def test_stft(name: str) -> None:
    check("torch.manual_seed(0)\n" + PROGRAMS[name], rtol=1e-4, atol=1e-5)


def test_errors_leak_nothing() -> None:
    """An stft / istft that fails after padding, framing or transforming frees what it made."""
    gc.disable()  # reference counting alone must free everything
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            leaks = []
            for name, source in PROGRAMS.items():
                if not name.startswith("err_"):
                    continue
                start = tensortrace.memory_allocated("cpu")
                namespace = {"torch": tensortrace, "np": np, "math": math}
                try:
                    exec(source, namespace)
                except (RuntimeError, TypeError, IndexError):
                    pass
                namespace.clear()
                if tensortrace.memory_allocated("cpu") != start:
                    leaks.append(name)
    finally:
        gc.enable()
    assert leaks == []
