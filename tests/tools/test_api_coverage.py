"""docs/coverage.md is current: what tests/tools/api_coverage.py writes today.

The script runs in a fresh interpreter: `dir(torch)` grows as torch's submodules are imported
lazily (torch.profiler, ...), so only a fresh `import torch` gives the same list every time.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

SCRIPT = Path(__file__).with_name("api_coverage.py")
ROOT = SCRIPT.parents[2]


def _report() -> str:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, str(SCRIPT)], capture_output=True, text=True, env=env, check=True
    )
    return done.stdout


def test_coverage_doc_is_current() -> None:
    report = _report()
    assert (ROOT / "docs" / "coverage.md").read_text() == report, (
        "docs/coverage.md is stale: run `python tests/tools/api_coverage.py --write`"
    )
    for name in ("gather", "einsum", "topk", "unique", "meshgrid", "tril", "kron"):
        assert f"`{name}`" in report.split("Missing (")[0]  # listed as covered
