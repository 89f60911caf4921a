"""A trace's events held as columns: the RAM side of the version-2 file (docs/trace-format.md).

No PyTorch counterpart (torch.profiler keeps its events in C++ structs). A million `Event`
objects, each with its own args dicts, took 585 bytes per event; here each event is a few small
integers in `array`s (phase letter, indices into a string table, time, depth, site, an index
into a table of distinct args), and each distinct args object is kept once, as its compact JSON
text (a third of the size of the dicts it encodes). `EventColumns` is a read-only
`Sequence[Event]`: indexing or iterating builds the `Event` (its `args` decoded from the text,
recently decoded ones cached), so the replay, the viewers and the CLI read it as they read a
list. Save and load go straight between these columns and the file's (format.py).
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from itertools import chain, count, repeat
from json import JSONDecoder
from typing import Any, overload

from tensortrace.trace.events import Event

# distinct args objects kept decoded at once: consecutive events mostly share a few ({} and the
# like); a small bound keeps the cache out of the RAM figure
_CACHE_SIZE = 512


# json's C scanner called directly (json.loads adds two Python calls and a regex per text);
# the texts are our own encoder's, one JSON value each
_scan = JSONDecoder().scan_once  # type: ignore[attr-defined]


def _decode(text: str) -> Any:
    return _scan(text, 0)[0]


# an Event from its 9 fields in C (Event._make is a Python function)
_new_event = partial(tuple.__new__, Event)


def _index_typecode(n: int) -> str:
    return "B" if n <= 0xFF else "H" if n <= 0xFFFF else "i"


class EventColumns(Sequence[Event]):
    """The events of a finished (or loaded) trace as parallel columns; read-only."""

    __slots__ = (
        "ph",
        "strings",
        "name",
        "layer",
        "kind",
        "ts",
        "depth",
        "site",
        "tid",
        "arg",
        "arg_texts",
        "_cache",
        "_limit",
    )

    def __init__(
        self,
        ph: str,
        strings: list[str],
        name: Iterable[int],
        layer: Iterable[int],
        kind: Iterable[int],
        ts: Iterable[int],
        depth: Iterable[int],
        site: Iterable[int],
        tid: Iterable[int] | None,
        arg: Iterable[int],
        arg_texts: list[str],
    ) -> None:
        code = _index_typecode(len(strings))
        self.ph = ph  # phase letters, one per event
        self.strings = strings  # the table name, layer and kind index
        self.name, self.layer, self.kind = array(code, name), array(code, layer), array(code, kind)
        self.ts = array("q", ts)
        self.depth = array("i", depth)
        self.site = array("i", site)
        tids = array("q", tid) if tid is not None else None
        self.tid = tids if tids is not None and any(tids) else None  # None: all on thread 0
        self.arg = array(_index_typecode(len(arg_texts)), arg)  # index into arg_texts
        self.arg_texts = arg_texts  # each distinct args object once, as compact JSON
        self._cache: dict[int, Any] = {}
        self._limit = _CACHE_SIZE

    @classmethod
    def from_events(cls, events: Iterable[tuple[Any, ...]]) -> EventColumns:
        """Columns of Events, or of their fields as plain tuples (a recording's rows, a format-1
        file's). Raises TypeError if an args object is not JSON data (its trace could not be
        saved either)."""
        # format (and json) stay off the import path until a trace is saved
        from tensortrace.trace.format import encode_all

        # Note [Columns in C]: this runs when every recording ends, so each step is a C loop
        # (zip, map, dict.fromkeys), never a Python statement per event: the columns are the
        # events transposed, a string or text's index is its first appearance's rank
        columns = tuple(zip(*events))
        if not columns:
            return cls("", [], (), (), (), (), (), (), None, (), [])
        ph, name, layer, ts, depth, site, kind, args, tid = columns
        strings = list(dict.fromkeys(chain.from_iterable(zip(name, layer, kind))))
        string_index = dict(zip(strings, count())).__getitem__
        texts = list(encode_all(args))
        table = list(dict.fromkeys(texts))  # each distinct args text kept once
        return cls(
            "".join(ph),
            strings,
            map(string_index, name),
            map(string_index, layer),
            map(string_index, kind),
            ts,
            depth,
            site,
            tid,
            map(dict(zip(table, count())).__getitem__, texts),
            table,
        )

    # ---- Sequence[Event] ------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.ph)

    def args_at(self, i: int) -> Any:
        """Event i's args (decoded from its text; treat as read-only: shared)."""
        return self._args_of(self.arg[i])

    def arg_object(self, index: int) -> Any:
        """The args object at `index` of the table (`arg[i]` is event i's): decoded, shared."""
        return self._args_of(index)

    def _args_of(self, index: int) -> Any:
        value = self._cache.get(index)
        if value is None:
            if len(self._cache) >= self._limit:
                self._cache.clear()
            value = self._cache[index] = _decode(self.arg_texts[index])
        return value

    @contextmanager
    def decoded(self) -> Iterator[None]:
        """Inside the block, each distinct args object is decoded once and kept (a consumer
        that walks the events several times, such as the Timeline's build); dropped after."""
        self._limit = sys.maxsize
        # the whole table in one parse (json's C scanner once, not once per text)
        self._cache = dict(enumerate(_decode("[" + ",".join(self.arg_texts) + "]")))
        try:
            yield
        finally:
            self._limit = _CACHE_SIZE
            self._cache.clear()

    @overload
    def __getitem__(self, i: int) -> Event: ...
    @overload
    def __getitem__(self, i: slice) -> list[Event]: ...
    def __getitem__(self, i: int | slice) -> Event | list[Event]:
        if isinstance(i, slice):
            start, stop, step = i.indices(len(self))
            if step == 1:
                return list(self._events(start, max(start, stop)))
            return [self[j] for j in range(start, stop, step)]
        n = len(self.ph)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("event index out of range")
        s = self.strings
        return Event(
            self.ph[i],
            s[self.name[i]],
            s[self.layer[i]],
            self.ts[i],
            self.depth[i],
            self.site[i],
            s[self.kind[i]],
            self._args_of(self.arg[i]),
            self.tid[i] if self.tid is not None else 0,
        )

    def __iter__(self) -> Iterator[Event]:
        return self._events(0, len(self.ph))

    def _events(self, start: int, stop: int) -> Iterator[Event]:
        """Events start..stop-1, built from slices of the columns (C-speed zips)."""
        s = self.strings.__getitem__
        tid: Iterable[int] = (
            self.tid[start:stop] if self.tid is not None else repeat(0, stop - start)
        )
        return map(
            _new_event,
            zip(
                self.ph[start:stop],
                map(s, self.name[start:stop]),
                map(s, self.layer[start:stop]),
                self.ts[start:stop],
                self.depth[start:stop],
                self.site[start:stop],
                map(s, self.kind[start:stop]),
                map(
                    self._cache.__getitem__ if self._limit == sys.maxsize else self._args_of,
                    self.arg[start:stop],
                ),
                tid,
            ),
        )

    def tids(self) -> Iterable[int]:
        return self.tid if self.tid is not None else repeat(0, len(self.ph))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, (str, bytes)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<EventColumns of {len(self)} events>"
