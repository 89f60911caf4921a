"""torch.cpu: the CPU device module; here, its automatic mixed precision part (torch.cpu.amp).

Mirrors `torch/cpu/__init__.py` as far as `torch.cpu.amp` and `is_available`.
"""

from tensortrace.cpu import amp

__all__ = ["amp", "is_available"]


def is_available() -> bool:
    """The CPU is always available."""
    return True
