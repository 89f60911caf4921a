"""torch.backends.mkl. Mirrors `torch/backends/mkl/__init__.py`."""

from __future__ import annotations


def is_available() -> bool:
    """Whether this build uses MKL: no, its linear algebra is NumPy's LAPACK."""
    return False


VERBOSE_OFF = 0
VERBOSE_ON = 1
