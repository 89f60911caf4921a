"""torch.profiler and torch.autograd.profiler against torch 2.13: the same events, per program.

Each program profiles a run in tensortrace and in torch and leaves in `out` what must agree:
the events in order with their input shapes and memory, the key averages' names and counts,
the table's name and count columns, the steps a schedule records, the errors. Times differ
(tensortrace is a Python runtime): they are never compared.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "conformance"))
from harness import check  # noqa: E402

PRELUDE = """
P = torch.profiler
def events(prof):
    return [(e.name, e.input_shapes, e.cpu_memory_usage, e.self_cpu_memory_usage,
             [c.name for c in e.cpu_children]) for e in prof.events()]
def averages(prof, **kw):
    return [(e.key, e.count, e.cpu_memory_usage, str(e.input_shapes))
            for e in prof.key_averages(**kw)]
def columns(table):
    # the name column, the count column and the rules: everything but the times
    lines = table.splitlines()
    return [ln[:57] + "|" + ln.rstrip()[-12:] for ln in lines[:-1]] + [lines[-1][:20]]
x = torch.rand(3, 4, requires_grad=True)
"""

PROGRAMS: dict[str, str] = {
    "recipe_events": "with P.profile(activities=[P.ProfilerActivity.CPU], record_shapes=True, "
    "profile_memory=True) as prof:\n"
    "    with P.record_function('model_inference'):\n"
    "        y = (x * 2).sum()\n"
    "    y.backward()\n"
    "out = events(prof)",
    "recipe_key_averages": "with P.profile(record_shapes=True, profile_memory=True) as prof:\n"
    "    with P.record_function('model_inference'):\n"
    "        y = (x * 2).sum()\n"
    "    y.backward()\n"
    "out = (averages(prof), averages(prof, group_by_input_shape=True))",
    "recipe_table_columns": "with P.profile(profile_memory=True) as prof:\n"
    "    with P.record_function('model_inference'):\n"
    "        y = (x.sin() * 2).sum()\n"
    "    y.backward()\n"
    "out = (columns(prof.key_averages().table(row_limit=30)), "
    "columns(prof.key_averages(group_by_input_shape=True).table(row_limit=5)))",
    "table_top_level_and_limits": "with P.profile() as prof:\n"
    "    with P.record_function('a_rather_long_name_for_a_user_scope_that_will_be_cut_short'):\n"
    "        y = x.exp().mean()\n"
    "out = columns(prof.key_averages().table(top_level_events_only=True, row_limit=3))",
    "training_step": "torch.manual_seed(0)\n"
    "model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))\n"
    "opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)\n"
    "inp, tgt = torch.randn(5, 4), torch.randint(0, 2, (5,))\n"
    "def step():\n"
    "    opt.zero_grad()\n"
    "    torch.nn.functional.cross_entropy(model(inp), tgt).backward()\n"
    "    opt.step()\n"
    "step()\n"
    "with P.profile(record_shapes=True) as prof:\n"
    "    step()\n"
    "out = [(k, c, s) for k, c, _, s in averages(prof, group_by_input_shape=True)]",
    "schedule_steps": "seen = []\n"
    "def ready(p):\n"
    "    seen.append([e.name for e in p.events() if e.name.startswith('ProfilerStep')])\n"
    "with P.profile(schedule=P.schedule(wait=1, warmup=1, active=2, repeat=2), "
    "on_trace_ready=ready) as prof:\n"
    "    for i in range(10):\n"
    "        (x * i).sum()\n"
    "        prof.step()\n"
    "out = seen",
    "schedule_actions": "s = P.schedule(skip_first=2, wait=1, warmup=2, active=3, repeat=1)\n"
    "out = [s(i).name for i in range(12)]",
    "schedule_skip_first_wait": "s = P.schedule(skip_first=1, wait=3, warmup=1, active=1, "
    "skip_first_wait=1)\nout = [s(i).name for i in range(9)]",
    "legacy_profile": "with torch.autograd.profiler.profile(record_shapes=True) as prof:\n"
    "    (x.sin() + 1).sum()\n"
    "out = ([(e.name, e.input_shapes) for e in prof.function_events], averages(prof))",
    "unfinished": "prof = torch.autograd.profiler.profile()\nbefore = len(prof.key_averages())\n"
    "with P.profile() as p:\n    inside = len(p.key_averages())\nout = (before, inside)",
    "record_function_decorator": "@P.record_function('helper')\n"
    "def helper(t):\n"
    "    return t * 3\n"
    "with P.profile() as prof:\n"
    "    helper(x).sum()\n"
    "out = [(e.name, [c.name for c in e.cpu_children]) for e in prof.events()]",
    "record_function_outside_profile": "with P.record_function('nothing'):\n    y = x * 2\nout = y",
    "total_average": "with P.profile() as prof:\n"
    "    (x * 2).sum()\n"
    "t = prof.key_averages().total_average()\n"
    "out = (t.key, t.count)",
    "activities": "out = sorted(a.name for a in P.supported_activities())",
}

ERRORS: dict[str, str] = {
    "bad_schedule": "P.schedule(wait=1, warmup=1, active=0)",
    "negative_step": "P.schedule(wait=1, warmup=1, active=1)(-1)",
}


def _program(src: str) -> str:
    return PRELUDE + src


@pytest.fixture(autouse=True)
def _no_stray_frees(capfd: pytest.CaptureFixture[str]) -> Iterator[None]:
    """A profile's memory counts every free inside it: the tensors earlier programs left in
    reference cycles are collected first, and the collector does not run during the program
    (capfd keeps torch's profiler's start and stop lines, Kineto's USDT log, off the terminal)."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_profiler(name: str) -> None:
    check(_program(PROGRAMS[name]))


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_profiler_errors(name: str) -> None:
    check(_program(ERRORS[name]))
