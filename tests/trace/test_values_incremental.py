"""Note [What a step may have changed]: a capture reads only what the runtime says may have
changed, and notes exactly what reading every tracked tensor notes.

Each program runs twice under the same seed, once with `_trace_values.FULL_SCAN` (every tracked
TensorImpl read at every capture, the reference) and once as recorded normally; the values
tables must be equal, object for object once their process-wide numbers are renumbered.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tensortrace
from tensortrace import _trace_values
from tensortrace.c10.cpu_allocator import FLAGS
from tensortrace.trace import Trace, run_source

SETUP = "x = torch.rand(3, 4)\ny = torch.rand(3, 4)\ni = torch.arange(12).reshape(3, 4)\n"

STATEMENTS = [
    "r = x + y * 2",
    "x.mul_(2)",
    "x[0].sub_(1)",
    "x /= 3",
    "v = x[1]\nv.fill_(7)",
    "v = x.t()\nv.add_(1)",
    "x[:, 1] = 5",
    "x[i > 5] = 0",
    "y.copy_(x)",
    "y.zero_()",
    "x.resize_(2, 6)",
    "x.resize_(4, 4)",
    "x.t_()",
    "x.unsqueeze_(0)",
    "x.as_strided_((2, 2), (1, 2))",
    "x.set_(y)",
    "x.set_(torch.zeros(5))",
    "a = x.numpy()\na[...] = 3",
    "n = np.ones((2, 3), np.float32)\nz = torch.from_numpy(n)\nn[0, 0] = 9",
    "r = torch.cat([x.flatten(), y.flatten()])",
    "torch.add(x, 1, out=y)",
    "i.add_(1)",
    "r = i.view(4, 3)\nr.mul_(2)",
    "torch.set_default_dtype(torch.float64)\nr = torch.ones(2)\n"
    "torch.set_default_dtype(torch.float32)",
    "del y\ny = torch.rand(2, 2)",
    "r = x.sum(0, keepdim=True)",
    "x.data = torch.ones(2, 3)",
    "r = x.clone()\nr[0] = -1",
    "r = x.sort()",
    "x.uniform_()",
]


def _names_in_order(t: Trace) -> dict[str, str]:
    """TensorImpl#N / StorageImpl#N renumbered by first appearance in the events."""
    renamed: dict[str, str] = {}
    counts: dict[str, int] = {}
    text = json.dumps([e.args for e in t.events])
    for kind, name in re.findall(r"((TensorImpl|StorageImpl)#\d+)", text):
        if kind not in renamed:
            counts[name] = counts.get(name, 0) + 1
            renamed[kind] = f"{name}#{counts[name]}"
    return renamed


def _normalized(t: Trace) -> dict[int, Any]:
    renamed = _names_in_order(t)
    return {
        step: {
            table: {renamed.get(k, k): v for k, v in rows.items()} for table, rows in entry.items()
        }
        for step, entry in t.values.items()
    }


def _run(program: str, full_scan: bool) -> dict[int, Any]:
    previous = _trace_values.FULL_SCAN, FLAGS["caffe2_cpu_allocator_do_zero_fill"]
    _trace_values.FULL_SCAN = full_scan
    FLAGS["caffe2_cpu_allocator_do_zero_fill"] = True  # a resize's new memory, the same twice
    try:
        tensortrace.manual_seed(0)
        with tensortrace.record() as t:
            try:
                run_source(SETUP + program, {"torch": tensortrace, "np": np})
            except Exception:  # noqa: BLE001 - a failing statement is a program too
                pass
    finally:
        _trace_values.FULL_SCAN, FLAGS["caffe2_cpu_allocator_do_zero_fill"] = previous
        tensortrace.set_default_dtype(tensortrace.float32)
    return _normalized(t)


@pytest.mark.parametrize("statement", STATEMENTS)
def test_each_statement_notes_what_a_full_read_notes(statement: str) -> None:
    assert _run(statement, full_scan=False) == _run(statement, full_scan=True)


@pytest.mark.parametrize("seed", range(40))
def test_random_programs_note_what_a_full_read_notes(seed: int) -> None:
    program = "\n".join(random.Random(seed).sample(STATEMENTS, k=8))
    assert _run(program, full_scan=False) == _run(program, full_scan=True)


# the places that reach a storage's memory without StorageImpl.bytes_view, each marking the
# storage written itself (or, for the values capture, only reading it)
MEMORY_READERS = {
    "c10/storage_impl.py",  # bytes_view itself
    "aten/tensor_iterator_loops.py",  # operand_array: marks it written
    "aten/native/resize.py",  # the new memory of a resize: marks it written
    "_trace_values.py",  # the capture: reads
}


def test_memory_is_reached_only_where_it_is_marked_written() -> None:
    root = Path(tensortrace.__file__).parent
    reached = {
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        if "generated" not in path.parts
        and re.search(r"data_ptr_\.ctx|get_context\(\)", path.read_text(encoding="utf-8"))
    }
    assert reached == MEMORY_READERS, (
        "a new way to a storage's memory: go through StorageImpl.bytes_view(), or mark the "
        "storage in recorder.current.written (Note [What a step may have changed])"
    )
