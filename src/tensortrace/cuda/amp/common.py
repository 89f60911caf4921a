"""amp_definitely_not_available (mirrors torch/cuda/amp/common.py)."""

from __future__ import annotations

from importlib.util import find_spec

__all__ = ["amp_definitely_not_available"]


def amp_definitely_not_available() -> bool:
    """No CUDA device (TENSORTRACE_CUDA_DEVICES=0) and no torch_xla."""
    from tensortrace import cuda

    return not (cuda.is_available() or find_spec("torch_xla"))
