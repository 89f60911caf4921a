"""torch.device's constructor from Python, and torch.device as a context manager.

Mirrors `THPDevice_pynew`, `THPDevice_enter` and `THPDevice_exit` of `torch/csrc/Device.cpp`.
`torch.device(x)` parses its arguments as `device(Device device)` or
`device(c10::string_view type, int64_t? index=-1)`, so a bad one is the argument parser's
TypeError; c10's Device takes the common calls itself and hands the others here.

`with torch.device("cuda"):` pushes a DeviceContext (utils/_device.py) onto the torch-function
mode stack without entering it (so it is on top, above the default device's), and pops the top
of the stack on exit. The class itself is c10's Device (c10/device.py); these are the methods
the Python binding adds to it. (A torch 2.13 device is not callable: to decorate a function,
torch.utils._device.set_device.)
"""

from __future__ import annotations

from typing import Any

from tensortrace.aten.python_torch_function_tls import pop_stack, push_onto_stack
from tensortrace.c10 import device as c10_device
from tensortrace.c10.device import Device
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.csrc.device_arg import toDevice

_parser: Any = None


def THPDevice_pynew(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Device:
    global _parser
    if _parser is None:  # the `static PythonArgParser`: made on first use (and the parser
        # module imports python_variable, which imports this module's package)
        from tensortrace.csrc.python_arg_parser import PythonArgParser

        _parser = PythonArgParser.create(
            ["device(Device device)", "device(c10::string_view type, int64_t? index=-1)"]
        )
    r = _parser.parse(args, kwargs)
    if r.idx == 0:
        return toDevice(r.args[0])
    type_string = r.args[0]
    as_device = toDevice(type_string)  # this works, because device can take strings
    TORCH_CHECK(
        not as_device.has_index(),
        "type (string) must not include an index because index was passed explicitly: ",
        type_string,
    )
    device_index = -1
    if r.args[1] is not None:
        device_index = int(r.args[1])
        # -1 is allowed in ATen/C++, to mean the default device, but not in Python
        TORCH_CHECK(device_index >= 0, "Device index must not be negative")
    return Device(as_device.type_, None if device_index == -1 else device_index)


def THPDevice_enter(self: Device) -> Device:
    from tensortrace.utils._device import DeviceContext  # py::module::import, as torch

    push_onto_stack(DeviceContext(self))
    return self  # so that `with torch.device("cuda") as dev:` works


def THPDevice_exit(self: Device, *unused: Any) -> None:
    pop_stack()


def install() -> None:
    # the c10 class is torch.device; the binding layer gives it these methods
    c10_device.THPDevice_pynew = THPDevice_pynew
    Device.__enter__ = THPDevice_enter  # type: ignore[attr-defined]
    Device.__exit__ = THPDevice_exit  # type: ignore[attr-defined]
