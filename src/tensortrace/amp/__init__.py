"""torch.amp: automatic mixed precision (autocast) and gradient scaling (GradScaler).

Mirrors `torch/amp/__init__.py`.
"""

from typing import TYPE_CHECKING, Any

from tensortrace.amp.autocast_mode import (
    _enter_autocast,
    _exit_autocast,
    autocast,
    custom_bwd,
    custom_fwd,
    is_autocast_available,
)

if TYPE_CHECKING:
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


def __getattr__(name: str) -> Any:
    """torch.amp.GradScaler: grad_scaler.py imported on first use (a training loop's, not
    `import tensortrace`'s; Note [Subpackages imported on first use] in tensortrace/__init__.py)."""
    if name == "GradScaler":
        from tensortrace.amp.grad_scaler import GradScaler

        return GradScaler
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), "GradScaler"})
