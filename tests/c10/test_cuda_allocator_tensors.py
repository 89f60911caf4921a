"""The caching allocator under real tensors on the emulated `cuda` device: no leaks, snapshots.

Random programs of ops on cuda tensors must leave memory_allocated where it started, and after
empty_cache() memory_reserved at 0; the snapshot of a training-like program must load in torch
2.13's torch.cuda._memory_viz and every view render. Skipped where the runtime has no cuda
device (the device's dispatch keys and factories come from the emulated-device work).
"""

from __future__ import annotations

import gc
import pickle
import random
from pathlib import Path

import pytest

import tensortrace as torch
from tensortrace.cuda import memory


def _has_cuda() -> bool:
    try:
        torch.empty(1, device="cuda")
    except (RuntimeError, TypeError, ValueError):
        return False
    return True


pytestmark = pytest.mark.skipif(not _has_cuda(), reason="no emulated cuda device in this build")


def random_program(rng: random.Random) -> None:
    live = [torch.rand(rng.randint(1, 8), rng.randint(1, 8), device="cuda") for _ in range(3)]
    for _ in range(25):
        a = rng.choice(live)
        op = rng.randrange(6)
        if op == 0:
            live.append(a + a)
        elif op == 1:
            live.append(a.t().contiguous())
        elif op == 2:
            live.append(a.sum(0))
        elif op == 3:
            live.append(a[0] * 2)
        elif op == 4:
            live.append(torch.rand(rng.randint(1, 300), rng.randint(1, 300), device="cuda"))
        elif len(live) > 1:
            live.pop(rng.randrange(len(live)))


def test_random_programs_leave_no_leak() -> None:
    gc.collect()
    start = memory.memory_allocated()
    for seed in range(8):
        random_program(random.Random(seed))
        gc.collect()
        assert memory.memory_allocated() == start
    if start == 0:
        memory.empty_cache()
        assert memory.memory_reserved() == 0


def training_step(w: torch.Tensor, b: torch.Tensor, batch: int) -> torch.Tensor:
    x = torch.rand(batch, w.shape[0], device="cuda")
    h = x.matmul(w) + b
    loss = (h * h).sum()
    grad_w = x.t().matmul(h * 2)
    w.sub_(grad_w * 0.01)
    return loss


def test_training_like_snapshot_renders_in_torch_memory_viz(tmp_path: Path) -> None:
    viz = pytest.importorskip("torch.cuda._memory_viz")
    memory._record_memory_history(max_entries=100_000)
    try:
        w = torch.rand(64, 32, device="cuda")
        b = torch.rand(32, device="cuda")
        for batch in (16, 17, 16, 300):
            training_step(w, b, batch)
        path = tmp_path / "train.pickle"
        memory._dump_snapshot(str(path))
    finally:
        memory._record_memory_history(enabled=None)
    with open(path, "rb") as f:
        snap = pickle.load(f)
    actions = {e["action"] for e in snap["device_traces"][0]}
    assert {"alloc", "free_requested", "free_completed", "segment_alloc"} <= actions
    frames = [f["name"] for e in snap["device_traces"][0] for f in e["frames"]]
    assert "training_step" in frames
    identity = lambda lines: lines  # noqa: E731
    assert viz.segments(snap, format_flamegraph=identity)
    assert viz.memory(snap, format_flamegraph=identity)
    assert viz.compare(snap["segments"], snap["segments"], format_flamegraph=identity) == ""
    assert "Segment size mismatch" not in viz.segsum(snap)
    assert "cudaMalloc" in viz.trace(snap)
    for html in (viz.trace_plot(snap), viz.segment_plot(snap)):
        assert "<html" in html[:500].lower() or html.startswith("<!DOCTYPE")
    del w, b
