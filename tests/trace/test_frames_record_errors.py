"""Every frame an exception crosses records it (recorder.record_call), stubs included.

Issue #13: the DispatchStub's copy of begin/try/end lost errors, so `i // 0` recorded
`div_floor_stub {}` while the frames around it recorded the ZeroDivisionError.
"""

from __future__ import annotations

import gc
from typing import Any

import pytest

import tensortrace
from tensortrace.trace import run_source

record = getattr(tensortrace, "record", None) or tensortrace.trace

PROGRAMS = {
    "integer division by zero": ("i = torch.tensor([1, 2]); j = i // 0", "div_floor_stub"),
    "broadcast mismatch": ("torch.ones(2) + torch.ones(3)", "aten::add"),
    "index out of range": ("torch.rand(2, 3)[5]", "at::indexing::applySelect"),
}


def _walk(node: Any, ancestors: list[Any], out: list[tuple[Any, list[Any]]]) -> None:
    out.append((node, ancestors))
    for child in node.children:
        _walk(child, [*ancestors, node], out)


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_each_frame_the_exception_crosses_records_it(name: str) -> None:
    code, crossed = PROGRAMS[name]
    with record() as t, pytest.raises(Exception) as info:  # noqa: PT011 - any error will do
        run_source(code, {"torch": tensortrace})
    nodes: list[tuple[Any, list[Any]]] = []
    for root in t.roots():
        _walk(root, [], nodes)
    errored = [n for n, _ in nodes if "error" in n.outcome]
    assert errored, "no frame recorded the error"
    message = f"{type(info.value).__name__}: {info.value}"
    assert any(n.outcome["error"] == message for n in errored)
    # the exception escaped the program: every frame above a failed frame failed too
    for node, ancestors in nodes:
        if "error" in node.outcome:
            for above in ancestors:
                assert "error" in above.outcome, (above.name, "holds", node.name)
    assert any(n.name == crossed for n in errored), [n.name for n in errored]
    # the traceback holds the program's namespace (its tensors): free them for the next test
    del info
    gc.collect()
