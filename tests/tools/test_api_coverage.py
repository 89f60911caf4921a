"""docs/coverage.md is current: what tests/tools/api_coverage.py writes today."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("torch")

SCRIPT = Path(__file__).with_name("api_coverage.py")


def _module():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("api_coverage", SCRIPT)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def test_coverage_doc_is_current() -> None:
    module = _module()
    expected = module.render(module.compare())
    assert module.DOC.read_text() == expected, (
        "docs/coverage.md is stale: run `python tests/tools/api_coverage.py --write`")


def test_coverage_lists_what_part_b_added() -> None:
    groups = _module().compare()["groups"]
    covered = set(groups["torch functions"]["covered"])
    assert {"gather", "einsum", "topk", "unique", "meshgrid", "tril", "kron"} <= covered
