"""The caching allocator traced and replayed: frames, instants, segments at each step, the map.

The program is the seed's on the emulated device: three 48-byte requests share one 2 MiB segment,
a free goes back to the cache, a free waits on another stream, and a request is served from the
cache. Layouts are the ones CUDACachingAllocator.cpp's rules give (see
tests/c10/test_cuda_caching_allocator.py).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

import tensortrace
from tensortrace.c10.cuda import cuda_caching_allocator as cca
from tensortrace.cuda import memory
from tensortrace.replay.payload import decode_state
from tensortrace.replay.timeline import Timeline
from tensortrace.trace import Trace
from tensortrace.viz import memory_map
from tensortrace.widgets.player import PLAYER_JS

record = getattr(tensortrace, "record", None) or tensortrace.trace
SEG = 2 * 1024 * 1024
DCA = "c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::"
NODE = shutil.which("node")


@pytest.fixture
def seed_trace() -> Iterator[Trace]:
    memory.empty_cache()
    a = cca.allocator
    with record() as t:
        x = [a.allocate(48) for _ in range(3)]
        x[1].clear()  # back to the cache
        a.recordStream(x[2], 3)
        x[2].clear()  # waits for stream 3: free requested, completed at the next malloc
        y = a.allocate(100)  # served from the cache
    yield t
    x[0].clear()
    y.clear()
    memory.empty_cache()


def steps_of(t: Trace, kind: str) -> list[int]:
    return [i for i, e in enumerate(t.events) if e.kind == kind]


def test_frames_are_named_as_the_cpp(seed_trace: Trace) -> None:
    names = {e.name for e in seed_trace.events if e.ph == "B"}
    assert {
        DCA + n
        for n in (
            "malloc",
            "get_free_block",
            "alloc_block",
            "alloc_found_block",
            "free",
            "free_block",
            "try_merge_blocks",
        )
    } <= names
    assert "cudaMalloc" in names
    assert {e.layer for e in seed_trace.events if e.ph == "B"} == {"allocator"}
    # get_free_block finds nothing the first time, then alloc_block calls cudaMalloc
    first = [e.name for e in seed_trace.events if e.ph == "B"][:6]
    assert first == [
        "c10::cuda::CUDACachingAllocator::Native::NativeCachingAllocator::allocate",
        DCA + "malloc",
        DCA + "get_free_block",
        DCA + "alloc_block",
        "cudaMalloc",
        DCA + "alloc_found_block",
    ]


def test_segments_and_blocks_at_each_step(seed_trace: Trace) -> None:
    t = seed_trace
    tl = Timeline(t)
    [seg_step] = steps_of(t, "segment_alloc")
    allocs, frees = steps_of(t, "alloc"), steps_of(t, "free")
    completed = steps_of(t, "free_completed")

    def layout(step: int) -> list[tuple[int, int, str]]:
        [seg] = tl.state_at(step).segments
        assert (seg.pool, seg.bytes) == ("small", SEG)
        return [(b.offset, b.bytes, b.state) for b in seg.blocks]

    assert tl.state_at(seg_step).segments[0].blocks[0].state == "cached"  # not yet handed out
    assert layout(allocs[2]) == [
        (0, 512, "allocated"),
        (512, 512, "allocated"),
        (1024, 512, "allocated"),
        (1536, SEG - 1536, "cached"),
    ]
    assert layout(frees[0]) == [
        (0, 512, "allocated"),
        (512, 512, "cached"),
        (1024, 512, "allocated"),
        (1536, SEG - 1536, "cached"),
    ]
    # the free on stream 3's behalf is pending until the next malloc completes it
    assert layout(frees[1]) == [
        (0, 512, "allocated"),
        (512, 512, "cached"),
        (1024, 512, "pending"),
        (1536, SEG - 1536, "cached"),
    ]
    assert layout(completed[-1]) == [(0, 512, "allocated"), (512, SEG - 512, "cached")]
    last = allocs[3]
    assert layout(last) == [
        (0, 512, "allocated"),
        (512, 512, "allocated"),
        (1024, SEG - 1024, "cached"),
    ]
    state = tl.state_at(last)
    assert state.segments[0].blocks[1].from_cache is True
    assert state.segments[0].blocks[0].from_cache is False
    assert state.devices == {"cuda:0": {"allocated": 1024, "reserved": SEG}}
    assert "from the cache" in tl.describe_event(last)
    assert "waits for other streams" in tl.describe_event(frees[1])
    assert tl.describe_event(seg_step).startswith("cudaMalloc: small segment of 2097152 B")


def test_replay_survives_save_and_load(seed_trace: Trace, tmp_path: Path) -> None:
    seed_trace.save(tmp_path / "t.json")
    loaded = Trace.load(tmp_path / "t.json")
    last = len(loaded.events) - 1
    assert Timeline(loaded).state_at(last).segments == Timeline(seed_trace).state_at(last).segments


def test_chrome_memory_instants_are_cuda_ones(seed_trace: Trace) -> None:
    events = seed_trace.chrome_trace_events()["traceEvents"]
    mem = [e for e in events if e["name"] == "[memory]"]
    assert len(mem) == 6  # 4 allocs, 2 frees
    first = mem[0]["args"]
    assert {
        k: first[k]
        for k in ("Device Type", "Device Id", "Bytes", "Total Allocated", "Total Reserved")
    } == {
        "Device Type": 1,
        "Device Id": 0,
        "Bytes": 512,
        "Total Allocated": 512,
        "Total Reserved": SEG,
    }
    assert [e["args"]["Bytes"] for e in mem] == [512, 512, 512, -512, -512, 512]
    counters = [e for e in events if e.get("ph") == "C"]
    assert set(counters[0]["args"]) == {"cuda:0"}


def test_memory_map_draws_segments(seed_trace: Trace) -> None:
    t = seed_trace
    pending_step = steps_of(t, "free")[1]
    root = ET.fromstring(memory_map(t, pending_step).to_svg())

    def with_class(*classes: str) -> list[ET.Element]:
        return [el for el in root.iter() if set(classes) <= set(el.get("class", "").split())]

    [segment] = with_class("segment")
    assert segment.get("data-pool") == "small" and segment.get("data-bytes") == str(SEG)
    states = [el.get("class", "").split()[1] for el in with_class("segment-block")]
    assert states == ["allocated", "cached", "pending", "cached"]
    assert with_class("total-reserved") and with_class("total-allocated")
    served = ET.fromstring(memory_map(t, steps_of(t, "alloc")[3]).to_svg())
    marked = [el for el in served.iter() if "served-from-cache" in el.get("class", "")]
    assert [el.get("data-offset") for el in marked] == ["512"]


def test_oom_is_an_instant_and_a_failed_frame() -> None:
    memory.empty_cache()
    with record() as t, pytest.raises(cca.OutOfMemoryError):
        cca.allocator.allocate(cca.device_memory(0).capacity + 1)
    [oom] = [e for e in t.events if e.kind == "oom"]
    assert oom.args["device"] == "cuda:0" and oom.args["device_free"] > 0
    ends = [e for e in t.events if e.ph == "E" and "error" in e.args]
    assert ends[-1].args["error"].startswith("OutOfMemoryError: CUDA out of memory.")
    assert "out of memory" in Timeline(t).describe_event(t.events.index(oom))


def _python_segments(tl: Timeline, step: int) -> list[list[object]]:
    return [
        [
            s.addr,
            s.bytes,
            s.device,
            s.pool,
            [[b.offset, b.bytes, b.state, b.storage, b.from_cache] for b in s.blocks],
        ]
        for s in tl.state_at(step).segments
    ]


def test_payload_and_player_lay_segments_out_as_the_timeline(
    seed_trace: Trace, tmp_path: Path
) -> None:
    tl = Timeline(seed_trace)
    payload = json.loads(json.dumps(tl.payload()))
    steps = list(range(len(seed_trace.events)))
    for step in steps:
        assert decode_state(payload, step)["segments"] == _python_segments(tl, step), step
    if NODE is None:
        pytest.skip("node is not installed")
    (tmp_path / "player.mjs").write_text(PLAYER_JS)
    (tmp_path / "payload.json").write_text(json.dumps(payload))
    (tmp_path / "check.mjs").write_text(
        'import { createReplay, segmentsAt, memoryMapSvg } from "./player.mjs";\n'
        'import { readFileSync } from "fs";\n'
        'const r = createReplay(JSON.parse(readFileSync(process.argv[2], "utf8")));\n'
        f"const steps = {json.dumps(steps)};\n"
        "console.log(JSON.stringify(steps.map((s) => ({segments: segmentsAt(r, s),\n"
        "  svg: memoryMapSvg(r, s)}))));\n"
    )
    result = subprocess.run(
        [NODE, str(tmp_path / "check.mjs"), str(tmp_path / "payload.json")],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    shown = json.loads(result.stdout)
    for step, out in zip(steps, shown):
        assert out["segments"] == _python_segments(tl, step), step
    pending = steps_of(seed_trace, "free")[1]
    assert 'class="tt-seg-block tt-pending"' in shown[pending]["svg"]
    assert "allocated 512 B, reserved 2097152 B" in shown[pending]["svg"]
