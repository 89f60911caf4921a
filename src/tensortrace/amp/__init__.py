"""torch.amp: automatic mixed precision (autocast).

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

__all__ = [
    "autocast",
    "custom_bwd",
    "custom_fwd",
    "is_autocast_available",
    "_enter_autocast",
    "_exit_autocast",
]
