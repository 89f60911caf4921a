"""summarize (trace/arguments.py): the answers learned per type equal the first ones."""

from __future__ import annotations

from enum import Enum
from typing import Any

from tensortrace.trace.arguments import MAX_SEQUENCE_ITEMS, summarize
from tensortrace.trace.columns import EventColumns
from tensortrace.trace.events import Event


class _Built:
    """A type with a _trace_summary that fails until __init__ has set its field."""

    value: int

    def _trace_summary(self) -> dict[str, Any]:
        return {"$": "Built", "value": self.value}


class _Color(Enum):
    RED = 1


class _Named:
    pass


def test_a_type_learned_once_is_summarized_as_the_first_time() -> None:
    half = _Built()  # `self` of an __init__ that has not run yet: named
    assert summarize(half) == "_Built"
    whole = _Built()
    whole.value = 3
    for _ in range(2):  # the first call learns the type, the second uses what it learned
        assert summarize(whole) == {"$": "Built", "value": 3}
        assert summarize(half) == "_Built"
        assert summarize(_Named()) == "_Named"
        assert summarize(_Color.RED) == "_Color.RED"


def test_sequences_of_plain_items_and_of_objects() -> None:
    assert summarize((3, 4)) == [3, 4] and summarize([1.5, None, "a", True]) == [
        1.5,
        None,
        "a",
        True,
    ]
    assert summarize([_Named(), 2]) == ["_Named", 2]  # an item that is no number: summarized
    long = list(range(MAX_SEQUENCE_ITEMS + 2))
    assert summarize(long) == long[:MAX_SEQUENCE_ITEMS] + [f"... ({len(long)} items)"]
    assert summarize(tuple(long)) == summarize(long)


def test_columns_of_no_events_and_of_shared_strings() -> None:
    empty = EventColumns.from_events([])
    assert len(empty) == 0 and list(empty) == [] and empty.arg_texts == []
    events = [
        Event("B", "f", "python", 1, 0, 0, "", {"args": {}}),
        Event("i", "x", "refcount", 2, 1, -1, "incref", {"object": "x", "refcount": 2}),
        Event("E", "f", "python", 3, 0, 0, "", {"args": {}}),
    ]
    columns = EventColumns.from_events(events)
    assert list(columns) == events
    assert columns.strings == ["f", "python", "", "x", "refcount", "incref"]  # first seen first
    assert columns.arg_texts == ['{"args":{}}', '{"object":"x","refcount":2}']


def test_a_tensors_kept_summary_follows_its_sizes_and_dtype() -> None:
    """Note [A tensor's summary, kept]: the summary made once is used again only while the
    TensorImpl holds the same sizes and TypeMeta; a resize_, as_strided_ or `.data =` shows."""
    import tensortrace as torch

    x = torch.zeros(2, 3)
    at_x = x.cdata
    first = summarize(at_x)
    assert first["sizes"] == [2, 3] and first["dtype"] == "Float"
    assert summarize(at_x) is first  # kept
    x.resize_(6)
    assert summarize(at_x)["sizes"] == [6]
    x.as_strided_((3, 2), (1, 3))
    assert summarize(at_x)["sizes"] == [3, 2]
    x.data = torch.zeros(3, 2, dtype=torch.float64)
    assert summarize(at_x)["dtype"] == "Double"
    assert first["sizes"] == [2, 3]  # an event's args are never edited
