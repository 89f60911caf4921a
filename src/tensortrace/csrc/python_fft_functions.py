"""The torch.fft.<op> functions, generated from native_functions.yaml.

Mirrors `tools/autograd/templates/python_fft_functions.cpp` (`torch._C._fft`): one
THPVariable_fft_<op> per operator with `python_module: fft` (written by
`python -m tensortrace.torchgen` to csrc/generated/python_fft_functions.py), which
`torch/fft/__init__.py` exposes without the prefix (fft_rfft -> torch.fft.rfft).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

FFTFunctions: dict[str, Callable[..., Any]] = {}


def install(generated: dict[str, Callable[..., Any]]) -> None:
    """Fill FFTFunctions from csrc/generated/python_fft_functions.py's FUNCTIONS."""
    for name, binding in generated.items():
        FFTFunctions[name.removeprefix("fft_")] = binding
