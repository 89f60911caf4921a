"""Seeking from shared checkpoints: the persistent map, and state_at against a full replay.

The reference state is rebuilt the slow way (every delta from event 0, every block walked), as
state_at did before its checkpoints shared structure (Note [A seek does not grow with the trace]).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tensortrace as torch
from tensortrace.replay.deltas import STORAGES, TENSORS
from tensortrace.replay.persistent import PMap
from tensortrace.replay.timeline import Timeline
from tensortrace.trace import Trace, run_source

SEED_TRACE = Path(__file__).parent.parent / "data" / "seed_000_trace.json"


@settings(max_examples=60, deadline=None)
@given(
    ops=st.lists(st.tuples(st.integers(0, 3000), st.booleans()), max_size=300),
    every=st.integers(1, 40),
)
def test_persistent_map_snapshots_never_change(ops: list[tuple[int, bool]], every: int) -> None:
    editor = PMap().edit()
    reference: dict[int, object] = {}
    snapshots = []
    for i, (key, keep) in enumerate(ops):
        if keep:
            reference[key] = editor_value = (key, i)
            editor.set(key, editor_value)
        else:
            reference.pop(key, None)
            editor.delete(key)
        if i % every == 0:
            snapshots.append((editor.snapshot(), dict(reference)))
    snapshots.append((editor.snapshot(), dict(reference)))
    for snapshot, expected in snapshots:
        assert dict(snapshot.items()) == expected
        assert list(snapshot.keys()) == sorted(expected) and len(snapshot) == len(expected)
        assert all(snapshot.get(k) == v for k, v in expected.items())


@pytest.fixture(scope="module")
def growing() -> Trace:
    """Tensors that keep piling up, views among them, some dying on the way."""
    namespace = {"torch": torch}
    with torch.record() as t:
        run_source(
            "xs = []\nfor i in range(12):\n    x = torch.rand(3, 4)\n"
            "    xs.append(x[i % 3] + 1)\n    if i % 4 == 3:\n        del xs[0]\n"
            "v = xs[-1][1:]",
            namespace,
        )
    return t


def _reference(timeline: Timeline, step: int) -> dict[str, object]:
    tables = timeline.tables_from_zero(step)
    sharing: dict[int, list[int]] = {}
    for key, row in sorted(tables[TENSORS].items()):
        if row.get("storage") is not None:
            sharing.setdefault(row["storage"], []).append(key)
    blocks = [b for b in timeline.compiled.blocks if b.alloc_step <= step]
    return {
        "tensors": {k: row.get("refcount") for k, row in tables[TENSORS].items()},
        "storages": {
            k: (row.get("refcount"), tuple(sharing.get(k, ())))
            for k, row in tables[STORAGES].items()
        },
        "handles": sorted(tables["h"]),
        "blocks": [(b.addr, b.alloc_step) for b in blocks],
        "live": [(b.addr, b.alloc_step) for b in blocks if b.live_at(step)],
    }


@pytest.mark.parametrize("every", [1, 5, 64, 256])
def test_state_at_equals_a_full_replay(growing: Trace, every: int) -> None:
    timeline = Timeline(growing, checkpoint_every=every)
    rng = random.Random(every)
    for step in [0, len(timeline) - 1, *rng.sample(range(len(timeline)), 40)]:
        state = timeline.state_at(step)
        assert {
            "tensors": {k: t.refcount for k, t in state.tensors.items()},
            "storages": {k: (s.refcount, s.tensors) for k, s in state.storages.items()},
            "handles": list(state.handles),
            "blocks": [(b.addr, b.alloc_step) for b in state.blocks],
            "live": [(b.addr, b.alloc_step) for b in state.live_blocks],
        } == _reference(timeline, step)


def test_state_views_read_like_dicts() -> None:
    timeline = Timeline(Trace.load(SEED_TRACE))
    state = timeline.state_at(len(timeline) // 2)
    assert dict(state.tensors) == {k: state.tensors[k] for k in state.tensors}
    assert "TensorImpl#1" not in state.tensors and -1 not in state.tensors
    with pytest.raises(KeyError):
        state.tensors[10**9]
    assert state.blocks[-1] == list(state.blocks)[-1] and state.blocks[:1] == [state.blocks[0]]
