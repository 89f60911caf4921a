"""The object graph: the seed timeline's objects at the steps seed 000 talks about."""

from __future__ import annotations

import pytest

import tensortrace as torch
from tensortrace.replay.timeline import Timeline
from tensortrace.trace import Trace, run_source
from tensortrace.viz import ObjectGraph, object_graph, state_from_timeline

from .svgutil import DATA, check_golden, parse, texts, with_class

SEED = "r = torch.rand(3, 4)[0] + torch.rand(3, 4)"


@pytest.fixture(scope="module")
def seed_trace() -> Trace:
    with torch.record() as t:
        run_source(SEED, {"torch": torch})
    return t


def step_of(trace: Trace, kind: str, nth: int = 0, **args: object) -> int:
    hits = [
        i
        for i, e in enumerate(trace.events)
        if e.kind == kind and all(e.args.get(k) == v for k, v in args.items())
    ]
    return hits[nth]


def nodes(graph: ObjectGraph) -> dict[str, tuple[str, str | None]]:
    """data-object -> (kind, refcount) of every box."""
    root = parse(graph.to_svg())
    return {
        el.get("data-object"): (el.get("class").split()[1], el.get("data-refcount"))
        for el in with_class(root, "node")
    }


def edges(graph: ObjectGraph) -> set[tuple[str, str, str]]:
    root = parse(graph.to_svg())
    return {
        (
            "base" if "base" in el.get("class").split() else "ptr",
            el.get("data-src"),
            el.get("data-dst"),
        )
        for el in with_class(root, "edge")
    }


def test_after_getitem_a_view_shares_the_storage(seed_trace: Trace) -> None:
    graph = object_graph(seed_trace, step_of(seed_trace, "handle_new", 1))
    assert nodes(graph) == {
        "_t1": ("handle", None),
        "_t2": ("handle", None),
        "TensorImpl#1": ("impl", "2"),
        "TensorImpl#2": ("impl", "1"),
        "StorageImpl#1": ("storage", "2"),
        f"block@{graph.state.storages['StorageImpl#1'].addr}": ("dataptr", None),
    }
    assert ("ptr", "TensorImpl#1", "StorageImpl#1") in edges(graph)
    assert ("ptr", "TensorImpl#2", "StorageImpl#1") in edges(graph)
    assert ("base", "TensorImpl#2", "TensorImpl#1") in edges(graph)
    assert [el.get("data-object") for el in with_class(parse(graph.to_svg()), "focus")] == ["_t2"]


def test_del_t1_frees_nothing(seed_trace: Trace) -> None:
    # the decref that follows `del _t1`: TensorImpl#1 is still held by the view
    step = step_of(seed_trace, "handle_del", 0) + 1
    graph = object_graph(seed_trace, step)
    found = nodes(graph)
    assert "_t1" not in found
    assert found["TensorImpl#1"] == ("impl", "1")
    assert found["StorageImpl#1"] == ("storage", "2")
    assert len(graph.state.blocks) == 1
    captions = [t for el in with_class(parse(graph.to_svg()), "caption") for t in texts(el)]
    assert f"step {step}: decref TensorImpl#1 -> 1" in captions


def test_the_views_death_frees_the_first_storage(seed_trace: Trace) -> None:
    first = seed_trace.instants("alloc")[0].args["addr"]
    step = step_of(seed_trace, "free", 0)
    assert seed_trace.events[step].args["addr"] == first
    timeline = Timeline(seed_trace)
    before = state_from_timeline(timeline, step - 1)
    after = state_from_timeline(timeline, step)
    assert first in before.blocks and first not in after.blocks
    # by then the view's handle is gone and the view and its base are on their way out
    assert "_t2" not in {h.name for h in after.handles.values()}
    assert after.storages["StorageImpl#1"].refcount == 0
    root = parse(object_graph(seed_trace, step).to_svg())
    [block] = [
        el for el in with_class(root, "dataptr") if el.get("data-object") == f"block@{first}"
    ]
    assert "dim" in block.get("class").split()  # the DataPtr box of freed memory is drawn dashed


def test_at_the_end_only_named_survivors_remain() -> None:
    namespace = {"torch": torch}
    with torch.record() as t:
        run_source("a = torch.rand(2, 3)\nb = a[1]", namespace)
    graph = object_graph(t)
    assert {h.name for h in graph.state.handles.values()} == {"a", "b"}
    assert ("base", "TensorImpl#2", "TensorImpl#1") in edges(graph)
    del namespace


def test_empty_trace_draws_an_empty_graph() -> None:
    with torch.record() as t:
        pass
    root = parse(object_graph(t).to_svg())
    assert with_class(root, "empty")
    with pytest.raises(IndexError):
        object_graph(t, 3)


def test_golden_structure_of_the_stored_seed_trace() -> None:
    """Every box and edge at each top-level step of a stored trace (fixed addresses)."""
    trace = Trace.load(DATA / "viz_seed_trace.json")
    timeline = Timeline(trace)
    out: list[str] = []
    for i, e in enumerate(trace.events):
        if e.ph == "E" and e.depth == 0 and e.layer == "python":
            graph = object_graph(timeline, i)
            out.append(f"step {i} ({e.name}):")
            out += [f"  {kind} {name} refcount={rc}" for name, (kind, rc) in nodes(graph).items()]
            out += [f"  {k} {a} -> {b}" for k, a, b in sorted(edges(graph))]
    check_golden("viz_object_graph_seed.txt", "\n".join(out) + "\n")


def test_rename_and_repr(seed_trace: Trace) -> None:
    timeline = Timeline(seed_trace)
    raw = seed_trace.instants("make_intrusive")[1].args["object"]
    assert timeline.rename(f"Tensor({raw}, sizes=[3, 4])") == "Tensor(TensorImpl#1, sizes=[3, 4])"
    assert object_graph(timeline, 0)._repr_svg_().startswith("<svg ")
    assert ObjectGraph.from_trace(seed_trace, 0).to_svg() == object_graph(timeline, 0).to_svg()


def test_a_trace_and_its_timeline_draw_the_same_graph(seed_trace: Trace) -> None:
    timeline = Timeline(seed_trace)
    for step in range(0, len(seed_trace.events), 7):
        assert object_graph(seed_trace, step).to_svg() == object_graph(timeline, step).to_svg()


def test_before_the_first_event_nothing_exists(seed_trace: Trace) -> None:
    state = state_from_timeline(Timeline(seed_trace), -1)
    assert state.event is None and not state.impls and not state.handles
    assert object_graph(seed_trace, -1).state.describe_event() == "before the first event"


def test_the_view_base_instant_draws_the_base_edge(seed_trace: Trace) -> None:
    """as_view records the view's base; the graph draws the edge from that step on."""
    step = step_of(seed_trace, "view_base")
    assert ("base", "TensorImpl#2", "TensorImpl#1") not in edges(object_graph(seed_trace, step - 1))
    graph = object_graph(seed_trace, step)
    assert ("base", "TensorImpl#2", "TensorImpl#1") in edges(graph)
    assert graph.state.describe_event() == (
        "TensorImpl#2 is a view of TensorImpl#1 (holds it as base_)"
    )


def test_objects_that_are_not_a_trace_are_refused() -> None:
    with pytest.raises(TypeError):
        object_graph("not a trace")  # type: ignore[arg-type]


def test_every_instant_kind_is_described_in_words(seed_trace: Trace) -> None:
    """No caption falls back to `kind name` (which read "names names" at the end of a trace)."""
    for step, event in enumerate(seed_trace.events):
        if event.ph == "i":
            text = object_graph(seed_trace, step).state.describe_event()
            assert not text.startswith(f"{event.kind} {event.name}"), text
    names = step_of(seed_trace, "names")
    assert object_graph(seed_trace, names).state.describe_event() == "user variables: r"
