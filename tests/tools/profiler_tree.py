"""torch.profiler's operator events nested into `[name, children]` trees, as its viewers do.

Shared by the capture tools (which store the trees in tests/data) and by the live tests that
check the stored trees are still torch's. An event is the child of the innermost open event
whose time interval contains it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any


def nest_by_time(events: Iterable[Any], aten_only: bool = False) -> list[Any]:
    """Nest profiler events (with `.name` and `.time_range`) by time interval."""
    ordered = sorted(
        (e for e in events if not aten_only or e.name.startswith("aten::")),
        key=lambda e: (e.time_range.start, -e.time_range.end),
    )
    roots: list[Any] = []
    stack: list[tuple[Any, list[Any]]] = []  # (event, its node)
    for e in ordered:
        while stack and not (
            stack[-1][0].time_range.start <= e.time_range.start
            and e.time_range.end <= stack[-1][0].time_range.end
        ):
            stack.pop()
        node: list[Any] = [e.name, []]
        (stack[-1][1][1] if stack else roots).append(node)
        stack.append((e, node))
    return roots


def profiled_tree(run: Callable[[], object], aten_only: bool = False) -> list[Any]:
    """Run `run` under torch.profiler (CPU) and return its events as a tree."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU]) as prof:
        run()
    return nest_by_time(prof.events(), aten_only)
