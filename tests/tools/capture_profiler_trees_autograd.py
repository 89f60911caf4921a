"""Regenerate tests/data/profiler_trees_autograd.json from torch.profiler (needs torch 2.13).

    python tests/tools/capture_profiler_trees_autograd.py

For each case of tests/autograd/test_autograd_profiler_trees.py: the tree of events torch.profiler
records for the statement (run after its setup): the aten ops, and the autograd engine's record
functions (`autograd::engine::evaluate_function: MulBackward0`, the Node's own `MulBackward0`,
`detach`), as [[name, children], ...] nested by time.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import torch
from profiler_tree import profiled_tree

TESTS = Path(__file__).resolve().parent.parent
OUT = TESTS / "data" / "profiler_trees_autograd.json"


def tree(setup: str, statement: str) -> list[Any]:
    namespace: dict[str, Any] = {"torch": torch}
    torch.manual_seed(0)
    exec(setup, namespace)
    return profiled_tree(lambda: exec(statement, namespace))


def capture() -> dict[str, Any]:
    sys.path.insert(0, str(TESTS / "autograd"))
    import test_autograd_profiler_trees as cases

    return {
        "torch_version": torch.__version__,
        "cases": cases.CASES,
        "trees": {name: tree(*case) for name, case in cases.CASES.items()},
    }


if __name__ == "__main__":
    OUT.write_text(json.dumps(capture(), indent=1) + "\n")
    print(f"wrote {OUT}")
