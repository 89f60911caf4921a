"""torch.fft: the discrete Fourier transforms (fft, ifft, rfft, irfft, hfft, ihfft, their 2-D
and n-D forms), the sample frequencies (fftfreq, rfftfreq) and fftshift / ifftshift.

Mirrors `torch/fft/__init__.py`, which binds each `torch._C._fft.fft_<op>` as
`torch.fft.<op>`: the functions are the generated bindings of the `python_module: fft` ops of
native_functions.yaml (aten/native/spectral_ops.py, spectral_ops_nd.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tensortrace.csrc import python_fft_functions as _bindings

if TYPE_CHECKING:  # the bindings, copied into globals() below

    def __getattr__(name: str) -> Any: ...


globals().update(_bindings.FFTFunctions)

__all__ = sorted(_bindings.FFTFunctions)
