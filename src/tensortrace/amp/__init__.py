"""torch.amp: automatic mixed precision (autocast) and gradient scaling (GradScaler).

Mirrors `torch/amp/__init__.py`.
"""

from tensortrace.amp.autocast_mode import (
    _enter_autocast,
    _exit_autocast,
    autocast,
    custom_bwd,
    custom_fwd,
    is_autocast_available,
)
from tensortrace.amp.grad_scaler import GradScaler

__all__ = [
    "autocast",
    "custom_bwd",
    "custom_fwd",
    "is_autocast_available",
    "GradScaler",
    "_enter_autocast",
    "_exit_autocast",
]
