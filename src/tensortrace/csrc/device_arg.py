"""toDevice: a Python device argument (torch.device, str or int) as a c10 Device.

Mirrors `toDevice` of `torch/csrc/utils/python_arg_parser.h`: an int is an index on the current
accelerator (`at::getAccelerator(true)`), refused when negative.
"""

from __future__ import annotations

from typing import Any

from tensortrace.aten.device_accelerator import getAccelerator
from tensortrace.c10.device import Device
from tensortrace.c10.exception import TORCH_CHECK


def toDevice(value: Any) -> Device:
    if isinstance(value, Device):
        return value
    if isinstance(value, str):
        return Device(value)
    index = int(value)
    TORCH_CHECK(index >= 0, "Device index must not be negative")
    accelerator = getAccelerator(True)
    assert accelerator is not None
    return Device(accelerator, index)
