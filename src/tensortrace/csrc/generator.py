"""torch.Generator and torch.manual_seed: the Python face of CPUGeneratorImpl.

Mirrors `torch/csrc/Generator.cpp` and `torch/random.py`. A Generator wraps one
CPUGeneratorImpl; `manual_seed` seeds the process-wide default generator, so that after
`manual_seed(s)`, `rand` draws PyTorch's exact numbers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensortrace.aten.cpu_generator_impl import (
    CPUGeneratorImpl,
    createCPUGenerator,
    getDefaultCPUGenerator,
)
from tensortrace.aten.cuda.cuda_generator_impl import (
    all_default_cuda_generators,
    createCUDAGenerator,
)
from tensortrace.c10.device import CPU, Device
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.csrc.dtype import DTYPES
from tensortrace.csrc.python_variable import TensorBase


class Generator:
    """torch.Generator(device='cpu')."""

    __slots__ = ("_cdata",)

    def __init__(self, device: str | Device = "cpu") -> None:
        dev = Device(device)
        TORCH_CHECK(
            dev.is_cpu() or dev.is_cuda(),
            "tensortrace has CPU and (emulated) CUDA generators only, got device ",
            device,
        )
        if dev.is_cuda():
            self._cdata: CPUGeneratorImpl = createCUDAGenerator(
                -1 if dev.index is None else dev.index
            )
        else:
            self._cdata = createCPUGenerator()

    @classmethod
    def _wrap(cls, impl: CPUGeneratorImpl) -> Generator:
        gen = cls.__new__(cls)
        gen._cdata = impl
        return gen

    @property
    def device(self) -> Device:
        index = getattr(self._cdata, "device_index", None)
        return CPU if index is None else Device("cuda", index)

    def manual_seed(self, seed: int) -> Generator:
        TORCH_CHECK(
            isinstance(seed, int) and not isinstance(seed, bool),
            "manual_seed expected a long, but got ",
            type(seed).__name__,
        )
        self._cdata.set_current_seed(seed)
        return self

    def seed(self) -> int:
        return self._cdata.seed()

    def initial_seed(self) -> int:
        return self._cdata.current_seed()

    def get_state(self) -> Any:
        """The generator state as a uint8 Tensor, like torch.Generator.get_state()."""
        # the binding layer's torch.tensor (not the package top, which imports this module)
        from tensortrace.csrc.python_torch_functions_manual import tensor

        # on the CPU whatever the default device (THPGenerator_getState makes it in C++, where
        # no DeviceContext reaches)
        state = list(np.frombuffer(self._cdata.get_state(), np.uint8))
        return tensor(state, dtype=_uint8(), device="cpu")

    def set_state(self, new_state: Any) -> Generator:
        """THPGenerator_setState, then check_rng_state: a uint8 CPU tensor of the state."""
        if not isinstance(new_state, TensorBase):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        if new_state.dtype is not _uint8() or new_state.device.type != "cpu":
            raise TypeError("RNG state must be a torch.ByteTensor")
        self._cdata.set_state(new_state.contiguous().numpy().tobytes())
        return self

    def __repr__(self) -> str:
        return f"<torch._C.Generator object at {id(self):#x}>"


def _uint8() -> Any:
    return DTYPES["uint8"]


default_generator = Generator._wrap(getDefaultCPUGenerator())


def manual_seed(seed: int) -> Generator:
    """Seed the default CPU generator and every CUDA device's (torch.manual_seed)."""
    result = default_generator.manual_seed(int(seed))
    for gen in all_default_cuda_generators():  # torch.cuda.manual_seed_all(seed)
        gen.set_current_seed(int(seed))
    return result


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()
