"""Seeking a 100,000-event trace: Timeline build time, seek times, the player's payload size.

    python bench/bench_timeline.py [--events 100000] [--checkpoint-every 256]

Prints, from one run: the time to record the trace (for scale), the time to build its Timeline
(compile the deltas, derive the code view, snapshot every K events), the median and worst time
of `state_at(step)` over random steps and over the worst steps (those just before a
checkpoint, which replay K-1 events), and the replay payload's size in bytes per event (compact
JSON, as the TimelinePlayer ships it). Goal: any step in a few milliseconds.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import time

import tensortrace as torch
from tensortrace.replay.timeline import Timeline
from tensortrace.trace import Trace, run_source

SEED = "r = torch.rand(3, 4)[0] + torch.rand(3, 4)"


def record(events: int) -> Trace:
    """The seed statement repeated until the trace holds at least `events` events."""
    with torch.record() as probe:
        run_source(SEED, {"torch": torch})
    per_run = len(probe.events) - 20  # the loop has no per-statement instants and teardown
    runs = max(1, -(-events // per_run))
    with torch.record() as t:
        run_source(f"for _ in range({runs}):\n    {SEED}", {"torch": torch})
    return t


def seek_times(timeline: Timeline, steps: list[int]) -> list[float]:
    """Seconds per `state_at`, the cyclic garbage collector paused (its full passes over the
    trace's millions of objects would otherwise land on whichever seek triggers them)."""
    out = []
    gc.collect()
    gc.disable()
    try:
        for step in steps:
            start = time.perf_counter()
            timeline.state_at(step)
            out.append(time.perf_counter() - start)
    finally:
        gc.enable()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--checkpoint-every", type=int, default=256)
    parser.add_argument("--seeks", type=int, default=500)
    args = parser.parse_args()

    start = time.perf_counter()
    trace = record(args.events)
    recorded = time.perf_counter() - start
    n = len(trace.events)

    start = time.perf_counter()
    timeline = Timeline(trace, checkpoint_every=args.checkpoint_every)
    built = time.perf_counter() - start

    rng = random.Random(0)
    random_steps = [rng.randrange(n) for _ in range(args.seeks)]
    k = args.checkpoint_every
    worst_steps = [s for s in range(k - 2, n, k)][: args.seeks]  # K-1 events after a snapshot
    random_times = seek_times(timeline, random_steps)
    worst_times = seek_times(timeline, worst_steps)

    start = time.perf_counter()
    payload = json.dumps(timeline.payload(), separators=(",", ":"))
    payload_s = time.perf_counter() - start

    ms = 1000.0
    print(
        f"trace: {n} events, {len(timeline.compiled.frames)} frames, "
        f"{len(timeline.code)} code lines (recorded in {recorded:.2f} s)"
    )
    print(
        f"build Timeline (K={k}): {built * ms:.1f} ms "
        f"({built / n * 1e6:.2f} us/event, {len(timeline._checkpoints)} checkpoints)"
    )
    print(
        f"state_at, random steps: median {statistics.median(random_times) * ms:.3f} ms, "
        f"worst {max(random_times) * ms:.3f} ms ({len(random_times)} seeks)"
    )
    print(
        f"state_at, steps K-1 after a checkpoint: median "
        f"{statistics.median(worst_times) * ms:.3f} ms, worst {max(worst_times) * ms:.3f} ms"
    )
    print(
        f"player payload: {len(payload)} bytes = {len(payload) / n:.1f} bytes/event "
        f"(built and encoded in {payload_s * ms:.0f} ms)"
    )


if __name__ == "__main__":
    main()
