"""One training step of a two-layer MLP: tensortrace untraced and traced, against torch.

    python bench/bench_training.py             # batch 64, 32 -> 64 -> 10, SGD with momentum
    python bench/bench_training.py --adam      # the same step with Adam

A step is zero_grad, forward (Linear, ReLU, Linear, cross_entropy), backward, optimizer step:
about 20 forward and backward operators and 4 parameter updates. It is timed in one run,
interleaved (torch, tensortrace, tensortrace traced, ...) so all share the machine's noise;
the best of several repeats is reported, per step, with the ratios to torch. The traced time
includes recording every frame, instant and refcount of the step (the events are kept, as a
learner's `with tensortrace.record():` keeps them).
"""

from __future__ import annotations

import sys
import timeit
from collections.abc import Callable
from typing import Any

import tensortrace

try:
    import torch
except ImportError:  # torch is optional: its column is left out
    torch = None

BATCH, IN, HIDDEN, OUT = 64, 32, 64, 10
REPEAT, NUMBER = 5, 10


def make_step(lib: Any, adam: bool) -> Callable[[], None]:
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(IN, HIDDEN), lib.nn.ReLU(), lib.nn.Linear(HIDDEN, OUT))
    opt = (
        lib.optim.Adam(model.parameters(), lr=1e-3)
        if adam
        else lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    )
    x = lib.randn(BATCH, IN)
    y = lib.randint(0, OUT, (BATCH,))

    def step() -> None:
        opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()

    step()  # the optimizer's state is made on the first step
    return step


def traced(step: Callable[[], None]) -> Callable[[], None]:
    record = tensortrace.record

    def run() -> None:
        with record():
            step()

    return run


def best(fn: Callable[[], None]) -> float:
    return min(timeit.repeat(fn, number=NUMBER, repeat=1)) / NUMBER


def main(argv: list[str]) -> None:
    adam = "--adam" in argv
    runs: dict[str, Callable[[], None]] = {}
    if torch is not None:
        runs["torch"] = make_step(torch, adam)
    ours = make_step(tensortrace, adam)
    runs["tensortrace"] = ours
    runs["tensortrace traced"] = traced(ours)
    times: dict[str, float] = {name: float("inf") for name in runs}
    for _ in range(REPEAT):  # interleaved: each library's best of REPEAT
        for name, fn in runs.items():
            times[name] = min(times[name], best(fn))
    print(
        f"one training step: MLP {IN}->{HIDDEN}->{OUT}, batch {BATCH}, "
        f"{'Adam' if adam else 'SGD(momentum)'}; threads: tensortrace "
        f"{tensortrace.get_num_threads()}"
        + (f", torch {torch.get_num_threads()}" if torch is not None else "")
    )
    base = times.get("torch")
    for name, t in times.items():
        ratio = f"{t / base:8.1f}x torch" if base else ""
        print(f"  {name:20s} {t * 1e3:9.3f} ms   {ratio}")
    if base:
        print(f"  traced / untraced    {times['tensortrace traced'] / times['tensortrace']:8.2f}x")


if __name__ == "__main__":
    main(sys.argv[1:])
