"""torch.device as a context manager.

Mirrors `THPDevice_enter` and `THPDevice_exit` of `torch/csrc/Device.cpp`:
`with torch.device("cuda"):` pushes a DeviceContext (utils/_device.py) onto the torch-function
mode stack without entering it (so it is on top, above the default device's), and pops the top
of the stack on exit. The class itself is c10's Device (c10/device.py); these are the methods
the Python binding adds to it. (A torch 2.13 device is not callable: to decorate a function,
torch.utils._device.set_device.)
"""

from __future__ import annotations

from typing import Any

from tensortrace.aten.python_torch_function_tls import pop_stack, push_onto_stack
from tensortrace.c10.device import Device


def THPDevice_enter(self: Device) -> Device:
    from tensortrace.utils._device import DeviceContext  # py::module::import, as torch

    push_onto_stack(DeviceContext(self))
    return self  # so that `with torch.device("cuda") as dev:` works


def THPDevice_exit(self: Device, *unused: Any) -> None:
    pop_stack()


def install() -> None:
    # the c10 class is torch.device; the binding layer gives it these methods
    Device.__enter__ = THPDevice_enter  # type: ignore[attr-defined]
    Device.__exit__ = THPDevice_exit  # type: ignore[attr-defined]
