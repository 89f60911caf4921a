"""torch.random: the default CPU generator's state, seeding, and fork_rng.

Mirrors `torch/random.py`: get_rng_state / set_rng_state hand the default generator's state
over as a uint8 tensor in CPUGeneratorImpl's layout (aten/cpu_generator_impl.py), so a state
taken from torch 2.13 gives torch's draws here, and back; fork_rng puts the CPU (and the
accelerator's) generator states back on exit. manual_seed, seed, initial_seed are the binding
layer's (csrc/generator.py).
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Generator as _Generator
from collections.abc import Iterable
from typing import Any

from tensortrace.csrc.generator import default_generator, initial_seed, manual_seed, seed

__all__ = ["fork_rng", "get_rng_state", "initial_seed", "manual_seed", "seed", "set_rng_state"]


def set_rng_state(new_state: Any) -> None:
    """Set the default CPU generator's state (a uint8 tensor from get_rng_state)."""
    default_generator.set_state(new_state)


def get_rng_state() -> Any:
    """The default CPU generator's state, as a uint8 tensor of 5056 bytes."""
    return default_generator.get_state()


_fork_rng_warned_already = False


def _device_module(device_type: str) -> Any:
    """torch.get_device_module(device_type)."""
    import tensortrace

    return getattr(tensortrace, device_type, None)


@contextlib.contextmanager
def fork_rng(
    devices: Iterable[int] | None = None,
    enabled: bool = True,
    _caller: str = "fork_rng",
    _devices_kw: str = "devices",
    device_type: str | None = None,
) -> _Generator[None, None, None]:
    """Fork the RNG: on exit the CPU generator (and those of `devices` of the accelerator,
    all of them by default) are back in the state they had on entry."""
    global _fork_rng_warned_already
    if device_type == "meta":
        yield
        return
    from tensortrace import accelerator

    acc = accelerator.current_accelerator()
    device_type = device_type or (acc.type if acc is not None else "cuda")
    device_mod = _device_module(device_type)
    if device_mod is None:
        raise RuntimeError(
            f"torch has no module of `{device_type}`, you should register "
            + "a module by `torch._register_device_module`."
        )
    if not enabled:
        yield
        return
    if devices is None:
        num_devices = device_mod.device_count()
        if num_devices > 1 and not _fork_rng_warned_already:
            kind = device_type.upper()
            message = (
                f"{kind} reports that you have {num_devices} available devices, and "
                f"you have used {_caller} without explicitly specifying which devices are being "
                f"used. For safety, we initialize *every* {kind} device by default, which can "
                f"be quite slow if you have a lot of {kind}s. If you know that you are only"
                f" making use of a few {kind} devices, set the environment variable "
                f"{kind}_VISIBLE_DEVICES or the '{_devices_kw}' keyword argument of {_caller} "
                "with the set of devices you are actually using. For example, if you are using "
                "CPU only, set device.upper()_VISIBLE_DEVICES= or devices=[]; if you are using "
                f"device 0 only, set {kind}_VISIBLE_DEVICES=0 or devices=[0].  To initialize "
                f"all devices and suppress this warning, set the '{_devices_kw}' keyword "
                f"argument to `range(torch.{device_type}.device_count())`."
            )
            warnings.warn(message, stacklevel=2)
            _fork_rng_warned_already = True
        devices = list(range(num_devices))
    else:
        devices = list(devices)
    cpu_rng_state = get_rng_state()
    device_rng_states = [device_mod.get_rng_state(device) for device in devices]
    try:
        yield
    finally:
        set_rng_state(cpu_rng_state)
        for device, device_rng_state in zip(devices, device_rng_states):
            device_mod.set_rng_state(device_rng_state, device)
