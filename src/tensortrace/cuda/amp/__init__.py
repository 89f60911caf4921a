"""torch.cuda.amp: the deprecated CUDA spellings of torch.amp (mirrors torch/cuda/amp)."""

from tensortrace.cuda.amp.autocast_mode import autocast, custom_bwd, custom_fwd
from tensortrace.cuda.amp.common import amp_definitely_not_available
from tensortrace.cuda.amp.grad_scaler import GradScaler

__all__ = [
    "amp_definitely_not_available",
    "autocast",
    "custom_bwd",
    "custom_fwd",
    "GradScaler",
]
