"""Traces at scale: RAM, disk, save, load, Timeline build and seek for 10k, 100k and 1M events.

    python bench/bench_trace_scale.py [--events 10000,100000,1000000] [--checkpoint-every 256]
                                      [--no-values]

The workload grows: each loop iteration keeps one more tensor alive (`xs.append(x[i % 3] + 1)`),
the case where copying the whole state at each checkpoint grew quadratically. Printed per size,
from one run: bytes per event of the Trace in RAM (every object it reaches, counted once) and on
disk, save and load time (wall and CPU: the machine may be shared), the Timeline's build time
and the RAM it adds per event, and the median and worst `state_at` over random steps and over
the steps K-1 after a checkpoint (the longest replay), and the Chrome export's time and size
(`export_chrome_trace`). Goals (issue 12): <= 200 B/event in RAM, save and load of 1M events
under 5 s, worst seek under 10 ms at 1M and flat from 10k to 1M.

Values are recorded as by default (Note [Values beside the events]); a capture reads only what
may have changed (Note [What a step may have changed]), so recording stays linear while the
live tensors grow. `--no-values` records without them; the trace is otherwise the same.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from types import FunctionType, ModuleType
from typing import Any

import tensortrace as torch
from tensortrace.replay.timeline import Timeline
from tensortrace.trace import Trace, recorder, run_source

EVENTS_PER_ITERATION = 318  # of the loop body below, measured


def record(events: int) -> Trace:
    runs = max(1, events // EVENTS_PER_ITERATION)
    source = (
        f"xs = []\nfor i in range({runs}):\n    x = torch.rand(3, 4)\n    xs.append(x[i % 3] + 1)\n"
    )
    namespace = {"torch": torch}  # alive after the block, so `xs` is too at the trace's end
    with torch.record() as t:
        run_source(source, namespace)
    return t


_SHARED = (type, ModuleType, FunctionType)


def deep_size(root: Any, seen: set[int]) -> int:
    """Bytes of every object reachable from `root` not in `seen` (classes and modules aside)."""
    total = 0
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, _SHARED):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        stack.extend(gc.get_referents(obj))
    return total


def timed(fn: Any) -> tuple[Any, str]:
    """The result, and "wall s (CPU s)": on a shared machine the CPU time is the steadier."""
    start, cpu = time.perf_counter(), time.process_time()
    result = fn()
    return result, (f"{time.perf_counter() - start:.2f} s (CPU {time.process_time() - cpu:.2f} s)")


def seek_times(timeline: Timeline, steps: list[int]) -> list[float]:
    """Seconds per `state_at`, each step's best of 3 (on a shared machine a seek is sometimes
    descheduled for ~15 ms: that is the machine, not the step), the cyclic GC paused (its full
    passes over millions of objects would land on whichever seek triggers them)."""
    out = []
    gc.collect()
    gc.disable()
    try:
        for step in steps:
            best = float("inf")
            for _ in range(3):
                start = time.perf_counter()
                timeline.state_at(step)
                best = min(best, time.perf_counter() - start)
            out.append(best)
    finally:
        gc.enable()
    return out


def run(events: int, every: int, seeks: int, folder: Path) -> None:
    trace, recorded = timed(lambda: record(events))
    n = len(trace.events)
    ram = deep_size(trace, set())
    path = folder / f"trace_{events}.json"
    _, saved = timed(partial(trace.save, path))
    chrome = folder / f"trace_{events}.chrome.json"
    _, exported = timed(partial(trace.export_chrome_trace, chrome))
    chrome_bytes = chrome.stat().st_size
    chrome.unlink()
    del trace
    gc.collect()
    loaded_trace, loaded = timed(lambda: Trace.load(path))
    timeline, built = timed(lambda: Timeline(loaded_trace, checkpoint_every=every))
    seen: set[int] = set()
    loaded_ram = deep_size(loaded_trace, seen)
    timeline_ram = deep_size(timeline, seen)

    rng = random.Random(0)
    random_times = seek_times(timeline, [rng.randrange(n) for _ in range(seeks)])
    worst_times = seek_times(timeline, list(range(every - 2, n, every))[-seeks:])
    last = timeline.state_at(n - 1)
    ms = 1000.0
    print(f"{n} events ({len(last.tensors)} TensorImpls alive at the end; recorded in {recorded})")
    print(
        f"  RAM: trace as recorded {ram / n:.0f} B/event, as loaded (identical args shared) "
        f"{loaded_ram / n:.0f} B/event; its Timeline adds {timeline_ram / n:.0f} B/event"
    )
    print(f"  disk: {path.stat().st_size / n:.0f} B/event; save {saved}, load {loaded}")
    print(
        f"  Chrome export: {exported}, {chrome_bytes / 1e6:.1f} MB ({chrome_bytes / n:.0f} B/event)"
    )
    print(f"  Timeline build (K={every}): {built}, {len(timeline._checkpoints)} checkpoints")
    print(
        f"  seek: random median {statistics.median(random_times) * ms:.3f} ms, "
        f"worst {max(random_times) * ms:.3f} ms; K-1 after a checkpoint median "
        f"{statistics.median(worst_times) * ms:.3f} ms, "
        f"worst {max(worst_times) * ms:.3f} ms"
    )
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", default="10000,100000,1000000")
    parser.add_argument("--checkpoint-every", type=int, default=256)
    parser.add_argument("--seeks", type=int, default=300)
    parser.add_argument("--no-values", action="store_true", help="record no tensor values")
    args = parser.parse_args()
    if args.no_values:
        recorder.capture_values = None
    print(f"tensor values {'not ' if args.no_values else ''}recorded")
    with tempfile.TemporaryDirectory() as folder:
        for events in [int(e) for e in args.events.split(",")]:
            run(events, args.checkpoint_every, args.seeks, Path(folder))
            gc.collect()


if __name__ == "__main__":
    main()
