"""torch.cpu.amp.autocast: deprecated, with torch's FutureWarning.

Mirrors `torch/cpu/amp/autocast_mode.py`.
"""

from __future__ import annotations

import warnings

from tensortrace.amp import autocast_mode as _amp
from tensortrace.csrc.dtype import DTYPES
from tensortrace.csrc.dtype import dtype as _dtype

__all__ = ["autocast"]


class autocast(_amp.autocast):
    """torch.amp.autocast("cpu", ...)."""

    def __init__(
        self,
        enabled: bool = True,
        dtype: _dtype = DTYPES["bfloat16"],
        cache_enabled: bool = True,
    ) -> None:
        warnings.warn(
            "`torch.cpu.amp.autocast(args...)` is deprecated. "
            "Please use `torch.amp.autocast('cpu', args...)` instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)
