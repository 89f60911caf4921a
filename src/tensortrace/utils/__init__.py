"""torch.utils: the data loading utilities (torch/utils/data)."""

from tensortrace.utils import data as data

__all__ = ["data"]
