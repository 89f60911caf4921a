"""The trace schema: what the runtime records is what trace/schema.py declares, and the replay
reads structured facts, never rendered text."""

from __future__ import annotations

import ast
import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import tensortrace as torch
from tensortrace.c10.cuda import cuda_caching_allocator as cca
from tensortrace.cuda import memory
from tensortrace.trace import Trace, run_source, schema
from tensortrace.trace.legacy import upgrade_text

SRC = Path(__file__).parents[2] / "src" / "tensortrace"
PROGRAM = """
a = torch.rand(3, 4, requires_grad=True)
b = (a[0] * 2).sum()
b.backward()
c = torch.rand(2, 3)
d = c.t()
out = torch.empty(0)
torch.add(c, 1, out=out)
c.resize_(4, 4)
"""


@pytest.fixture(scope="module")
def program_trace() -> Trace:
    with torch.record() as t:
        run_source(PROGRAM, {"torch": torch})
    gc.collect()  # the autograd graph's cycles: no tensor may outlive the module's tests
    return t


@pytest.fixture
def cuda_trace() -> Iterator[Trace]:
    memory.empty_cache()
    a = cca.allocator
    with torch.record() as t:
        x = [a.allocate(48) for _ in range(3)]
        x[1].clear()
        a.recordStream(x[2], 3)
        x[2].clear()
        y = a.allocate(100)
    yield t
    x[0].clear()
    y.clear()
    memory.empty_cache()


def _summaries(value: Any) -> Iterator[dict[str, Any]]:
    if schema.is_summary(value):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _summaries(v)
    elif isinstance(value, list):
        for v in value:
            yield from _summaries(v)


def _check(trace: Trace) -> set[str]:
    kinds = set()
    for event in trace.events:
        if event.ph == schema.INSTANT:
            assert event.kind in schema.INSTANT_KINDS, event.kind
            declared = schema.INSTANT_ARGS[event.kind]
            missing = declared.__required_keys__ - set(event.args)  # type: ignore[attr-defined]
            assert not missing, (event.kind, missing)
            undeclared = set(event.args) - declared.__annotations__.keys()
            assert not undeclared, (event.kind, undeclared)
            kinds.add(event.kind)
        else:
            assert event.layer in schema.LAYERS
            for summary in _summaries(event.args):
                fields = schema.SUMMARY_FIELDS[summary[schema.SUMMARY]]
                assert fields.__required_keys__ <= set(summary)  # type: ignore[attr-defined]
                assert "Tensor(" in schema.render_summary(summary) or "#" in schema.render_summary(
                    summary
                )
    return kinds


def test_a_cpu_program_records_only_declared_facts(program_trace: Trace) -> None:
    kinds = _check(program_trace)
    assert {
        "statement",
        "names",
        "python_call",
        "handle_new",
        "handle_del",
        "make_intrusive",
        "incref",
        "decref",
        "delete",
        "view_base",
        "tensor_meta",
        "alloc",
        "free",
        "grad_fn",
        "storage_data",
    } <= kinds


def test_the_caching_allocator_records_only_declared_facts(cuda_trace: Trace) -> None:
    assert {"alloc", "free", "segment_alloc", "free_completed"} <= _check(cuda_trace)


def test_tensor_arguments_are_structured(program_trace: Trace) -> None:
    getitem = next(e for e in program_trace.events if e.name == "THPVariable_getitem")
    self_arg = next(iter(_summaries(getitem.args)))
    assert self_arg[schema.SUMMARY] == schema.HANDLE
    assert schema.split_ref(self_arg["impl"])[0] == "TensorImpl"  # type: ignore[index]
    assert isinstance(self_arg["handle"], int) and self_arg["sizes"] == [3, 4]


def test_the_replay_reads_no_rendered_text() -> None:
    """No module of replay/ imports `re`: it reads references and summaries as data."""
    for path in sorted((SRC / "replay").glob("*.py")):
        tree = ast.parse(path.read_text())
        imported = {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, (ast.Import, ast.ImportFrom))
            for alias in node.names
        }
        modules = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        assert "re" not in imported and "re" not in modules, path.name


def test_references() -> None:
    assert schema.split_ref(schema.object_ref("TensorImpl", 7)) == ("TensorImpl", 7)
    for bad in ("TensorImpl", "TensorImpl#", "#3", "TensorImpl#-1", "TensorImpl#٣", 7, None):
        assert schema.split_ref(bad) is None


@pytest.mark.parametrize(
    "text",
    [
        "_h1: TensorImpl#2 [3, 4] torch.float32",
        "Tensor(TensorImpl#2, sizes=[3, 4], Float)",
        "Tensor(TensorImpl#9, sizes=[], Long)",
        "Tensor(undefined)",
        "TensorImpl#7(sizes=[0], strides=[1], offset=0, Float)",
        "StorageImpl#3(48 bytes, refcount=1)",
        "AutogradMeta(requires_grad=True, grad_fn=None, base=TensorImpl#4)",
    ],
)
def test_format_1_texts_upgrade_to_the_summaries_that_render_them(text: str) -> None:
    upgraded = upgrade_text(text)
    assert schema.is_summary(upgraded)
    assert schema.render_summary(upgraded) == text


def test_other_texts_stay_text() -> None:
    for text in ("hello", "_h1: not a tensor", "Tensor(TensorImpl#2, sizes=[3, 4], Float) x"):
        assert upgrade_text(text) == text
