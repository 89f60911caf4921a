"""Regenerate tests/data/profiler_trees_nn.json from torch.profiler (torch 2.13).

    python tests/tools/capture_profiler_trees_nn.py

For each case of tests/conformance/test_nn_trees.py (after its SETUP, and two warm-up runs so
the optimizers' state exists), the tree of the events torch.profiler records, nested by time,
with the same filter and duplicate merging the test applies to tensortrace's trace.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import torch
from profiler_tree import profiled_tree

TESTS = Path(__file__).resolve().parent.parent
OUT = TESTS / "data" / "profiler_trees_nn.json"
sys.path.insert(0, str(TESTS / "conformance"))

import test_nn_trees as cases  # noqa: E402


def _filter(tree: list[Any]) -> list[Any]:
    out: list[Any] = []
    for name, children in tree:
        inner = _filter(children)
        if cases.keep(None, name):
            out.append([name, inner])
        else:
            out.extend(inner)
    return out


def torch_tree(src: str) -> list[Any]:
    saved = torch.get_num_threads()
    torch.set_num_threads(cases.THREADS)
    try:
        env = cases._env(torch)
        eval(src, env)
        eval(src, env)
        return cases.merge_dups(_filter(profiled_tree(lambda: eval(src, env))))
    finally:
        torch.set_num_threads(saved)


def capture() -> dict[str, Any]:
    names = sorted(cases.CASES)
    return {
        "torch_version": torch.__version__,
        "setup": cases.SETUP,
        "sources": {n: cases.CASES[n] for n in names},
        "cases": {n: torch_tree(cases.CASES[n]) for n in names},
    }


if __name__ == "__main__":
    OUT.write_text(json.dumps(capture(), indent=1) + "\n")
    print(f"wrote {OUT}")
