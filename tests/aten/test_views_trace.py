"""Each view / indexing statement records the same aten:: operator tree as torch.profiler.

The expected trees come from tests/data/profiler_trees_views.json (written by
tests/tools/capture_profiler_trees_views.py from torch 2.13); when torch is installed the
stored tree is also checked against a live torch.profiler capture, so a stale file shows up.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import tensortrace

DATA = Path(__file__).resolve().parent.parent / "data" / "profiler_trees_views.json"
CASES = json.loads(DATA.read_text())["cases"]


def _lists(nodes: Any) -> list[Any]:
    return [[name, _lists(children)] for name, children in nodes]


def ours(setup: str, statement: str) -> list[Any]:
    namespace: dict[str, Any] = {"torch": tensortrace}
    exec(setup, namespace)
    with tensortrace.record() as t:
        exec(statement, namespace)
    return _lists(t.operator_tree())


@pytest.mark.parametrize("case", CASES, ids=[c["statement"] for c in CASES])
def test_operator_tree(case: dict[str, Any]) -> None:
    assert ours(case["setup"], case["statement"]) == case["tree"]


@pytest.mark.parametrize("case", CASES[:8], ids=[c["statement"] for c in CASES[:8]])
def test_stored_trees_match_live_torch(case: dict[str, Any]) -> None:
    pytest.importorskip("torch")
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
    from capture_profiler_trees_views import tree

    assert tree(case["setup"], case["statement"]) == case["tree"]
