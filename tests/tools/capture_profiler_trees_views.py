"""Regenerate tests/data/profiler_trees_views.json from torch.profiler (needs torch 2.13).

    python tests/tools/capture_profiler_trees_views.py

For each (setup, statement) of the views-and-indexing cases, the `aten::` operator tree that
torch.profiler records for the statement: [[name, children], ...], nested by time.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch
from profiler_tree import profiled_tree

OUT = Path(__file__).resolve().parent.parent / "data" / "profiler_trees_views.json"

X = "x = torch.rand(3, 4)"
Y = "y = torch.rand(2, 3, 4)"
CASES: list[tuple[str, str]] = [
    (Y, "y.view(6, 4)"),
    (Y, "y.reshape(6, 4)"),
    (Y, "y.transpose(0, 1).reshape(6, 4)"),
    (Y + "; v = y[:, :, ::2]", "v.reshape(2, 3, 2)"),
    (Y, "y.flatten()"),
    (Y + "; v = y.transpose(0, 1)", "v.flatten()"),
    (Y, "y.unflatten(2, (2, 2))"),
    (X, "x[1:3]"),
    (X, "x.narrow(1, 0, 2)"),
    (Y, "y.permute(2, 0, 1)"),
    (Y, "y.transpose(0, 1)"),
    (X, "x.t()"),
    (X, "x.unsqueeze(0)"),
    ("z = torch.rand(3, 1, 4)", "z.squeeze()"),
    ("z = torch.rand(3, 1, 4)", "z.squeeze(1)"),
    ("z = torch.rand(3, 1, 1)", "z.squeeze((1, 2))"),
    ("z = torch.rand(3, 1)", "z.expand(3, 4)"),
    ("z = torch.rand(3, 1); w = torch.rand(3, 4)", "z.expand_as(w)"),
    (X, "x.diagonal()"),
    ("z = torch.rand(5, 4)", "z.split(2)"),
    ("z = torch.rand(5, 4)", "z.split([2, 3])"),
    ("z = torch.rand(5, 4)", "z.chunk(2)"),
    (X, "x.unbind()"),
    (X, "x.contiguous()"),
    (X + "; v = x.t()", "v.contiguous()"),
    (X + "; v = x.t()", "v.clone()"),
    (X, "x.select(1, 2)"),
    (X, "x.as_strided((2, 2), (1, 2), 1)"),
    (X, "x[1]"),
    (X, "x[1, 2]"),
    (X, "x[:, 1]"),
    (X, "x[None]"),
    (X, "x[...]"),
    (X, "x[..., 1]"),
    (X, "x[:]"),
    (X, "x[::2]"),
    (X, "x[1:2, None, ..., 0]"),
    (X, "x[[0, 2]]"),
    (X, "x[[0, 2], 1]"),
    (X, "x[True]"),
    (X + "; m = x > 0.5", "x[m]"),
    (X, "x[0] = 1"),
    (X + "; r = torch.rand(4)", "x[0] = r"),
    (X, "x[:, 0] = 2.5"),
    (X, "x[0, 0] = 1"),
    (X, "x[...] = 1"),
    (X, "x[[0, 1]] = 2.5"),
    (X + "; m = x > 0.5", "x[m] = 0"),
    ("s = torch.rand(6).untyped_storage()", "torch.Tensor().set_(s, 1, (2,), (2,))"),
]


def tree(setup: str, statement: str) -> list[Any]:
    namespace: dict[str, Any] = {"torch": torch}
    exec(setup, namespace)
    exec(statement, dict(namespace))  # warm up
    return profiled_tree(lambda: exec(statement, namespace), aten_only=True)


def capture() -> dict[str, Any]:
    return {
        "torch_version": torch.__version__,
        "cases": [{"setup": s, "statement": c, "tree": tree(s, c)} for s, c in CASES],
    }


if __name__ == "__main__":
    OUT.write_text(json.dumps(capture(), indent=1) + "\n")
    print(f"wrote {OUT}")
