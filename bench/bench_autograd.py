"""A backward pass: `(a * b).sum().backward()` and a small MLP training step, untraced and
traced, next to torch, in one run.

    python bench/bench_autograd.py

Cases (tensortrace untraced / traced / torch, best of several repeats, times per step):
- mul_sum: a, b of 3x4 requiring grad, forward + backward (the profiler-tree case);
- mlp_step: a 2-layer MLP (32 -> 64 -> 10) on a batch of 16, forward, MSE loss, backward and a
  plain SGD update under no_grad, written with ops only (no torch.nn), so both libraries run
  the same program.
Ratios are printed against torch (how much slower the Python model is than C++) and traced
against untraced (what recording every step costs).
"""

from __future__ import annotations

import timeit
from collections.abc import Callable
from typing import Any

import tensortrace

try:
    import torch
except ImportError:  # torch is optional
    torch = None


def mul_sum(lib: Any) -> Callable[[], None]:
    a = lib.rand(3, 4, requires_grad=True)
    b = lib.rand(3, 4, requires_grad=True)

    def step() -> None:
        (a * b).sum().backward()

    return step


def mlp_step(lib: Any) -> Callable[[], None]:
    lib.manual_seed(0)
    x, y = lib.rand(16, 32), lib.rand(16, 10)
    w1 = (lib.rand(64, 32) * 0.1).requires_grad_()
    b1 = lib.zeros(64, requires_grad=True)
    w2 = (lib.rand(10, 64) * 0.1).requires_grad_()
    b2 = lib.zeros(10, requires_grad=True)
    params = [w1, b1, w2, b2]

    def step() -> None:
        h = (x @ w1.t() + b1).relu()
        loss = ((h @ w2.t() + b2 - y) ** 2).mean()
        loss.backward()
        with lib.no_grad():
            for p in params:
                p.sub_(p.grad * 0.01)
                p.grad = None

    return step


def best(fn: Callable[[], None], number: int) -> float:
    return min(timeit.repeat(fn, number=number, repeat=5)) / number


def traced(fn: Callable[[], None]) -> Callable[[], None]:
    record = getattr(tensortrace, "record", None) or tensortrace.trace

    def run() -> None:
        with record():
            fn()

    return run


def main() -> None:
    print(
        f"{'case':10} {'untraced':>11} {'traced':>11} {'torch':>11} {'untraced/torch':>15} "
        f"{'traced/untraced':>16}"
    )
    for name, make, number in (("mul_sum", mul_sum, 50), ("mlp_step", mlp_step, 10)):
        ours = best(make(tensortrace), number)
        ours_traced = best(traced(make(tensortrace)), max(1, number // 5))
        theirs = best(make(torch), number) if torch is not None else float("nan")
        print(
            f"{name:10} {ours * 1e6:9.0f}us {ours_traced * 1e6:9.0f}us "
            f"{theirs * 1e6:9.1f}us {ours / theirs:14.0f}x {ours_traced / ours:15.1f}x"
        )


if __name__ == "__main__":
    main()
