"""at::getAccelerator: the device type an int device index means.

Mirrors `aten/src/ATen/DeviceAccelerator.cpp`: with CUDA present (here: at least one emulated
CUDA device, TENSORTRACE_CUDA_DEVICES) the accelerator is CUDA; with none, a caller that needs
one (`checked`) gets torch's error, so `x.to(5)` on a machine without devices reads "Cannot
access accelerator device when none is available.", as in a CPU-only torch.
"""

from __future__ import annotations

from tensortrace.c10.cuda.cuda_functions import device_count
from tensortrace.c10.device import DeviceType
from tensortrace.c10.exception import TORCH_CHECK


def getAccelerator(checked: bool = False) -> DeviceType | None:
    if device_count() > 0:  # at::hasCUDA()
        return DeviceType.CUDA
    TORCH_CHECK(not checked, "Cannot access accelerator device when none is available.")
    return None
