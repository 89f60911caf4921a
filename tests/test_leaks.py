"""Nothing leaks: random programs of elementwise ops, some of which fail, free all they allocate.

Each program runs, its locals are dropped and gc.collect() runs; the CPU allocator's
memory_allocated must be back where it started, after a success or after an exception (the
binding's handle_th_errors unwinds the failed op's tensors, as C++ destructors would).
"""

from __future__ import annotations

import gc
import random

import pytest

import tensortrace

STATEMENTS = [
    # succeed
    "r = x + y * 2", "r = x - 1.5", "r = 2 - i", "r = x / y", "r = i / 2", "r = i // 3",
    "r = i % 3", "r = x ** 2", "r = 2 ** x", "r = -x", "r = abs(i)", "r = x.exp().log()",
    "r = x.sqrt()", "r = x.sigmoid().tanh()", "r = x.relu()", "r = x.clamp(0.2, 0.8)",
    "r = i.clamp(min=1.5)", "r = torch.maximum(x, y)", "r = x == y", "r = i < 2",
    "r = torch.logical_and(x, i)", "r = ~(x > 0.5)", "r = torch.where(x > 0.5, x, y)",
    "r = torch.where(x > 0.5, i, 2.5)", "r = x.masked_fill(x > 0.5, 0.0)",
    "x.mul_(2)", "x[0].sub_(1)", "x /= 3", "r = x.t() * y[:, None]",
    "r = torch.mul(x, y, out=torch.empty(3, 4, dtype=torch.float64))",
    "r = x.to(torch.float16) * 3", "r = torch.div(i, 3, rounding_mode='floor')",
    # fail: shape mismatch, bad dtype, bad arguments
    "r = x + torch.rand(5)", "r = (x > 0) - (x > 0)", "r = i.add_(x)", "r = i ** -2",
    "r = i // 0", "r = i % 0", "r = x.div(x, rounding_mode='bad')", "r = x.masked_fill(i, 1)",
    "r = torch.where(i, x, y)", "r = x.clamp()", "r = -(x > 0)", "r = ~x", "r = x & x",
    "r = torch.maximum(x, 2)", "r = x.mul_(torch.rand(5, 3, 4))", "r = x.sub(y, alpha=True)",
    "r = i.to(torch.int8).masked_fill(i > 0, 1000)", "r = torch.pow(2, 3)",
    "r = x.exp_() if False else i.exp_()",
    "r = torch.add(x, y, out=torch.empty(3, 4, dtype=torch.int64))",
]


def run_program(statements: list[str]) -> None:
    namespace = {"torch": tensortrace}
    exec("x = torch.rand(3, 4); y = torch.rand(4); i = (torch.rand(3, 4) * 10).to(torch.int64)",
         namespace)
    for statement in statements:
        try:
            exec(statement, namespace)
        except (RuntimeError, TypeError, NotImplementedError, ValueError, IndexError):
            pass
    namespace.clear()


@pytest.mark.parametrize("seed", range(40))
def test_random_elementwise_program_frees_everything(seed: int) -> None:
    rng = random.Random(seed)
    program = rng.sample(STATEMENTS, k=8)
    gc.collect()
    start = tensortrace.memory_allocated("cpu")
    run_program(program)
    gc.collect()
    assert tensortrace.memory_allocated("cpu") == start, program


@pytest.mark.parametrize("statement", [s for s in STATEMENTS if "r = " in s])
def test_each_statement_frees_everything(statement: str) -> None:
    gc.collect()
    start = tensortrace.memory_allocated("cpu")
    run_program([statement])
    gc.collect()
    assert tensortrace.memory_allocated("cpu") == start
