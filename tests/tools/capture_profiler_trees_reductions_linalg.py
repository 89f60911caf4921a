"""Regenerate tests/data/profiler_trees_reductions_linalg.json from torch.profiler (torch 2.13).

    python tests/tools/capture_profiler_trees_reductions_linalg.py

For each case of tests/conformance/test_reductions_linalg_trees.py (evaluated in its `_env`,
after one warm-up evaluation), the operator tree that torch.profiler records:
{case name: [[name, children], ...]}, nested by time.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import torch
from torch.profiler import ProfilerActivity, profile

TESTS = Path(__file__).resolve().parent.parent
OUT = TESTS / "data" / "profiler_trees_reductions_linalg.json"


def tree(env: dict[str, Any], src: str) -> list[Any]:
    eval(src, env)  # warm up
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        eval(src, env)
    events = sorted(prof.events(), key=lambda e: (e.time_range.start, -e.time_range.end))
    roots: list[Any] = []
    stack: list[tuple[Any, list[Any]]] = []
    for e in events:
        node: list[Any] = [e.name, []]
        while stack and not (stack[-1][0].time_range.start <= e.time_range.start
                             and e.time_range.end <= stack[-1][0].time_range.end):
            stack.pop()
        (stack[-1][1][1] if stack else roots).append(node)
        stack.append((e, node))
    return roots


def capture() -> dict[str, Any]:
    sys.path.insert(0, str(TESTS / "conformance"))
    import test_reductions_linalg_trees as cases

    names = sorted(cases.CASES)
    return {"torch_version": torch.__version__,
            "sources": {n: cases.CASES[n] for n in names},
            "cases": {n: tree(cases._env(torch), cases.CASES[n]) for n in names}}


if __name__ == "__main__":
    OUT.write_text(json.dumps(capture(), indent=1) + "\n")
    print(f"wrote {OUT}")
