"""torch.utils: data loading (torch/utils/data) and, imported on first use, activation
checkpointing (torch/utils/checkpoint.py) and hooks (torch/utils/hooks.py)."""

from tensortrace.utils import data as data

__all__ = ["data"]


def __getattr__(name: str) -> object:
    """torch.utils.checkpoint, hooks and _device on first use (Note [Subpackages imported on
    first use])."""
    if name in ("checkpoint", "hooks", "_device"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
