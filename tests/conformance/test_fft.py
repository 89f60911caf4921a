"""Conformance of torch.fft (the fft_* composites over aten::_fft_r2c / _fft_c2r / _fft_c2c)
against torch 2.13: values, shapes, the MKL kernels' strides, dtypes, the conj bit, gradients,
out=, the sample frequencies, the shifts and errors; and no leak after an error."""

from __future__ import annotations

import gc
import math
import warnings

import numpy as np
import pytest

import tensortrace

from .harness import check

X = "x = torch.arange(60.).reshape(3, 4, 5).sin(); "
XP = "x = torch.randn(2, 3, 4, 5).permute(3, 1, 0, 2); "  # not contiguous
Z = "z = torch.randn(3, 4, dtype=torch.cdouble); "

PROGRAMS = {
    # ---- one-dimensional ----------------------------------------------------------------------
    "fft_dims": X + "out = [torch.fft.fft(x), torch.fft.fft(x, dim=0), torch.fft.fft(x, dim=1)]",
    "ifft_real_is_conj": X + "out = [torch.fft.ifft(x), torch.fft.ifft(x, dim=0)]",
    "rfft_irfft": X + "out = [torch.fft.rfft(x), torch.fft.rfft(x, dim=0), "
    "torch.fft.irfft(x), torch.fft.irfft(x, dim=1)]",
    "hfft_ihfft": X + "out = [torch.fft.hfft(x), torch.fft.hfft(x, dim=0), "
    "torch.fft.ihfft(x), torch.fft.ihfft(x, dim=1)]",
    "n_pads_and_slices": X + "out = [torch.fft.fft(x, n=7, dim=1), torch.fft.fft(x, n=2), "
    "torch.fft.rfft(x, n=3, dim=0), torch.fft.irfft(x, n=9), torch.fft.hfft(x, n=3, dim=1), "
    "torch.fft.ihfft(x, n=8)]",
    "norms": X + "out = [f(x, norm=m) for f in (torch.fft.fft, torch.fft.ifft, torch.fft.rfft, "
    "torch.fft.irfft, torch.fft.hfft, torch.fft.ihfft) for m in (None, 'backward', 'ortho', "
    "'forward')]",
    "complex_input": Z + "out = [torch.fft.fft(z), torch.fft.ifft(z, dim=0), "
    "torch.fft.fft(z.conj(), dim=0), torch.fft.irfft(z), torch.fft.hfft(z, n=5), "
    "torch.fft.ifft(z, n=5)]",
    "non_contiguous": XP + "out = [torch.fft.fft(x, dim=0), torch.fft.rfft(x, dim=2), "
    "torch.fft.irfft(x, dim=1), torch.fft.fft(x[:, ::2], dim=1)]",
    "dtypes": "out = [torch.fft.fft(torch.arange(4)), torch.fft.rfft(torch.arange(6, "
    "dtype=torch.int32)), torch.fft.fft(torch.ones(3, dtype=torch.double)), "
    "torch.fft.irfft(torch.ones(3, dtype=torch.cfloat)), torch.fft.fft(torch.tensor([True, "
    "False]))]",
    "default_dtype_double": "torch.set_default_dtype(torch.float64)\n"
    "try:\n    out = torch.fft.fft(torch.arange(4))\n"
    "finally:\n    torch.set_default_dtype(torch.float32)",
    # ---- n-dimensional ------------------------------------------------------------------------
    "fftn_family": X + "out = [torch.fft.fftn(x), torch.fft.ifftn(x), torch.fft.rfftn(x), "
    "torch.fft.irfftn(x), torch.fft.hfftn(x), torch.fft.ihfftn(x)]",
    "fft2_family": X + "out = [torch.fft.fft2(x), torch.fft.ifft2(x), torch.fft.rfft2(x), "
    "torch.fft.irfft2(x), torch.fft.hfft2(x), torch.fft.ihfft2(x)]",
    "fftn_s_dim": X + "out = [torch.fft.fftn(x, dim=(0, 2)), torch.fft.rfftn(x, dim=(0, 2)), "
    "torch.fft.irfftn(x, dim=(0, 1)), torch.fft.fftn(x, s=(2, 6)), "
    "torch.fft.irfftn(x, s=(4, -1)), torch.fft.rfft2(x, s=(5, 3), dim=(2, 0)), "
    "torch.fft.hfftn(x, s=(3, 3), norm='ortho'), torch.fft.ihfftn(x, dim=(2, 0), norm='forward')]",
    "fftn_non_contiguous": XP + "out = [torch.fft.fftn(x, dim=(1, 3)), "
    "torch.fft.rfftn(x, dim=(3, 0, 1)), torch.fft.irfftn(x, dim=(2, 0)), torch.fft.fft2(x)]",
    "fftn_empty_dim": Z + "out = torch.fft.fftn(z, dim=())",
    "roundtrips": "x = torch.randn(4, 6, dtype=torch.double); "
    "out = [torch.fft.irfftn(torch.fft.rfftn(x), s=x.shape), torch.fft.ifft(torch.fft.fft(x)), "
    "torch.fft.hfft(torch.fft.ihfft(x), n=6)]",
    # ---- gradients ----------------------------------------------------------------------------
    "grad_fft_real": "x = torch.randn(3, 5, requires_grad=True); y = torch.fft.fft(x, dim=0, "
    "norm='ortho'); (y.real * y.imag).sum().backward(); out = (x.grad, y.grad_fn.name())",
    "grad_rfft": "x = torch.randn(3, 5, requires_grad=True); y = torch.fft.rfft(x); "
    "(y.abs() ** 2).sum().backward(); out = (x.grad, y.grad_fn.name())",
    "grad_irfft": "x = torch.randn(3, 4, dtype=torch.cdouble, requires_grad=True); "
    "y = torch.fft.irfft(x, n=7); (y ** 3).sum().backward(); out = (x.grad, y.grad_fn.name())",
    "grad_hfftn": "x = torch.randn(3, 4, dtype=torch.cdouble, requires_grad=True); "
    "y = torch.fft.hfftn(x); (y ** 3).sum().backward(); out = (x.grad, y.grad_fn.name())",
    "grad_ihfft2": "x = torch.randn(3, 4, dtype=torch.double, requires_grad=True); "
    "y = torch.fft.ihfft2(x); y.abs().sum().backward(); out = (x.grad, y.grad_fn.name())",
    "grad_ifftn_s": "x = torch.randn(3, 4, dtype=torch.cdouble, requires_grad=True); "
    "y = torch.fft.ifftn(x, s=(5, 2)); y.abs().sum().backward(); out = (x.grad, y.grad_fn.name())",
    "grad_roundtrip": "x = torch.randn(3, 4, dtype=torch.double, requires_grad=True); "
    "y = torch.fft.irfft2(torch.fft.rfft2(x)); (y * torch.arange(12.).reshape(3, 4)).sum()"
    ".backward(); out = (x.grad, y)",
    "grad_shift": "x = torch.randn(5, 3, requires_grad=True); y = torch.fft.ifftshift("
    "torch.fft.fftshift(x, dim=0) * 2, dim=1); (y * torch.arange(15.).reshape(5, 3)).sum()"
    ".backward(); out = (x.grad, y.grad_fn.name())",
    # ---- out= ---------------------------------------------------------------------------------
    "out_variants": "o1 = torch.empty(0, dtype=torch.cfloat); r1 = torch.fft.fft(torch.ones(4), "
    "out=o1); o2 = torch.empty(0, dtype=torch.cfloat); r2 = torch.fft.ifft(torch.arange(4.), "
    "out=o2); o3 = torch.empty(0); r3 = torch.fft.irfftn(torch.randn(3, 4, dtype=torch.cdouble), "
    "out=o3); o4 = torch.empty(0, dtype=torch.cfloat); r4 = torch.fft.ihfft(torch.randn(2, 4), "
    "out=o4); o5 = torch.empty(0); r5 = torch.fft.hfft2(torch.randn(2, 4, dtype=torch.cfloat), "
    "out=o5); o6 = torch.empty(0, dtype=torch.cfloat); r6 = torch.fft.ihfftn(torch.randn(2, 4), "
    "out=o6); out = [o1, o2, o3, o4, o5, o6, r1 is o1, r3 is o3, r6 is o6]",
    "out_kernels": "o = torch.empty(0, dtype=torch.cfloat); x = torch.randn(3, 4); "
    "out = [torch._fft_r2c(x, [0, 1], 0, False), torch._fft_r2c(x, [0, 1], 1, False, out=o), o, "
    "torch._fft_c2c(o, [1], 2, False), torch._fft_c2r(o, [0], 0, 5)]",
    # ---- frequencies and shifts ---------------------------------------------------------------
    "fftfreq": "o = torch.empty(0, dtype=torch.double); r = torch.fft.fftfreq(5, out=o); "
    "out = [torch.fft.fftfreq(5), torch.fft.fftfreq(6, 0.5), torch.fft.rfftfreq(7, "
    "dtype=torch.float64), torch.fft.rfftfreq(8, d=0.1), torch.fft.fftfreq(1), o, r is o, "
    "torch.fft.fftfreq(4, dtype=torch.half)]",
    "fftshift": "x = torch.arange(10).reshape(2, 5); out = [torch.fft.fftshift(x), "
    "torch.fft.ifftshift(x), torch.fft.fftshift(x, dim=1), torch.fft.ifftshift(x, dim=(-1,)), "
    "torch.fft.ifftshift(torch.fft.fftshift(torch.fft.fftfreq(7)))]",
    # ---- errors -------------------------------------------------------------------------------
    "err_half": "out = torch.fft.fft(torch.ones(4, device='cpu').half())",
    "err_norm": "out = torch.fft.fft(torch.ones(4), norm='bad')",
    "err_n": "out = torch.fft.fft(torch.ones(4), n=0)",
    "err_n_irfft": "out = torch.fft.irfft(torch.ones(1))",
    "err_dim": "out = torch.fft.fft(torch.ones(4), dim=2)",
    "err_scalar": "out = torch.fft.fft(torch.tensor(1.))",
    "err_dims_unique": "out = torch.fft.fftn(torch.ones(4, 4), dim=(0, 0))",
    "err_shape_long": "out = torch.fft.fftn(torch.ones(4, 4), s=(2, 2, 2))",
    "err_shape_dim_len": "out = torch.fft.fftn(torch.ones(4, 4), s=(2,), dim=(0, 1))",
    "err_shape_zero": "out = torch.fft.rfftn(torch.ones(4, 4), s=(2, 0))",
    "err_rfft_complex": "out = torch.fft.rfft(torch.ones(4, dtype=torch.cfloat))",
    "err_rfftn_complex": "out = torch.fft.rfftn(torch.ones(4, dtype=torch.cfloat))",
    "err_irfftn_no_axis": "out = torch.fft.irfftn(torch.ones(4), dim=())",
    "err_out_real": "o = torch.empty(0); out = torch.fft.fft(torch.ones(4), out=o)",
    "err_out_complex": "o = torch.empty(0, dtype=torch.cfloat); "
    "out = torch.fft.irfft(torch.ones(4, dtype=torch.cfloat), out=o)",
    "err_fftfreq_dtype": "out = torch.fft.fftfreq(4, dtype=torch.long)",
    "err_fftfreq_complex": "out = torch.fft.fftfreq(4, dtype=torch.cfloat)",
    "err_arg_type": "out = torch.fft.fft(torch.ones(4), dim='a')",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_fft(name: str) -> None:
    check("torch.manual_seed(0)\n" + PROGRAMS[name], rtol=1e-4, atol=1e-4)


def test_errors_leak_nothing() -> None:
    """An FFT that fails part-way (after promoting or padding its input) frees what it made."""
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
