"""Large reductions and copies against NumPy, timed call by call in alternation (issue #14).

    python bench/bench_reductions.py                   # 4M float32: sum, mean, max, argmax, clone
    python bench/bench_reductions.py --rounds 400 sum  # only ops whose name contains a word
    OMP_NUM_THREADS=1 python bench/bench_reductions.py # tensortrace on one intra-op thread

Goal (issue #14): 4M-element sum, mean, max and argmax within 1.2x NumPy with the default threads
(torch.get_num_threads(), one per core). On a machine shared with other work a single call's
time swings by several times, so each round calls NumPy, then tensortrace, then tensortrace at
a small size, once each; the figures are medians over the rounds:
- numpy, tensortrace: the medians of the per-call wall times at the large size;
- ratio: the median of the per-round ratios tensortrace / NumPy (each pair shares the machine's
  state of that moment, so a slow spell moves both sides);
- cpu: the same ratio of the CPU time the process spent in the call (all its threads): the work,
  without the time spent waiting for a core (a call that outlasts its time slice on a busy
  machine waits for every other runnable process before it goes on);
- fixed: tensortrace at 40,000 elements, above GRAIN_SIZE so that it takes the same (parallel)
  path with almost no element work: what the Python path costs, apart from the NumPy loops;
- calls: Python function frames entered by one tensortrace call at the large size (counted with
  sys.setprofile; it does not vary with the machine's load).
`--pool` adds a row per op with every parallel chunk handed to a pool thread whatever the
machine's load, to show what waking pool threads costs when the cores are busy.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import tensortrace
from tensortrace.aten import parallel

LARGE = 4 * 1024 * 1024
FIXED = 40_000  # above GRAIN_SIZE (32768): the parallel path, with little NumPy work

# name -> (NumPy's call on an array, tensortrace's call on a tensor)
CASES: dict[str, tuple[Callable[[np.ndarray], Any], Callable[[Any], Any]]] = {
    "sum": (np.sum, lambda t: t.sum()),
    "mean": (np.mean, lambda t: t.mean()),
    "max": (np.max, lambda t: t.max()),
    "argmax": (np.argmax, lambda t: t.argmax()),
    "min": (np.min, lambda t: t.min()),
    "clone": (np.copy, lambda t: t.clone()),
}
DEFAULT = ("sum", "mean", "max", "argmax", "clone")


def operand(numel: int) -> tuple[np.ndarray, Any]:
    """A float32 array of `numel` values in [0.5, 1.5) and a tensortrace tensor equal to it."""
    array = np.random.default_rng(0).random(numel, dtype=np.float32) + 0.5
    tensor = tensortrace.empty(numel)
    tensor.cdata.numpy_view()[...] = array
    return array, tensor


def python_calls(fn: Callable[[], object]) -> int:
    """Python function frames entered by one call of fn, after a warm-up call."""
    fn()
    calls = 0

    def count(frame: object, event: str, arg: object) -> None:
        nonlocal calls
        if event == "call":
            calls += 1

    sys.setprofile(count)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return calls - 1  # the profiler sees fn's own frame too


def interleaved(
    fns: dict[str, Callable[[], object]], rounds: int
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Per-call wall and CPU seconds of each fn, the fns called in turn, once each per round.

    The CPU time is the process's (every thread's), which does not count the time spent
    waiting for a core: on a busy machine it tells the work apart from the wait."""
    for fn in fns.values():  # warm up: pool threads, allocator, caches
        fn()
    wall: dict[str, list[float]] = {name: [] for name in fns}
    cpu: dict[str, list[float]] = {name: [] for name in fns}
    clock, cpu_clock = time.perf_counter, time.process_time
    for _ in range(rounds):
        for name, fn in fns.items():
            start, cpu_start = clock(), cpu_clock()
            fn()
            cpu[name].append(cpu_clock() - cpu_start)
            wall[name].append(clock() - start)
    return wall, cpu


def paired_ratio(a: list[float], b: list[float]) -> float:
    """The median of the per-round ratios a / b."""
    return statistics.median(x / y for x, y in zip(a, b))


def fmt(seconds: float) -> str:
    return f"{seconds * 1e6:8.0f} us"


def measure(name: str, array: np.ndarray, tensor: Any, small: Any, rounds: int) -> str:
    """One row: the medians of NumPy's and tensortrace's times, their ratio, the fixed cost."""
    np_fn, tt_fn = CASES[name]
    times, cpu = interleaved(
        {
            "numpy": lambda: np_fn(array),
            "tensortrace": lambda: tt_fn(tensor),
            "fixed": lambda: tt_fn(small),
        },
        rounds,
    )
    ratio = paired_ratio(times["tensortrace"], times["numpy"])
    cpu_ratio = paired_ratio(cpu["tensortrace"], cpu["numpy"])
    calls = python_calls(lambda: tt_fn(tensor))
    goal = "" if name == "clone" else f"  (goal 1.2x: {'met' if ratio <= 1.2 else 'NOT met'})"
    return (
        f"{fmt(statistics.median(times['numpy']))} "
        f"{fmt(statistics.median(times['tensortrace']))} {ratio:5.2f}x {cpu_ratio:5.2f}x "
        f"{fmt(statistics.median(times['fixed']))} {calls:6d}{goal}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("words", nargs="*", help="only the ops whose name contains a word")
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--numel", type=int, default=LARGE)
    parser.add_argument(
        "--pool",
        action="store_true",
        help="also time each op with every chunk on a pool thread, whatever the load "
        "(Note [A pool thread is woken only for a free core])",
    )
    args = parser.parse_args()
    names = [n for n in CASES if any(w in n for w in args.words)] if args.words else DEFAULT
    array, tensor = operand(args.numel)
    _, small = operand(FIXED)
    print(
        f"{args.numel} float32 elements, {args.rounds} rounds; tensortrace threads: "
        f"{tensortrace.get_num_threads()} (NumPy's loops run on one); cores free by the load "
        f"average: {parallel.free_cores()}"
    )
    header = (
        f"{'op':14s} {'numpy':>11s} {'tensortrace':>11s} {'ratio':>6s} {'cpu':>6s} "
        f"{'fixed (40k)':>11s} {'calls':>6s}"
    )
    print(header)
    print("-" * len(header))
    free_cores = parallel.free_cores
    for name in names:
        print(f"{name:14s} {measure(name, array, tensor, small, args.rounds)}")
        if args.pool:
            parallel.free_cores = lambda: tensortrace.get_num_threads()
            try:
                row = measure(name, array, tensor, small, args.rounds)
            finally:
                parallel.free_cores = free_cores
            print(f"{name + ' (pool)':14s} {row}")


if __name__ == "__main__":
    main()
