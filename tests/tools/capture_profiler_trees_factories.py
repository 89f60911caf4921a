"""Regenerate tests/data/profiler_trees_factories.json from torch.profiler (needs torch 2.13).

    python tests/tools/capture_profiler_trees_factories.py

For each program of tests/conformance/test_factories_trace.py (run after its SETUP), the
`aten::` operator tree that torch.profiler records: [[name, children], ...], nested by time.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch.profiler import ProfilerActivity, profile

TESTS = Path(__file__).resolve().parent.parent
OUT = TESTS / "data" / "profiler_trees_factories.json"


def tree(setup: str, src: str) -> list[Any]:
    ns: dict[str, Any] = {"torch": torch, "np": np}
    exec(setup, ns)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        exec(src, ns)
    events = sorted((e for e in prof.events() if e.name.startswith("aten::")),
                    key=lambda e: (e.time_range.start, -e.time_range.end))
    root: list[Any] = []
    stack: list[tuple[int, list[Any]]] = [(2**62, root)]  # (end, children)
    for e in events:
        while e.time_range.start >= stack[-1][0]:
            stack.pop()
        children: list[Any] = []
        stack[-1][1].append([e.name, children])
        stack.append((e.time_range.end, children))
    return root


def capture() -> dict[str, Any]:
    sys.path.insert(0, str(TESTS / "conformance"))
    import test_factories_trace as cases

    return {"torch_version": torch.__version__, "setup": cases.SETUP,
            "cases": {src: tree(cases.SETUP, src) for src in cases.PROGRAMS}}


if __name__ == "__main__":
    OUT.write_text(json.dumps(capture(), indent=1) + "\n")
    print(f"wrote {OUT}")
