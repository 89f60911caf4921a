"""Run user code statement by statement under a trace, and name what survives.

The equivalent-code view (seed 000: `_t1 = torch.rand(3, 4)`, `del _t1`, ..., `r` survives)
needs two facts no C++ profiler records: where each user statement starts, and which variable
names the surviving tensors are bound to. `run_source` records a `statement` instant before each
top-level statement and a `names` instant at the end; `record_names` does the latter for any
namespace (the `with tensortrace.record()` block uses the caller's locals).
"""

from __future__ import annotations

import ast
from typing import Any

from tensortrace.trace import recorder
from tensortrace.trace.schema import NAMES, STATEMENT


def record_names(namespace: dict[str, Any]) -> None:
    """Record which user variables hold which tensor handles (objects with a `_handle` id)."""
    rec = recorder.current
    if rec is None:
        return
    names: dict[str, list[str]] = {}
    for name, value in namespace.items():
        handle = getattr(value, "_handle", None)
        if isinstance(handle, int) and not name.startswith("_"):
            names.setdefault(str(handle), []).append(name)
    if names:
        rec.instant(NAMES, "python", "names", {"names": names})


def run_source(source: str, namespace: dict[str, Any], filename: str = "<tensortrace>") -> None:
    """exec `source` one top-level statement at a time, each announced by a `statement` instant.

    An expression statement's value is bound to `_` (as the interactive prompt does) so that a
    bare expression's result is a survivor the code view can show.
    """
    module = ast.parse(source, filename=filename, mode="exec")
    lines = source.splitlines()
    for index, stmt in enumerate(module.body):
        text = "\n".join(lines[stmt.lineno - 1 : stmt.end_lineno])
        rec = recorder.current
        if rec is not None:
            rec.instant(
                STATEMENT,
                "python",
                f"line {stmt.lineno}",
                {
                    "index": index,
                    "lineno": stmt.lineno,
                    "end_lineno": stmt.end_lineno,
                    "source": text,
                },
            )
        if isinstance(stmt, ast.Expr):
            # `_ = <expr>` located where the expression is (a multi-line one included)
            target = ast.copy_location(ast.Name("_", ast.Store()), stmt)
            assign = ast.copy_location(ast.Assign(targets=[target], value=stmt.value), stmt)
            node: ast.Module | ast.Interactive = ast.Module(body=[assign], type_ignores=[])
        else:
            node = ast.Module(body=[stmt], type_ignores=[])
        ast.fix_missing_locations(node)
        exec(compile(node, filename, "exec"), namespace)
    record_names(namespace)
