"""The default random generators of the emulated CUDA devices, one per device.

Mirrors `aten/src/ATen/cuda/CUDAGeneratorImpl.cpp` (getDefaultCUDAGenerator,
createCUDAGenerator) in role, not in algorithm. Note [The emulated CUDA generator]: PyTorch's
CUDA generator is counter-based Philox4x32-10 (a seed plus an offset, so that thousands of
threads draw independently), and its numbers differ from the CPU's mt19937 for the same seed.
tensortrace's CUDA generator is an mt19937 engine seeded like the CPU's: it has its own state
per device (torch.cuda.manual_seed seeds it, torch.manual_seed seeds it too), and after the
same seed `torch.rand(n, device='cuda')` draws what `torch.rand(n)` draws on the CPU. It does
NOT reproduce a real GPU's random numbers.
"""

from __future__ import annotations

import threading

from tensortrace.aten.cpu_generator_impl import (
    CPUGeneratorImpl,
    default_rng_seed_val,
    getNonDeterministicRandom,
)
from tensortrace.c10.cuda.cuda_functions import check_device_index, current_device, device_count


class CUDAGeneratorImpl(CPUGeneratorImpl):
    """One device's generator: an mt19937 engine (not Philox), see the note above."""

    device_type = "cuda"

    def __init__(self, device_index: int, seed_in: int = default_rng_seed_val) -> None:
        super().__init__(seed_in)
        self.device_index = device_index


_default_cuda_generators: dict[int, CUDAGeneratorImpl] = {}
_lock = threading.Lock()


def getDefaultCUDAGenerator(device_index: int = -1) -> CUDAGeneratorImpl:
    """The device's default generator, created on first use with a nondeterministic seed
    (CUDAGeneratorImpl seeds from default_rng_seed_val; torch's initial_seed() is random)."""
    index = current_device() if device_index < 0 else device_index
    check_device_index(index)
    gen = _default_cuda_generators.get(index)
    if gen is None:
        with _lock:
            gen = _default_cuda_generators.setdefault(
                index, CUDAGeneratorImpl(index, getNonDeterministicRandom())
            )
    return gen


def createCUDAGenerator(device_index: int = -1) -> CUDAGeneratorImpl:
    index = current_device() if device_index < 0 else device_index
    check_device_index(index)
    return CUDAGeneratorImpl(index)


def all_default_cuda_generators() -> list[CUDAGeneratorImpl]:
    return [getDefaultCUDAGenerator(i) for i in range(device_count())]
