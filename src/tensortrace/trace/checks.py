"""The checks a loaded trace passes: each event's facts against schema.py's declarations.

No PyTorch counterpart. `check_args` compiles each TypedDict of schema.py into a checker once
(int means a JSON integer, never a bool, within 64 bits; `X | None`; lists and dicts of those;
Any means any JSON value nested at most MAX_NESTING levels, with every structured summary in it
complete). A failure raises `CheckError`; format.py makes it a TraceFormatError with the place.
"""

from collections.abc import Callable
from types import NoneType, UnionType
from typing import Any, Union, get_args, get_origin, get_type_hints

from tensortrace.trace.events import FrameSite
from tensortrace.trace.schema import (
    END,
    INSTANT,
    INSTANT_ARGS,
    LAYERS,
    SUMMARY,
    SUMMARY_FIELDS,
    BeginArgs,
    EndArgs,
)

MAX_NESTING = 32  # the recorder's summaries nest a few levels; a file may not nest more
MIN_INT, MAX_INT = -(2**63), 2**64 - 1

Checker = Callable[[Any, int], None]  # (value, nesting depth)
_INT = {int}


class CheckError(Exception):
    """A failed check: what was expected, what was found, and where (path from the root)."""

    def __init__(self, expected: str, got: Any = None, path: list[Any] | None = None) -> None:
        super().__init__(expected)
        self.expected = expected
        self.got = _show(got)
        self.path: list[Any] = path or []

    def within(self, *parts: Any) -> "CheckError":
        self.path[:0] = parts
        return self

    def place(self) -> str:
        out = "$"
        for part in self.path:
            out += f"[{part}]" if isinstance(part, int) else f".{part}"
        return out


def _show(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, (dict, list)):
        return f"an {'object' if isinstance(value, dict) else 'array'} of {len(value)} items"
    text = json_text(value)
    return text if len(text) <= 40 else text[:37] + "..."


def json_text(value: Any) -> str:
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int) and abs(value) > 10**30:
        return f"an integer of {len(str(abs(value)))} digits"
    return repr(value)


# ---- checkers -----------------------------------------------------------------------------------
def _int(value: Any, depth: int) -> None:
    if type(value) is not int or not MIN_INT <= value <= MAX_INT:
        raise CheckError("an integer (64 bits)", value)


def _scalar(kind: type, name: str) -> Checker:
    def check(value: Any, depth: int) -> None:
        if type(value) is not kind:
            raise CheckError(name, value)

    return check


def check_json(value: Any, depth: int = 0) -> None:
    """Any JSON value: nested at most MAX_NESTING levels, every summary in it complete."""
    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return
    if depth >= MAX_NESTING:
        raise CheckError(f"data nested at most {MAX_NESTING} levels", value)
    if kind is list:
        for i, item in enumerate(value):
            try:
                check_json(item, depth + 1)
            except CheckError as bad:
                raise bad.within(i) from None
        return
    if kind is not dict:
        raise CheckError("JSON data", value)
    summary = value.get(SUMMARY)
    if type(summary) is str and summary in SUMMARY_FIELDS:
        _SUMMARIES[summary](value, depth)  # every key declared and checked: nothing else to do
        return
    for key, item in value.items():
        try:
            check_json(item, depth + 1)
        except CheckError as bad:
            raise bad.within(key) from None


def _compile(tp: Any) -> Checker:
    if tp is Any:
        return check_json
    if tp is int:
        return _int
    if tp is str:
        return _scalar(str, "a string")
    if tp is bool:
        return _scalar(bool, "true or false")
    origin = get_origin(tp)
    if origin in (Union, UnionType):
        options = [t for t in get_args(tp) if t is not NoneType]
        inner = _compile(options[0]) if len(options) == 1 else check_json

        def optional(value: Any, depth: int) -> None:
            if value is not None:
                inner(value, depth)

        return optional
    if origin is list:
        item = _compile(get_args(tp)[0])
        ints = item is _int  # sizes and strides: checked in C when all are in range

        def array(value: Any, depth: int) -> None:
            if type(value) is not list:
                raise CheckError("an array", value)
            if depth >= MAX_NESTING:
                raise CheckError(f"data nested at most {MAX_NESTING} levels", value)
            if ints and (
                not value
                or set(map(type, value)) == _INT
                and MIN_INT <= min(value)
                and max(value) <= MAX_INT
            ):
                return
            for i, v in enumerate(value):
                try:
                    item(v, depth + 1)
                except CheckError as bad:
                    raise bad.within(i) from None

        return array
    if origin is dict:
        entry = _compile(get_args(tp)[1])

        def mapping(value: Any, depth: int) -> None:
            if type(value) is not dict:
                raise CheckError("an object", value)
            if depth >= MAX_NESTING:
                raise CheckError(f"data nested at most {MAX_NESTING} levels", value)
            for k, v in value.items():
                try:
                    entry(v, depth + 1)
                except CheckError as bad:
                    raise bad.within(k) from None

        return mapping
    raise TypeError(f"schema type {tp!r} has no checker")  # a schema.py mistake


def _typed_dict(td: type, extra_ok: bool) -> Checker:
    """A TypedDict's checker: required keys present, each declared key of its type."""
    hints = get_type_hints(td)
    # (the plain type a value is most often, checked inline; the full checker)
    fields = {k: (t if t in (int, str, bool) else None, _compile(t)) for k, t in hints.items()}
    required = td.__required_keys__  # type: ignore[attr-defined]
    name = td.__name__

    def check(value: Any, depth: int) -> None:
        if type(value) is not dict:
            raise CheckError(f"an object ({name})", value)
        if not required <= value.keys():
            missing = sorted(required - value.keys())[0]
            raise CheckError(f"the key {missing!r} ({name})", value)
        for key, item in value.items():
            spec = fields.get(key)
            if spec is not None:
                plain = spec[0]
                if type(item) is plain and (plain is not int or MIN_INT <= item <= MAX_INT):
                    continue
                check_item = spec[1]
            elif key == SUMMARY:
                continue
            elif extra_ok:
                check_item = check_json
            else:
                raise CheckError(f"only the keys of {name}", key, [key])
            try:
                check_item(item, depth + 1)
            except CheckError as bad:
                raise bad.within(key) from None

    return check


_SUMMARIES = {kind: _typed_dict(td, extra_ok=False) for kind, td in SUMMARY_FIELDS.items()}
_INSTANTS = {kind: _typed_dict(td, extra_ok=False) for kind, td in INSTANT_ARGS.items()}
_BEGIN = _typed_dict(BeginArgs, extra_ok=True)  # plus what a frame records of itself
_END = _typed_dict(EndArgs, extra_ok=True)
_NAMES_KEY_LIMIT = 19  # digits of a handle id


def check_args(ph: str, kind: str, args: Any) -> None:
    """The args of one event, for its phase and kind; CheckError's path starts inside them."""
    if ph == INSTANT:
        _INSTANTS[kind](args, 0)
        if kind == "names":  # the code view reads the keys as handle ids
            for key in args["names"]:
                if not (key.isascii() and key.isdigit() and len(key) <= _NAMES_KEY_LIMIT):
                    raise CheckError("a handle id (decimal digits)", key, ["names", key])
    elif ph == END:
        _END(args, 0)
    else:
        _BEGIN(args, 0)


# Note [Args checked once per skeleton]: whether an args object passes check_args depends on
# its structure, its keys, the summary kinds ("$" values), the types of its scalars and whether
# its integers fit 64 bits, never on the other characters of its strings or on which digits its
# numbers have, since no declared name contains a digit. So its compact JSON text with every
# digit made 0 (its skeleton) is checked once: a loop's million args objects differ in ids and
# addresses, not in skeleton. A text with a run of 19 digits (an integer that may not fit) is
# always checked.
SKELETON = bytes.maketrans(b"123456789", b"000000000")  # for the text's ASCII bytes
_DECLARED = [
    name
    for td in (*INSTANT_ARGS.values(), *SUMMARY_FIELDS.values(), BeginArgs, EndArgs)
    for name in get_type_hints(td)
] + list(SUMMARY_FIELDS)
SKELETONS_SOUND = not any(c.isdigit() for name in _DECLARED for c in name)


def check_sites(sites: Any, version: int) -> list[FrameSite]:
    if type(sites) is not list:
        raise CheckError("an array of sites", sites, ["sites"])
    out = []
    for i, site in enumerate(sites):
        if version == 1 and type(site) is dict:
            keys = ("layer", "name", "source", "symbol", "legacy")
            if set(site) - set(keys) or not {"layer", "name", "source", "symbol"} <= set(site):
                raise CheckError(f"a site object with the keys {list(keys)}", site, ["sites", i])
            fields: list[Any] = [site.get(k) for k in keys]
        elif type(site) is list and len(site) == 5:
            fields = site
        else:
            raise CheckError("a site [layer, name, source, symbol, legacy]", site, ["sites", i])
        layer, name, source, symbol, legacy = fields
        if layer not in LAYERS:
            raise CheckError(f"a layer among {list(LAYERS)}", layer, ["sites", i, "layer"])
        for key, value in (("name", name), ("source", source), ("symbol", symbol)):
            if type(value) is not str:
                raise CheckError("a string", value, ["sites", i, key])
        if legacy is not None and type(legacy) is not str:
            raise CheckError("a string or null", legacy, ["sites", i, "legacy"])
        out.append(FrameSite(layer, name, source, symbol, legacy))
    return out
