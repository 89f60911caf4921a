"""torch.utils: data loading (torch/utils/data) and, imported on first use, activation
checkpointing (torch/utils/checkpoint.py)."""

from tensortrace.utils import data as data

__all__ = ["data"]


def __getattr__(name: str) -> object:
    """torch.utils.checkpoint and torch.utils._device on first use (Note [Subpackages imported
    on first use])."""
    if name in ("checkpoint", "_device"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
