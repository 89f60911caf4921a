"""torch.backends.mps: Apple's Metal device. Mirrors `torch/backends/mps/__init__.py`."""

from __future__ import annotations


def is_built() -> bool:
    """Whether this build has MPS support: no."""
    return False


def is_available() -> bool:
    """Whether an MPS device can be used: no."""
    return False


def is_macos_or_newer(major: int, minor: int) -> bool:
    return False
