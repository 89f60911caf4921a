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
from profiler_tree import profiled_tree

TESTS = Path(__file__).resolve().parent.parent
OUT = TESTS / "data" / "profiler_trees_reductions_linalg.json"


def tree(env: dict[str, Any], src: str) -> list[Any]:
    eval(src, env)  # warm up
    return profiled_tree(lambda: eval(src, env))


def capture() -> dict[str, Any]:
    sys.path.insert(0, str(TESTS / "conformance"))
    import test_reductions_linalg_trees as cases

    names = sorted(cases.CASES)
    torch.set_num_threads(cases.THREADS)
    return {
        "torch_version": torch.__version__,
        "sources": {n: cases.CASES[n] for n in names},
        "cases": {n: tree(cases._env(torch), cases.CASES[n]) for n in names},
    }


if __name__ == "__main__":
    OUT.write_text(json.dumps(capture(), indent=1) + "\n")
    print(f"wrote {OUT}")
