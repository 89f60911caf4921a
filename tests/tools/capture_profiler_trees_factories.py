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
from profiler_tree import profiled_tree

TESTS = Path(__file__).resolve().parent.parent
OUT = TESTS / "data" / "profiler_trees_factories.json"


def tree(setup: str, src: str) -> list[Any]:
    ns: dict[str, Any] = {"torch": torch, "np": np}
    exec(setup, ns)
    return profiled_tree(lambda: exec(src, ns), aten_only=True)


def capture() -> dict[str, Any]:
    sys.path.insert(0, str(TESTS / "conformance"))
    import test_factories_trace as cases

    return {
        "torch_version": torch.__version__,
        "setup": cases.SETUP,
        "cases": {src: tree(cases.SETUP, src) for src in cases.PROGRAMS},
    }


if __name__ == "__main__":
    OUT.write_text(json.dumps(capture(), indent=1) + "\n")
    print(f"wrote {OUT}")
