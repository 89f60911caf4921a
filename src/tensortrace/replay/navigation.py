"""Jumping through a trace by kind of step: allocations, frees, operator calls, kernels, lines.

Like the "next/previous event of this kind" buttons of a trace viewer (Perfetto's flow and
search navigation over a torch.profiler trace). Each kind is a sorted list of event indices,
so next/previous is one bisect.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

from tensortrace.replay.code_view import CodeLine
from tensortrace.replay.state import Compiled
from tensortrace.trace import Trace
from tensortrace.trace.events import BEGIN, INSTANT
from tensortrace.trace.schema import ALLOC, FREE, STATEMENT

# kind -> what it stops at
NAV_KINDS: dict[str, str] = {
    "alloc": "an allocation ([memory] instant with positive bytes)",
    "free": "a free ([memory] instant with negative bytes)",
    "dispatch": "an operator call: the BEGIN of an `aten::` frame, as torch.profiler names it",
    "kernel": "the BEGIN of an outermost kernel-layer frame (the loop that touches data)",
    "statement": "the first event of a line of the equivalent code",
    "source": "a statement of the user's source (`statement` instants of run_source)",
}


def build_index(trace: Trace, compiled: Compiled, code: list[CodeLine]) -> dict[str, list[int]]:
    index: dict[str, list[int]] = {kind: [] for kind in NAV_KINDS}
    frames = compiled.frames
    for i, event in enumerate(trace.events):
        if event.ph == INSTANT:
            if event.kind in (ALLOC, FREE):
                index[event.kind].append(i)
            elif event.kind == STATEMENT:
                index["source"].append(i)
        elif event.ph == BEGIN:
            if event.name.startswith("aten::"):
                index["dispatch"].append(i)
            elif event.layer == "kernel":
                parent = frames[compiled.frame_of_begin[i]].parent
                if parent < 0 or frames[parent].layer != "kernel":
                    index["kernel"].append(i)
    index["statement"] = [line.start for line in code]
    return index


def next_step(steps: list[int], step: int) -> int | None:
    """The first step of the list after `step`, or None."""
    i = bisect_right(steps, step)
    return steps[i] if i < len(steps) else None


def prev_step(steps: list[int], step: int) -> int | None:
    """The last step of the list before `step`, or None."""
    i = bisect_left(steps, step)
    return steps[i - 1] if i > 0 else None
