"""torch.cpu.amp: the deprecated CPU spellings of torch.amp (mirrors torch/cpu/amp)."""

from tensortrace.cpu.amp.autocast_mode import autocast
from tensortrace.cpu.amp.grad_scaler import GradScaler

__all__ = ["autocast", "GradScaler"]
