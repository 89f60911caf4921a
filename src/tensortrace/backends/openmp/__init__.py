"""torch.backends.openmp. Mirrors `torch/backends/openmp/__init__.py`."""

from __future__ import annotations


def is_available() -> bool:
    """Whether this build parallelizes with OpenMP: at::parallel_for here follows
    ParallelOpenMP.h (aten/parallel.py), a team of threads per parallel region."""
    return True
