"""Note [Full collections deferred while recording]: the oldest generation waits while a trace
records, and the collector's thresholds are what they were once it stops."""

from __future__ import annotations

import gc
import sys

import pytest

import tensortrace as torch

pytestmark = pytest.mark.skipif(
    len(gc.get_threshold()) != 3 or sys.version_info >= (3, 14),
    reason="CPython 3.14's incremental collector has no threshold for the oldest generation",
)


@pytest.fixture(autouse=True)
def _thresholds_kept() -> object:
    saved = gc.get_threshold()
    yield
    gc.set_threshold(*saved)


def test_full_collections_wait_while_recording_and_resume_after() -> None:
    before = gc.get_threshold()
    with torch.record():
        during = gc.get_threshold()
        torch.rand(3, 4)[0] + torch.rand(3, 4)
    assert during[:2] == before[:2]  # young collections run as before
    assert during[2] > 1_000_000
    assert gc.get_threshold() == before


def test_thresholds_restored_when_the_recorded_block_raises() -> None:
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), torch.record():
        torch.ones(2) + torch.ones(3)
    assert gc.get_threshold() == before


def test_thresholds_the_program_sets_while_recording_stay() -> None:
    with torch.record():
        gc.set_threshold(500, 5, 5)
    assert gc.get_threshold() == (500, 5, 5)


def test_young_collections_still_run_while_recording() -> None:
    generations: list[int] = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            generations.append(info["generation"])

    gc.callbacks.append(note)
    try:
        with torch.record():
            # promoted often enough to fill the oldest generation's count many times over
            kept = [[i] for i in range(200_000)]
    finally:
        gc.callbacks.remove(note)
    assert len(kept) == 200_000
    assert 0 in generations and 1 in generations
    assert 2 not in generations
