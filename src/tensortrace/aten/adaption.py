"""The device check of the generated CUDA wrappers: every tensor argument on one device.

Mirrors `aten/src/ATen/core/op_registration/adaption.h` / `aten/src/ATen/core/adaption.cpp`
(check_and_update_common_device, common_device_check_failure), which RegisterCUDA.cpp calls for
each tensor argument of an op whose entry does not say `device_check: NoCheck`. TensorIterator
ops say NoCheck: their compute_types makes the same check, and lets a CPU scalar through.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tensortrace.c10.device import Device
from tensortrace.c10.exception import TORCH_CHECK


def common_device_check_failure(
    common_device: Device, tensor: Any, method_name: str, arg_name: str
) -> None:
    TORCH_CHECK(
        False,
        "Expected all tensors to be on the same device, but got ",
        arg_name,
        " is on ",
        tensor.device(),
        ", different from other tensors on ",
        common_device,
        " (when checking argument in method ",
        method_name,
        ")",
    )


def check_and_update_common_device(
    common_device: Device | None, tensor: Any, method_name: str, arg_name: str
) -> Device | None:
    """The first defined tensor sets the device; every later one must match it."""
    if tensor is None or not tensor.defined():
        return common_device
    if common_device is None:
        return tensor.device()
    if common_device != tensor.device():
        common_device_check_failure(common_device, tensor, method_name, arg_name)
    return common_device


def check_and_update_common_device_all(args: Sequence[tuple[Any, str]], method_name: str) -> None:
    """The generated wrapper's sequence of checks (a TensorList checks each of its tensors)."""
    common: Device | None = None
    for value, name in args:
        if isinstance(value, (list, tuple)):
            for t in value:
                common = check_and_update_common_device(common, t, method_name, name)
        else:
            common = check_and_update_common_device(common, value, method_name, name)
