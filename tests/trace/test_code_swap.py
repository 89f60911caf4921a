"""Note [Traced functions that cost nothing while idle]: a plain function is traced by code swap."""

from __future__ import annotations

import sys
from types import FrameType
from typing import Any

import tensortrace
from tensortrace.trace import code_swap, recorder, traced
from tensortrace.trace.recorder import traced_site_of_frame


@traced("native", "demo::scaled", "aten/src/ATen/native/Demo.cpp")
def scaled(x: int, factor: int = 2, *, offset: int = 0) -> int:
    return x * factor + offset


def _closure_function() -> Any:
    base = 10

    @traced("native", "demo::closed", "aten/src/ATen/native/Demo.cpp")
    def closed(x: int) -> int:
        return x + base

    return closed


def _frames_entered(fn: Any, *args: Any) -> int:
    calls = 0

    def count(frame: FrameType, event: str, arg: object) -> None:
        nonlocal calls
        if event == "call":
            calls += 1

    sys.setprofile(count)
    try:
        fn(*args)
    finally:
        sys.setprofile(None)
    return calls


def test_idle_a_swapped_function_is_the_function_itself() -> None:
    assert recorder.current is None
    scaled(0)  # a trace earlier in the session left its wrapper body, which restores it now
    own_code = scaled.__wrapped__.__code__  # type: ignore[attr-defined]
    assert scaled.__code__ is own_code  # no wrapper: its own code runs
    assert _frames_entered(scaled, 3) == 1
    assert scaled(3) == 6 and scaled(3, 3, offset=1) == 10


def test_recording_swaps_the_wrapper_in_and_out() -> None:
    own_code = scaled.__code__
    with tensortrace.record() as t:
        assert scaled.__code__ is not own_code
        assert scaled(3, offset=1) == 7  # the function's own defaults still apply
        assert scaled(2, 5) == 10
    # the wrapper body stays until the function next runs, which gives it its own code back
    assert scaled.__code__ is not own_code
    assert scaled(1) == 2
    assert scaled.__code__ is own_code
    assert _frames_entered(scaled, 3) == 1
    roots = t.roots()
    assert [(r.name, r.args, r.outcome) for r in roots] == [
        ("demo::scaled", {"x": 3, "factor": 2, "offset": 1}, {"result": 7}),
        ("demo::scaled", {"x": 2, "factor": 5, "offset": 0}, {"result": 10}),
    ]


def _stack_sites() -> list[str]:
    names = []
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        site = traced_site_of_frame(frame)
        if site is not None:
            names.append(site.name)
        frame = frame.f_back
    return names


@traced("native", "demo::probe", "aten/src/ATen/native/Demo.cpp")
def probe() -> list[str]:
    return _stack_sites()


def test_the_wrapper_body_names_its_frame_as_the_cpp() -> None:
    probe()  # gives probe its own code back if an earlier trace left the wrapper body
    assert "demo::probe" not in probe()  # idle: no wrapper frame on the stack
    with tensortrace.record():
        assert code_swap.is_active()
        assert "demo::probe" in probe()
    assert not code_swap.is_active()


def test_a_function_with_a_closure_keeps_its_wrapper() -> None:
    closed = _closure_function()
    assert closed.__code__.co_name == "wrapper"  # the generated wrapper, as before
    with tensortrace.record() as t:
        assert closed(1) == 11
    assert [r.name for r in t.roots()] == ["demo::closed"]


def test_a_trace_swaps_only_the_functions_that_ran_idle_since_the_last() -> None:
    with tensortrace.record():
        pass
    assert code_swap._running_own == []  # every function holds its wrapper body
    assert scaled(1) == 2  # runs idle: takes its own code back, noted for the next trace
    assert [swap.fn for swap in code_swap._running_own] == [scaled]
    with tensortrace.record() as t:
        assert scaled(2) == 4
    assert [r.name for r in t.roots()] == ["demo::scaled"]
    assert code_swap._running_own == []


def test_tracing_a_functions_unwrapped_copy_leaves_the_function_alone() -> None:
    # as natives.cuda_impl does: the CUDA function is the CPU function's body, traced anew
    def body(x: int) -> int:
        return x + 1

    cpu = traced("native", "demo::cpu", "aten/src/ATen/native/Demo.cpp")(body)
    traced("native", "demo::cuda", "aten/src/ATen/native/cuda/Demo.cu")(cpu.__wrapped__)
    with tensortrace.record() as t:
        assert cpu(1) == 2
    assert [(r.name, [c.name for c in r.children]) for r in t.roots()] == [("demo::cpu", [])]


def test_a_traced_function_is_prepared_when_a_trace_first_needs_it() -> None:
    # Note [Traced functions registered at import, prepared on first use]
    def tripled(x: int) -> int:
        return x * 3

    traced("native", "demo::tripled", "aten/src/ATen/native/Demo.cpp")(tripled)
    assert code_swap._pending[-1][0] is tripled  # no parameter list read yet
    assert tripled.__wrapped__(2) == 6  # type: ignore[attr-defined] # unwrapping works at once
    with tensortrace.record() as t:
        assert tripled(2) == 6
    assert code_swap._pending == []
    assert [r.name for r in t.roots()] == ["demo::tripled"]


def test_a_function_traced_during_a_trace_is_swapped_at_once() -> None:
    def quadrupled(x: int) -> int:
        return x * 4

    with tensortrace.record() as t:
        traced("native", "demo::quadrupled", "aten/src/ATen/native/Demo.cpp")(quadrupled)
        assert code_swap._pending == []
        assert quadrupled(1) == 4
    assert [r.name for r in t.roots()] == ["demo::quadrupled"]
