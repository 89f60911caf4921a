"""The recorder: `@traced` frames and instants, nearly free when no trace is active.

Mirrors `aten/src/ATen/record_function.h` (RECORD_FUNCTION, the scope guard every dispatcher
call opens) and the profiler's memory reports (`reportMemoryUsageToProfiler` in
`c10/core/Allocator.h`). The module-level `current` is the one flag a traced function checks:
when it is None the wrapper calls straight through.
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
import time
from _thread import get_ident, get_native_id
from collections.abc import Callable
from enum import Enum
from types import CodeType
from typing import Any, TypeVar

from tensortrace.trace.events import BEGIN, END, INSTANT, Event, FrameSite

F = TypeVar("F", bound=Callable[..., Any])

MAX_SEQUENCE_ITEMS = 8
# summarize's fast path: exact types only (an IntEnum is no `int` here, so it is still named)
_PLAIN_TYPES = frozenset({type(None), bool, int, float, str})
# types summarized by their name alone (no _trace_summary, not a sequence, number or enum),
# learned as summarize meets them
_NAME_ONLY: dict[type, str] = {}


def summarize(value: Any) -> Any:
    """A short, JSON-safe description of an argument or result, never the data itself."""
    if type(value) in _PLAIN_TYPES:  # most arguments: one set lookup, the answer unchanged
        return value
    name = _NAME_ONLY.get(type(value))  # a TensorIterator, a dict: described by type name
    if name is not None:
        return name
    if isinstance(value, Enum):  # before int: ScalarType.Float reads better than 6
        return str(value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    summary = getattr(value, "_trace_summary", None)
    if summary is not None:
        try:
            return summary()
        except AttributeError:  # an object still being constructed (`self` of an __init__)
            return type(value).__name__
    if isinstance(value, (tuple, list)):
        plain = _PLAIN_TYPES  # sizes and strides: ints, summarized without a call each
        items = [v if type(v) in plain else summarize(v) for v in value[:MAX_SEQUENCE_ITEMS]]
        if len(value) > MAX_SEQUENCE_ITEMS:
            items.append(f"... ({len(value)} items)")
        return items
    if isinstance(value, complex):
        return repr(value)
    kind = type(value)
    if getattr(kind, "_trace_summary", None) is None:  # always just its name: remember that
        _NAME_ONLY[kind] = kind.__name__
    return kind.__name__


class Recorder:
    """Collects events while a trace is active. One per `tensortrace.record()` block.

    Note [Each thread has its own stack]: the thread that opened the trace keeps `depth`; an op
    run on another thread while recording gets events tagged with that thread's native id and a
    depth of its own, so its frames nest among themselves and never inside the caller's.
    """

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.sites: list[FrameSite] = []
        # by the site's fields: a tuple hashes in C, the frozen dataclass's __hash__ in Python
        self._site_index: dict[tuple[Any, ...], int] = {}
        # Note [Sites by identity]: a traced function's site is one object for the process, so
        # begin/end find its index by id() (one dict lookup, no dataclass hashing). Only the
        # object stored in `sites` is looked up by id: that list keeps it alive, so its id is
        # never reused; an equal site made anew per call is found by value and never pinned.
        self._site_ids: dict[int, int] = {}
        self.depth = 0
        self.ident = get_ident()  # the tracing thread
        self._other_depths: dict[int, int] = {}  # native id -> depth, for other threads
        self.t0 = time.perf_counter_ns()

    def _site(self, site: FrameSite) -> int:
        index = self._site_ids.get(id(site))
        if index is not None:
            return index
        key = (site.layer, site.name, site.source, site.symbol, site.legacy)
        index = self._site_index.get(key)
        if index is None:
            index = self._site_index[key] = len(self.sites)
            self.sites.append(site)
            self._site_ids[id(site)] = index
        return index

    def begin(self, site: FrameSite, args: dict[str, Any]) -> None:
        if get_ident() != self.ident:
            tid = get_native_id()
            depth = self._other_depths.get(tid, 0)
            self._other_depths[tid] = depth + 1
            self.events.append(Event(BEGIN, site.name, site.layer,
                                     time.perf_counter_ns() - self.t0, depth,
                                     self._site(site), args=args, tid=tid))
            return
        index = self._site_ids.get(id(site))  # Note [Sites by identity]
        self.events.append(Event(BEGIN, site.name, site.layer,
                                 time.perf_counter_ns() - self.t0, self.depth,
                                 self._site(site) if index is None else index, args=args))
        self.depth += 1

    def end(self, site: FrameSite, args: dict[str, Any]) -> None:
        if get_ident() != self.ident:
            tid = get_native_id()
            depth = self._other_depths[tid] = self._other_depths.get(tid, 1) - 1
            self.events.append(Event(END, site.name, site.layer,
                                     time.perf_counter_ns() - self.t0, depth,
                                     self._site(site), args=args, tid=tid))
            return
        self.depth -= 1
        index = self._site_ids.get(id(site))
        self.events.append(Event(END, site.name, site.layer,
                                 time.perf_counter_ns() - self.t0, self.depth,
                                 self._site(site) if index is None else index, args=args))

    def instant(self, kind: str, layer: str, name: str, args: dict[str, Any]) -> None:
        if get_ident() != self.ident:
            tid = get_native_id()
            self.events.append(Event(INSTANT, name, layer, time.perf_counter_ns() - self.t0,
                                     self._other_depths.get(tid, 0), kind=kind, args=args,
                                     tid=tid))
            return
        self.events.append(Event(INSTANT, name, layer, time.perf_counter_ns() - self.t0,
                                 self.depth, kind=kind, args=args))


# The one flag: the active recorder, or None. Read it as `recorder.current`.
current: Recorder | None = None


def instant(kind: str, layer: str, name: str, **args: Any) -> None:
    """Record an instant if a trace is active. Hot callers check `current` themselves first."""
    if current is not None:
        current.instant(kind, layer, name, args)


def record_call(rec: Recorder, site: FrameSite, begin_args: dict[str, Any],
                fn: Callable[..., Any], args: tuple[Any, ...],
                kwargs: dict[str, Any] | None = None, record_result: bool = True,
                end_args: Callable[[Any], dict[str, Any]] | None = None) -> Any:
    """The one way a frame is recorded: begin, call, end with the result or the error.

    Used by every traced wrapper, the Dispatcher's call and redispatch, the DispatchStub and
    the autograd engine's RECORD_FUNCTION scopes, so that every frame an exception crosses
    records it (RecordFunction's scope guard ends its scope on unwinding too). `end_args`
    describes the result where the default summary does not fit (a Node's gradients).
    """
    rec.begin(site, begin_args)
    try:
        result = fn(*args, **kwargs) if kwargs else fn(*args)
    except BaseException as exc:
        rec.end(site, {"error": f"{type(exc).__name__}: {exc}"})
        raise
    if end_args is not None:
        rec.end(site, end_args(result))
    else:
        rec.end(site, {"result": result if type(result) in _PLAIN_TYPES else summarize(result)}
                if record_result else {})
    return result


def _call_traced(rec: Recorder, site: FrameSite, fn: Callable[..., Any],
                 names: tuple[str, ...], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The slow path of a traced wrapper, taken only while a trace is active."""
    # plain loops with summarize's fast path inlined: no comprehension frames per event
    plain = _PLAIN_TYPES
    described = {}
    for n, v in zip(names, args):
        described[n] = v if type(v) in plain else summarize(v)
    if len(args) > len(names):
        described["*args"] = [v if type(v) in plain else summarize(v)
                              for v in args[len(names):]]
    for k, v in kwargs.items():
        described[k] = v if type(v) in plain else summarize(v)
    return record_call(rec, site, {"args": described}, fn, args, kwargs)


# Note [Wrappers with the wrapped function's signature]
# A `def wrapper(*args, **kwargs)` costs about 70 ns per call just to pack and unpack its
# arguments, and the seed expression goes through ~110 traced functions. So `traced` writes each
# wrapper with the wrapped function's own parameter list (`def wrapper(self, other, alpha=_d0)`)
# and calls it the same way, which brings the idle cost to one global read and one call, ~10 ns.
# Functions with positional-only parameters fall back to the generic wrapper.
_TEMPLATE = """
def {name}({params}):
    rec = recorder.current
    if rec is None:
        return fn({call})
    return _call_traced(rec, site, fn, names, ({positional}), {{{keywords}}})
"""


def _exact_wrapper(fn: Callable[..., Any], site: FrameSite) -> Callable[..., Any] | None:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    params, call, positional, keywords = [], [], [], []
    namespace: dict[str, Any] = {"fn": fn, "site": site, "_call_traced": _call_traced,
                                 "recorder": sys.modules[__name__]}
    star_seen = False
    for i, p in enumerate(sig.parameters.values()):
        default = ""
        if p.default is not inspect.Parameter.empty:
            namespace[f"_d{i}"] = p.default
            default = f"=_d{i}"
        if p.kind is p.POSITIONAL_OR_KEYWORD:
            params.append(f"{p.name}{default}")
            call.append(p.name)
            positional.append(p.name)
        elif p.kind is p.VAR_POSITIONAL:
            params.append(f"*{p.name}")
            call.append(f"*{p.name}")
            positional.append(f"*{p.name}")
            star_seen = True
        elif p.kind is p.KEYWORD_ONLY:
            if not star_seen:
                params.append("*")
                star_seen = True
            params.append(f"{p.name}{default}")
            call.append(f"{p.name}={p.name}")
            keywords.append(f"{p.name!r}: {p.name}")
        elif p.kind is p.VAR_KEYWORD:
            params.append(f"**{p.name}")
            call.append(f"**{p.name}")
            keywords.append(f"**{p.name}")
        else:
            return None  # positional-only: use the generic wrapper
    namespace["names"] = tuple(p.name for p in sig.parameters.values()
                               if p.kind is p.POSITIONAL_OR_KEYWORD)
    positional_tuple = ", ".join(positional) + ("," if len(positional) == 1 else "")
    source = _TEMPLATE.format(name="wrapper", params=", ".join(params), call=", ".join(call),
                              positional=positional_tuple, keywords=", ".join(keywords))
    exec(_compiled(source), namespace)
    wrapper = namespace["wrapper"]
    # tracebacks name the frame: File "<traced at::add>", line 5, in wrapper
    wrapper.__code__ = wrapper.__code__.replace(co_filename=f"<traced {site.name}>")
    return wrapper


@functools.cache
def _compiled(source: str) -> CodeType:
    """Many traced functions share a parameter list: compile each wrapper source once."""
    return compile(source, "<traced>", "exec")


def _generic_wrapper(fn: Callable[..., Any], site: FrameSite) -> Callable[..., Any]:
    code = getattr(fn, "__code__", None)
    names = code.co_varnames[: code.co_argcount] if code is not None else ()

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        rec = current
        if rec is None:
            return fn(*args, **kwargs)
        return _call_traced(rec, site, fn, names, args, kwargs)

    return wrapper


# Set before import to build tensortrace with no @traced wrappers at all: the baseline the
# benchmark compares the idle recorder against (like building PyTorch without the profiler).
WRAPPERS_COMPILED_OUT = os.environ.get("TENSORTRACE_COMPILE_OUT_RECORDER") == "1"


def traced(layer: str, name: str, source: str, symbol: str | None = None,
           legacy: str | None = None) -> Callable[[F], F]:
    """Make `fn` a frame of the trace: its layer, its name, and its PyTorch counterpart.

    When no trace is active the wrapper does one global read and calls `fn` directly
    (Note [Wrappers with the wrapped function's signature]).
    """
    site = FrameSite(layer, name, source, symbol or name, legacy)

    def decorate(fn: F) -> F:
        if WRAPPERS_COMPILED_OUT:
            return fn
        wrapper = _exact_wrapper(fn, site) or _generic_wrapper(fn, site)
        functools.update_wrapper(wrapper, fn)
        wrapper.__traced_site__ = site  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate


class frame:  # noqa: N801 - used like a function: `with frame(site):`
    """A traced scope for code that is not a whole function (a loop, a redispatch step).

    `with frame(site, key="CPU"):` records a frame only if a trace is active.
    """

    __slots__ = ("site", "args", "rec")

    def __init__(self, site: FrameSite, **args: Any) -> None:
        self.site = site
        self.args = args
        self.rec = current

    def __enter__(self) -> None:
        if self.rec is not None:
            self.rec.begin(self.site, {"args": {k: summarize(v) for k, v in self.args.items()}})

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        if self.rec is not None:
            self.rec.end(self.site, {"error": f"{exc_type.__name__}: {exc}"} if exc_type else {})


def start() -> Recorder:
    """Make a new recorder the active one and return it."""
    global current
    if current is not None:
        raise RuntimeError("a trace is already active: traces cannot be nested")
    current = Recorder()
    return current


def stop(rec: Recorder) -> None:
    """Deactivate `rec`. Frames still open (an exception escaped) are closed."""
    global current
    if current is not rec:
        raise RuntimeError("stopping a trace that is not the active one")
    current = None
