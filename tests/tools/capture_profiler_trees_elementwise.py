"""Regenerate tests/data/profiler_trees_elementwise.json from torch.profiler (needs torch 2.13).

    python tests/tools/capture_profiler_trees_elementwise.py

For each statement of tests/aten/test_elementwise_trace.py (run after its SETUP), the operator
tree that torch.profiler records for the statement: [[name, children], ...], nested by time.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import torch
from profiler_tree import profiled_tree

TESTS = Path(__file__).resolve().parent.parent
OUT = TESTS / "data" / "profiler_trees_elementwise.json"


def tree(setup: str, statement: str) -> list[Any]:
    namespace: dict[str, Any] = {"torch": torch}
    exec(setup, namespace)
    return profiled_tree(lambda: exec(statement, namespace))


def capture() -> dict[str, Any]:
    sys.path.insert(0, str(TESTS / "aten"))
    import test_elementwise_trace as cases

    statements = cases.STATEMENTS + cases.SCALAR_OVERLOADS
    return {
        "torch_version": torch.__version__,
        "setup": cases.SETUP,
        "cases": {s: tree(cases.SETUP, s) for s in statements},
    }


if __name__ == "__main__":
    OUT.write_text(json.dumps(capture(), indent=1) + "\n")
    print(f"wrote {OUT}")
