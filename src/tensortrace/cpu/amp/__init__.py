"""torch.cpu.amp: the deprecated CPU spellings of torch.amp (mirrors torch/cpu/amp)."""

from tensortrace.cpu.amp.autocast_mode import autocast

__all__ = ["autocast"]
