"""Note [The allocator's mutex and the cyclic GC]: no garbage collection runs inside the
caching allocator, so a cycle's CUDA tensor is never freed halfway through a malloc."""

from __future__ import annotations

import gc
import sys
from typing import Any

import tensortrace as torch

# the DeviceCachingAllocator and its block pools: where blocks are split, moved and merged
ALLOCATOR_FILES = ("device_caching_allocator.py", "block_pool.py")


def _inside_the_allocator() -> bool:
    frame: Any = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename.endswith(ALLOCATOR_FILES):
            return True
        frame = frame.f_back
    return False


def test_no_collection_runs_inside_the_allocator() -> None:
    inside: list[bool] = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            inside.append(_inside_the_allocator())

    saved = gc.get_threshold()
    gc.callbacks.append(note)
    gc.set_threshold(1, 1, 1)  # a collection at nearly every allocation of a container
    try:
        kept = []
        for i in range(200):
            cycle: list[Any] = [torch.empty(1000 + i * 37, device="cuda")]
            cycle.append(cycle)  # only the collector frees this tensor
            del cycle
            kept.append(torch.empty(513 * (i % 7 + 1), device="cuda"))
            if len(kept) > 5:
                kept.pop(0)
        del kept
    finally:
        gc.set_threshold(*saved)
        gc.callbacks.remove(note)
    gc.collect()
    assert len(inside) > 100  # the collector did run, often
    assert not any(inside)
    assert torch.cuda.memory_allocated() == 0
