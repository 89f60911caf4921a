"""torch.cuda.memory's API over the caching allocator: stats keys, summary, history, snapshots.

The summary is compared with torch 2.13's own memory_summary fed our statistics; the snapshot
pickle is read by torch 2.13's torch.cuda._memory_viz, whose every view must render.
"""

from __future__ import annotations

import pickle
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from tensortrace.c10.cuda import cuda_caching_allocator as cca
from tensortrace.c10.cuda.cuda_allocator_config import CUDAAllocatorConfig
from tensortrace.c10.exception import OutOfMemoryError
from tensortrace.cuda import memory

MiB = 1024 * 1024


@pytest.fixture
def device0() -> Iterator[cca.DeviceCachingAllocator]:
    """Device 0's allocator, emptied before and after; history off afterwards."""
    memory.empty_cache()
    da = cca.allocator.device_allocator_for(0)
    yield da
    memory._record_memory_history(enabled=None)
    memory.empty_cache()


def training_like_program(steps: int = 3) -> list[cca.DataPtr]:
    """Parameters that live, and per step activations, gradients and an update that die."""
    a = cca.allocator
    params = [a.allocate(n) for n in (4 * 4096, 4096, 300 * 1024, 3 * MiB)]
    for _ in range(steps):
        acts = [a.allocate(n) for n in (64 * 1024, 2 * MiB, 48, 12 * MiB)]
        grads = [a.allocate(p.ctx.nbytes) for p in params]  # type: ignore[union-attr]
        for act in reversed(acts):
            act.clear()
        for g in grads:
            g.clear()
    return params


def test_memory_stats_has_every_torch_key(device0: cca.DeviceCachingAllocator) -> None:
    stats = memory.memory_stats()
    arrays = (
        "active",
        "active_bytes",
        "allocated_bytes",
        "allocation",
        "inactive_split",
        "inactive_split_bytes",
        "requested_bytes",
        "reserved_bytes",
        "segment",
    )
    expected = {
        f"{a}.{p}.{m}"
        for a in arrays
        for p in ("all", "large_pool", "small_pool")
        for m in ("allocated", "current", "freed", "peak")
    }
    expected |= {
        f"{s}.{m}"
        for s in ("oversize_allocations", "oversize_segments")
        for m in ("allocated", "current", "freed", "peak")
    }
    expected |= {
        "max_split_size",
        "num_alloc_retries",
        "num_device_alloc",
        "num_device_free",
        "num_ooms",
        "num_oom_rejections",
        "num_sync_all_streams",
    }
    assert set(stats) == expected
    assert list(stats) == sorted(stats)
    assert stats["max_split_size"] == -1  # SIZE_MAX as int64, as torch reports it


def test_allocated_reserved_peaks_and_resets(device0: cca.DeviceCachingAllocator) -> None:
    base_alloc = memory.memory_allocated()
    x = cca.allocator.allocate(48)
    assert memory.memory_allocated() == base_alloc + 512
    assert memory.memory_allocated("cuda:0") == memory.memory_allocated(0)
    reserved = memory.memory_reserved()
    x.clear()
    assert memory.memory_allocated() == base_alloc
    assert memory.memory_reserved() == reserved  # cached, not returned
    assert memory.max_memory_allocated() >= base_alloc + 512
    memory.reset_peak_memory_stats()
    assert memory.max_memory_allocated() == memory.memory_allocated()
    assert memory.max_memory_reserved() == memory.memory_reserved()
    memory.reset_accumulated_memory_stats()
    assert memory.memory_stats()["allocation.all.allocated"] == 0
    memory.empty_cache()
    assert memory.memory_reserved() == sum(
        s["total_size"] for s in memory.memory_snapshot() if s["device"] == 0
    )
    with pytest.raises(ValueError, match="Expected a cuda device, but got: cpu"):
        memory.memory_allocated("cpu")


def test_memory_summary_is_torchs_table(device0: cca.DeviceCachingAllocator) -> None:
    torch_memory = pytest.importorskip("torch.cuda.memory")
    params = training_like_program()
    try:
        ours = memory.memory_summary()
        original = torch_memory.memory_stats
        torch_memory.memory_stats = memory.memory_stats  # torch's table, fed our statistics
        try:
            theirs = torch_memory.memory_summary(0)
            theirs_short = torch_memory.memory_summary(0, abbreviated=True)
        finally:
            torch_memory.memory_stats = original
        assert ours == theirs
        assert memory.memory_summary(abbreviated=True) == theirs_short
        assert "PyTorch CUDA memory summary, device ID 0" in ours
    finally:
        for p in params:
            p.clear()


def test_mem_get_info_fraction_and_raw_alloc(device0: cca.DeviceCachingAllocator) -> None:
    free, total = memory.mem_get_info()
    assert total == cca.device_memory(0).capacity and free == total - cca.device_memory(0).used
    ptr = memory.caching_allocator_alloc(1000)
    assert cca.allocator.allocated_blocks[ptr].size == 1024
    memory.caching_allocator_delete(ptr)
    with pytest.raises(RuntimeError, match="invalid device pointer: 0x"):
        memory.caching_allocator_delete(ptr)
    with pytest.raises(TypeError, match="Invalid type for fraction argument"):
        memory.set_per_process_memory_fraction(1)
    with pytest.raises(ValueError, match="Invalid fraction value: 1.5. Allowed range: 0~1"):
        memory.set_per_process_memory_fraction(1.5)
    memory.set_per_process_memory_fraction(0.25)
    try:
        assert memory.get_per_process_memory_fraction() == 0.25
        with pytest.raises(OutOfMemoryError, match=r"allowed; Of the allocated memory"):
            cca.allocator.allocate(total // 2)
    finally:
        memory.set_per_process_memory_fraction(1.0)


def test_record_history_and_snapshot_format(device0: cca.DeviceCachingAllocator) -> None:
    memory._record_memory_history(max_entries=100_000)
    params = training_like_program()
    params[0].clear()
    snap = memory._snapshot()
    assert set(snap) == {"segments", "device_traces", "allocator_settings"}
    seg = snap["segments"][0]
    assert set(seg) == {
        "device",
        "address",
        "total_size",
        "allocated_size",
        "active_size",
        "requested_size",
        "stream",
        "segment_type",
        "segment_pool_id",
        "is_expandable",
        "frames",
        "blocks",
    }
    for seg in snap["segments"]:
        assert sum(b["size"] for b in seg["blocks"]) == seg["total_size"]
        addr = seg["address"]
        for b in seg["blocks"]:
            assert set(b) == {"address", "size", "requested_size", "state", "frames"}
            assert b["address"] == addr and b["state"] in ("active_allocated", "inactive")
            addr += b["size"]
    trace = snap["device_traces"][0]
    actions = [e["action"] for e in trace]
    assert {"alloc", "free_requested", "free_completed", "segment_alloc"} <= set(actions)
    alloc_entry = next(e for e in trace if e["action"] == "alloc")
    assert set(alloc_entry) == {"action", "addr", "size", "stream", "time_us", "frames"}
    # the frames name this file's function (innermost first), and the C++-named traced frames
    names = [f["name"] for f in alloc_entry["frames"]]
    assert "training_like_program" in names
    assert any(n.endswith("DeviceCachingAllocator::malloc") for n in names)
    memory._record_memory_history(stacks="python")
    for p in params[1:]:
        p.clear()
    last = memory._snapshot()["device_traces"][0][-1]
    assert last["action"] == "free_completed"
    assert not any(f["filename"].startswith("<traced") for f in last["frames"])
    assert not any(f["name"] == "wrapper" for f in last["frames"])  # no @traced wrapper either
    assert snap["allocator_settings"]["max_split_size"] == -1


def test_history_options() -> None:
    with pytest.raises(RuntimeError, match="expected state to be 'state', 'all', or None"):
        memory._record_memory_history(enabled="some")
    with pytest.raises(RuntimeError, match="expected context to be"):
        memory._record_memory_history(context="x")
    with pytest.raises(RuntimeError, match="expected stacks to be 'python', or 'all'"):
        memory._record_memory_history(stacks="cpp")
    try:
        memory._record_memory_history(max_entries=3, skip_actions=["free_requested"])
        x = [cca.allocator.allocate(48) for _ in range(4)]
        for d in x:
            d.clear()
        trace = memory._snapshot()["device_traces"][0]
        assert [e["action"] for e in trace] == ["free_completed"] * 3  # the ring keeps 3
        memory._record_memory_history(enabled=None)  # stops and clears the history
        assert memory._snapshot()["device_traces"][0] == []
        memory._record_memory_history(enabled="state")  # live stacks, a history of one entry
        y = cca.allocator.allocate(48)
        snap = memory._snapshot()
        assert [e["action"] for e in snap["device_traces"][0]] == ["alloc"]
        live = [b for s in snap["segments"] for b in s["blocks"] if b["address"] == y.get()]
        assert live[0]["frames"][0]["name"] == "malloc"
        y.clear()
    finally:
        memory._record_memory_history(enabled=None)


def test_oom_is_recorded(device0: cca.DeviceCachingAllocator) -> None:
    memory._record_memory_history()
    with pytest.raises(OutOfMemoryError):
        cca.allocator.allocate(cca.device_memory(0).capacity + 1)
    oom = memory._snapshot()["device_traces"][0][-1]
    assert oom["action"] == "oom" and "device_free" in oom and "addr" not in oom


def test_torch_memory_viz_reads_our_snapshot(
    device0: cca.DeviceCachingAllocator, tmp_path: Path
) -> None:
    viz = pytest.importorskip("torch.cuda._memory_viz")
    memory._record_memory_history(max_entries=100_000)
    before = memory._snapshot()
    params = training_like_program()
    try:
        path = tmp_path / "snapshot.pickle"
        memory._dump_snapshot(str(path))
        with open(path, "rb") as f:
            snap = pickle.load(f)
        identity = lambda lines: lines  # noqa: E731 - no flamegraph.pl download
        assert "stream_0;seg_" in viz.segments(snap, format_flamegraph=identity)
        assert "active_allocated" in viz.memory(snap, format_flamegraph=identity)
        assert "only_after" in viz.compare(
            before["segments"], snap["segments"], format_flamegraph=identity
        )
        summary = viz.segsum(snap)
        assert "total_reserved" in summary and "Segment size mismatch" not in summary
        text = viz.trace(snap)
        assert "cudaMalloc" in text and "del " in text
        for html in (
            viz.trace_plot(snap),
            viz.segment_plot(snap),
            viz.trace_plot(snap, plot_segments=True),
            viz.trace_plot(snap, filter_freed=True),
        ):
            assert html.startswith("<!DOCTYPE html>") or "<html" in html[:500]
    finally:
        for p in params:
            p.clear()


def test_expandable_segments_true_falls_back_with_torchs_warning() -> None:
    config = CUDAAllocatorConfig()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        config.parseArgs("expandable_segments:True,max_split_size_mb:40")
    assert [str(w.message) for w in caught] == [
        "expandable_segments not supported on this platform"
    ]
    assert not config.expandable_segments and config.max_split_size == 40 * MiB


@pytest.mark.parametrize(
    "conf, exc, message",
    [
        ("foo:1", ValueError, "Unrecognized key 'foo' in Accelerator allocator config."),
        (
            "max_split_size_mb:10",
            ValueError,
            "CachingAllocator option max_split_size_mb too small, must be >= 20",
        ),
        (
            "garbage_collection_threshold:1.5",
            ValueError,
            "garbage_collect_threshold is invalid, set it in (0.0, 1.0)",
        ),
        (
            "roundup_power2_divisions:3",
            ValueError,
            "For roundups, the divisions has to be power of 2 ",
        ),
        (
            "roundup_power2_divisions:[256:3]",
            ValueError,
            "For roundups, the divisions has to be power of 2 or 0 to disable roundup ",
        ),
        (
            "roundup_power2_divisions:[3:2]",
            ValueError,
            "For roundups, the intervals have to be power of 2 ",
        ),
        (
            "expandable_segments:Maybe",
            ValueError,
            "Expected 'True' or 'False' at index 2 in ConfigTokenizer but got 'Maybe'",
        ),
        ("max_split_size_mb:abc", ValueError, "stoull"),
        ("max_split_size_mb:", RuntimeError, "Index out of bounds in ConfigTokenizer"),
    ],
)
def test_config_errors_are_torchs(conf: str, exc: type, message: str) -> None:
    with pytest.raises(exc) as err:
        CUDAAllocatorConfig().parseArgs(conf)
    assert str(err.value).endswith(message)
    torch_memory = pytest.importorskip("torch.cuda.memory")
    if conf.startswith("foo"):
        return  # a CPU build of torch ignores keys it has no device parser for
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(exc) as theirs:
            torch_memory._set_allocator_settings(conf)
    assert str(theirs.value).endswith(message)


def test_parsed_settings() -> None:
    config = CUDAAllocatorConfig()
    config.parseArgs(
        "max_split_size_mb:30, garbage_collection_threshold:0.6,"
        "roundup_power2_divisions:[256:1,>:4]"
    )
    assert config.max_split_size == 30 * MiB and config.garbage_collection_threshold == 0.6
    # 256 MiB is interval 8 (2^8 MiB); below it 1 division, from it on 4
    assert config.roundup_power2_divisions_ == [1] * 8 + [4] * 8
    assert config.roundup_power2_divisions(300 * MiB) == 4
    assert config.roundup_power2_divisions(2 * MiB) == 1
