"""What a frame records of its arguments and its result: `summarize`, never the data itself.

Mirrors the inputs torch.profiler records with `record_shapes=True` (`torch/csrc/profiler/
collection.cpp`, the shapes and dtypes of an op's inputs): a tensor is described by its
TensorImpl's name, sizes and dtype, an object by its type name, a number as itself.

Note [Summaries by type]: `summarize` runs for most arguments of every traced frame, so what
it decides depends only on the value's type and is learned once per type: a type described by
its name alone, or by its `_trace_summary` method, is looked up in one dict; a list or tuple of
plain numbers (sizes, strides) is copied by C loops, with no call per item.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from types import FunctionType
from typing import Any

MAX_SEQUENCE_ITEMS = 8
# summarize's fast path: exact types only (an IntEnum is no `int` here, so it is still named)
_PLAIN_TYPES = frozenset({type(None), bool, int, float, str})
# `_all_plain(map(type, values))`: every value of a plain type, tested in one C call (a frozenset's
# issuperset walks an iterable that is no set, and stops at the first type not in it)
_all_plain = _PLAIN_TYPES.issuperset
# Note [A summary by one lookup]: what summarize answers for a value of a type it has met
# whose answer depends only on the type's kind, learned as it meets them: a class with its own
# `_trace_summary` (a Tensor, a THPVariable), an enum (`str`), or a type described by its name
# alone (a TensorIterator, an allocator: its name's `str.format`, which returns the name
# itself, having no `{}` to fill); as one function of the value. summarize, describe_args and
# record_call look a value's type up here first. A traced
# wrapper describes an argument with one lookup here and one call (parameter_lists._TRACED),
# not a call to summarize first. A summary method that raises AttributeError for an object
# still being constructed (the `self` of its `__init__`) sends the wrapper to describe_args,
# which raises it again: TensorImpl's and StorageImpl's, made in every op, return their type's
# name for it instead, as summarize does, without the two exceptions.
DESCRIBE_BY_TYPE: dict[type, Callable[[Any], Any]] = {}


def summarize(value: Any) -> Any:
    """A short, JSON-safe description of an argument or result, never the data itself."""
    kind = type(value)
    if kind in _PLAIN_TYPES:  # most arguments: one set lookup, the answer unchanged
        return value
    if (kind is list or kind is tuple) and len(value) <= MAX_SEQUENCE_ITEMS:
        if _all_plain(map(type, value)):  # sizes and strides: copied in C, no call
            return [*value]
    describe = DESCRIBE_BY_TYPE.get(kind)  # Note [A summary by one lookup]
    if describe is not None:
        try:
            return describe(value)
        except AttributeError:  # an object still being constructed (`self` of an __init__)
            return kind.__name__
    if isinstance(value, Enum):  # before int: ScalarType.Float reads better than 6
        # an IntEnum's members hash in C: each one's text is found by one C lookup
        DESCRIBE_BY_TYPE[kind] = _EnumTexts().__getitem__ if isinstance(value, int) else str
        return str(value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    summary = getattr(value, "_trace_summary", None)
    if summary is not None:
        if (
            isinstance(getattr(kind, "_trace_summary", None), FunctionType)
            and getattr(summary, "__self__", None) is value
        ):  # the class's own method: the same for every value of the type
            DESCRIBE_BY_TYPE[kind] = kind._trace_summary
        try:
            return summary()
        except AttributeError:
            return kind.__name__
    if isinstance(value, (tuple, list)):  # a subclass of one (a list or tuple is looked up)
        return _sequence_summary(value)
    if isinstance(value, complex):
        return repr(value)
    if getattr(kind, "_trace_summary", None) is None:  # always just its name: remember that
        DESCRIBE_BY_TYPE[kind] = kind.__name__.format
    return kind.__name__


def _sequence_summary(value: list[Any] | tuple[Any, ...]) -> list[Any]:
    """summarize's answer for a list or tuple, DESCRIBE_BY_TYPE's function for both types
    (Note [A summary by one lookup]): sizes and strides (plain items) copied by C loops, else
    each item summarized, the first MAX_SEQUENCE_ITEMS of them."""
    if len(value) <= MAX_SEQUENCE_ITEMS and _all_plain(map(type, value)):
        return [*value]  # a list display: no call to list()
    plain = _PLAIN_TYPES
    items = [v if type(v) in plain else summarize(v) for v in value[:MAX_SEQUENCE_ITEMS]]
    if len(value) > MAX_SEQUENCE_ITEMS:
        items.append(f"... ({len(value)} items)")
    return items


DESCRIBE_BY_TYPE[list] = DESCRIBE_BY_TYPE[tuple] = _sequence_summary


class _EnumTexts(dict[Any, str]):
    """`str` of each member of an IntEnum (a ScalarType), made when first asked for: then a
    summary is a lookup with no Python call (an IntEnum hashes as its int; an Enum's hash is
    a Python method, so an Enum is summarized by `str`)."""

    def __missing__(self, member: Any) -> str:
        text = self[member] = str(member)
        return text


def describe_args(names: tuple[str, ...], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The arguments of a traced call as its begin event records them, by parameter name."""
    # plain loops with summarize's fast paths inlined: no comprehension frames per event, and a
    # tensor's summary read straight from its type's method, an iterator's name from its type's
    # (Note [Summaries by type]). The method raises AttributeError for an object still being
    # constructed (the `self` of a TensorImpl's __init__), which summarize names by its type.
    plain, by_type = _PLAIN_TYPES, DESCRIBE_BY_TYPE
    described = {}
    for n, v in zip(names, args):
        kind = type(v)
        if kind in plain:
            described[n] = v
        else:
            describe = by_type.get(kind)  # Note [A summary by one lookup]
            if describe is not None:
                try:
                    described[n] = describe(v)
                except AttributeError:  # being constructed: summarize's answer
                    described[n] = kind.__name__
            else:
                described[n] = summarize(v)
    extra = args[len(names) :]
    if extra:
        # Note [Plain arguments copied in C]: most `*args` (sizes, dims) and most keyword
        # arguments (dtype=None, pin_memory=False) are plain values, kept as themselves: one
        # C pass tests their types and one copies them; only the others are looked at one by one
        if _all_plain(map(type, extra)):
            described["*args"] = [*extra]
        else:
            items = []  # a loop, not a comprehension: no frame of its own
            for v in extra:
                kind = type(v)
                if kind in plain:
                    items.append(v)
                else:  # a kernel's tensors: their summaries as above
                    describe = by_type.get(kind)
                    if describe is not None:
                        try:
                            items.append(describe(v))
                        except AttributeError:
                            items.append(kind.__name__)
                    else:
                        items.append(summarize(v))
            described["*args"] = items
    if kwargs:
        if _all_plain(map(type, kwargs.values())):  # Note [Plain arguments copied in C]
            described.update(kwargs)
        else:
            for k, v in kwargs.items():
                described[k] = v if type(v) in plain else summarize(v)
    return described
