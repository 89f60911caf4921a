"""The notebooks are committed with their outputs stripped, in the learner's order.

They run under `pytest --nbmake notebooks/`; this test only keeps the committed files clean, so a
diff shows the source a reader changes and never a stale output (or a multi-megabyte widget state).
"""

from __future__ import annotations

import json
from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
EXPECTED = [
    "01_seed_timeline.ipynb",
    "02_tensor_structure.ipynb",
    "03_strides_views.ipynb",
    "04_refcounting.ipynb",
    "05_dispatcher.ipynb",
    "06_trace_your_code.ipynb",
    "07_autograd.ipynb",
    "08_caching_allocator.ipynb",
]


def test_one_notebook_per_topic_in_order() -> None:
    assert sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")) == EXPECTED


def test_no_notebook_has_outputs() -> None:
    dirty = []
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        nb = json.loads(path.read_text())
        assert nb["nbformat"] == 4, path.name
        for index, cell in enumerate(nb["cells"]):
            if cell["cell_type"] != "code":
                continue
            if cell.get("outputs") or cell.get("execution_count") is not None:
                dirty.append(f"{path.name} cell {index}")
        if "widgets" in nb.get("metadata", {}):
            dirty.append(f"{path.name}: saved widget state in the metadata")
    assert not dirty, "strip outputs (jupyter nbconvert --clear-output --inplace): " + ", ".join(
        dirty
    )


def test_every_notebook_opens_with_a_title() -> None:
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        first = json.loads(path.read_text())["cells"][0]
        assert first["cell_type"] == "markdown", path.name
        source = "".join(first["source"])
        assert source.startswith(f"# {int(path.name[:2])}. "), path.name


def test_every_notebook_ends_with_an_exercise_that_a_hidden_cell_checks() -> None:
    """A course can hand out each notebook: a "Try it" prompt, an answer cell, a hidden check.

    The answer cell holds `answer = ...`; the check cell then prints the solution, so nbmake
    runs the solution's code on every CI run and an exercise cannot go unsolvable.
    """
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        prompt, answer, check = json.loads(path.read_text())["cells"][-3:]
        assert "".join(prompt["source"]).startswith("## Try it"), path.name
        assert "".join(answer["source"]).startswith("answer = ..."), path.name
        assert check["metadata"].get("jupyter", {}).get("source_hidden") is True, path.name
        source = "".join(check["source"])
        assert "solution" in source and "assert answer == solution" in source, path.name
