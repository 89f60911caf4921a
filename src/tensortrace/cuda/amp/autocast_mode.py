"""torch.cuda.amp.autocast, custom_fwd, custom_bwd: deprecated, with torch's FutureWarning.

Mirrors `torch/cuda/amp/autocast_mode.py`.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any

from tensortrace.amp import autocast_mode as _amp
from tensortrace.csrc.dtype import DTYPES
from tensortrace.csrc.dtype import dtype as _dtype

__all__ = ["autocast", "custom_fwd", "custom_bwd"]


class autocast(_amp.autocast):
    """torch.amp.autocast("cuda", ...)."""

    def __init__(
        self,
        enabled: bool = True,
        dtype: _dtype = DTYPES["float16"],
        cache_enabled: bool = True,
    ) -> None:
        warnings.warn(
            "`torch.cuda.amp.autocast(args...)` is deprecated. "
            "Please use `torch.amp.autocast('cuda', args...)` instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


def _cast(value: Any, dtype: _dtype) -> Any:
    warnings.warn(
        "`torch.cuda.amp.autocast_mode._cast(value, dtype)` is deprecated. "
        "Please use `torch.amp.autocast_mode._cast(value, 'cuda', dtype)` instead.",
        FutureWarning,
        stacklevel=2,
    )
    return _amp._cast(value, "cuda", dtype)


def custom_fwd(fwd: Any = None, *, cast_inputs: _dtype | None = None) -> Any:
    warnings.warn(
        "`torch.cuda.amp.custom_fwd(args...)` is deprecated. "
        "Please use `torch.amp.custom_fwd(args..., device_type='cuda')` instead.",
        FutureWarning,
        stacklevel=2,
    )
    return functools.partial(_amp.custom_fwd, device_type="cuda")(fwd=fwd, cast_inputs=cast_inputs)


def custom_bwd(bwd: Any) -> Any:
    warnings.warn(
        "`torch.cuda.amp.custom_bwd(args...)` is deprecated. "
        "Please use `torch.amp.custom_bwd(args..., device_type='cuda')` instead.",
        FutureWarning,
        stacklevel=2,
    )
    return functools.partial(_amp.custom_bwd, device_type="cuda")(bwd)
