"""The recorder: `@traced` frames and instants, nearly free when no trace is active.

Mirrors `aten/src/ATen/record_function.h` (RECORD_FUNCTION, the scope guard every dispatcher
call opens) and the profiler's memory reports (`reportMemoryUsageToProfiler` in
`c10/core/Allocator.h`). The module-level `current` is the one flag a traced function checks:
when it is None the wrapper calls straight through.
"""

from __future__ import annotations

import functools
import os
import sys
import time
import weakref
from _thread import get_ident, get_native_id
from collections.abc import Callable
from types import FrameType, FunctionType
from typing import Any, TypeVar

from tensortrace.trace import code_swap, gc_deferral
from tensortrace.trace.arguments import (
    _PLAIN_TYPES,
    DESCRIBE_BY_TYPE,
    describe_args,
    summarize,
)
from tensortrace.trace.events import BEGIN, END, INSTANT, FrameSite
from tensortrace.trace.parameter_lists import (
    _RESERVED,
    PARAMETER_LISTS_SEEN,
    PARAMETER_LISTS_WRAPPED,
    WRAPPER_READS,
    factory_source,
    generated_factory,
    parameter_list,
)

# Note [Events made when the recording stops]
# An Event is a NamedTuple, whose own __new__ is a Python function; from its 9 fields it is made
# in C by `tuple.__new__(Event, fields)`, which still costs ~1,400 CPU instructions per step
# called from bytecode (an argument tuple, its slice, the copy): a tenth of a traced seed
# expression. So while recording, each step appends its fields as a plain tuple, a row, to
# `Recorder.events` (the nine of Event, in its order), and the rows become Events when the
# recording stops, in one C loop (trace.events_of_rows: `starmap` hands tuple.__new__ each
# (Event, row) pair as its argument tuple, ~1,150 instructions per event), or straight into
# columns for a large recording (Note [Small traces stay lists] in trace.py), with no Event
# made at all. Until the recording stops a Trace's `events` is this list of rows: the same
# fields in the same order, read by index (`row[0]` is the phase), not by name. A row appended
# after the recording stopped (the end of a frame still open then) is not part of the trace.
# Only the rows the recording made while active are, in the order they were appended.
_new_site = functools.partial(tuple.__new__, FrameSite)  # one per traced function at import
_now = time.perf_counter_ns

# what a traced wrapper reads while recording (Note [A traced wrapper records its own frame]),
# under the names its body reads them by (parameter_lists.WRAPPER_READS, Note [What a wrapper
# reads once]; the generated files import these): the thread check, the clock, and how it
# describes a value: the plain types (kept as themselves), the summary
# function by type (Note [A summary by one lookup]), and summarize for the rest
get_ident_, now_ = get_ident, _now
plain_, summary_, describe_ = _PLAIN_TYPES, DESCRIBE_BY_TYPE.get, summarize
# Note [One dict for every None result]: about a third of all frames return None (kernels,
# functions that write an out argument), and an event's args are never edited (Event): they
# all end with this one dict, equal to the `{"result": None}` each would have made
NO_RESULT: dict[str, Any] = {"result": None}


def error_args(exc: BaseException) -> dict[str, Any]:
    """The end arguments of a frame an exception left."""
    return {"error": f"{type(exc).__name__}: {exc}"}


F = TypeVar("F", bound=Callable[..., Any])


class Recorder:
    """Collects events while a trace is active. One per `tensortrace.record()` block.

    Note [Each thread has its own stack]: the thread that opened the trace keeps `depth`; an op
    run on another thread while recording gets events tagged with that thread's native id and a
    depth of its own, so its frames nest among themselves and never inside the caller's.
    """

    def __init__(self) -> None:
        # Note [Events made when the recording stops]: each step's fields, a row per event
        self.events: list[tuple[Any, ...]] = []
        self.sites: list[FrameSite] = []
        # Note [Sites by value]: a site's index, found by the site itself. A FrameSite is a
        # tuple of strings, hashed and compared in C (its strings' hashes are cached): one
        # lookup is cheaper than `id(site)`'s call, and an equal site made anew (a redispatch
        # site) finds the index of the first one
        self._site_index: dict[FrameSite, int] = {}
        self.depth = 0
        self.ident = get_ident()  # the tracing thread
        self._other_depths: dict[int, int] = {}  # native id -> depth, for other threads
        self.t0 = time.perf_counter_ns()
        # Note [Values beside the events]: what tensors held, keyed by the step they were read
        # at; a side table, so the events themselves stay exactly what they were
        self.values: dict[int, dict[str, Any]] = new_values()
        self.tracked: weakref.WeakSet[Any] = weakref.WeakSet()  # refcounted objects seen
        # Note [What a step may have changed] (_trace_values.py): the values capture reads
        # these, not every live tensor at every kernel's end. Tracked objects new or whose
        # layout changed since the last capture, and storages whose memory the runtime handed
        # out since the last top-level call ended: plain sets (an add is one C call, where a
        # WeakSet's is a Python one), emptied by each capture, so they hold an object no longer
        # than the call it was used in. Storages whose memory user code holds, for the whole
        # recording: weakly. With no values captured, nothing empties them: they keep nothing
        self.changed: set[Any] = set() if capture_values is not None else _KEEP_NOTHING
        self.written: set[Any] = set() if capture_values is not None else _KEEP_NOTHING
        self.escaped: weakref.WeakSet[Any] = weakref.WeakSet()

    def _site(self, site: FrameSite) -> int:
        """The index of a site's first frame in this recording (Note [Sites by value]), when
        `_site_index` does not have it yet. record_call and the traced wrappers' body
        (parameter_lists._TRACED) have these lines written out: change them alike."""
        index = self._site_index[site] = len(self.sites)
        self.sites.append(site)
        return index

    def begin(self, site: FrameSite, args: dict[str, Any]) -> None:
        if get_ident() != self.ident:
            tid = get_native_id()
            depth = self._other_depths.get(tid, 0)
            self._other_depths[tid] = depth + 1
        else:
            tid = 0
            depth = self.depth
            self.depth = depth + 1
        index = self._site_index.get(site)  # Note [Sites by value]
        if index is None:
            index = self._site(site)
        # a row: Note [Events made when the recording stops]
        self.events.append(
            (BEGIN, site.name, site.layer, _now() - self.t0, depth, index, "", args, tid)
        )

    def end(self, site: FrameSite, args: dict[str, Any]) -> None:
        if get_ident() != self.ident:
            tid = get_native_id()
            depth = self._other_depths[tid] = self._other_depths.get(tid, 1) - 1
        else:
            tid = 0
            self.depth -= 1
            depth = self.depth
        index = self._site_index.get(site)
        if index is None:
            index = self._site(site)
        self.events.append(
            (END, site.name, site.layer, _now() - self.t0, depth, index, "", args, tid)
        )
        # a kernel wrote memory, or a top-level call finished: read what tensors hold now
        if tid == 0 and capture_values is not None and (site.layer == "kernel" or depth == 0):
            capture_values(self, len(self.events) - 1)

    def instant(self, kind: str, layer: str, name: str, args: dict[str, Any]) -> None:
        if get_ident() == self.ident:  # the tracing thread: ~50 instants per seed expression
            self.events.append(
                (INSTANT, name, layer, _now() - self.t0, self.depth, -1, kind, args, 0)
            )
        else:
            tid = get_native_id()
            depth = self._other_depths.get(tid, 0)
            self.events.append((INSTANT, name, layer, _now() - self.t0, depth, -1, kind, args, tid))


class _KeepNothing(set[Any]):
    """The `changed` and `written` sets of a recorder that captures no values."""

    def add(self, item: Any) -> None:
        pass


_KEEP_NOTHING = _KeepNothing()

# The one flag: the active recorder, or None. Read it as `recorder.current`.
current: Recorder | None = None

# Note [Values beside the events]
# The replay reads only the trace, so the values a learner sees must be recorded; but the events
# are compared one by one (seed 000's timeline), so values never become events. The runtime
# installs `capture_values(rec, step)`, called while recording when a kernel frame or a top-level
# frame ends; it reads the tensors of `rec.tracked` and writes what changed to `rec.values[step]`
# (tensortrace/_trace_values.py). Nothing of this runs when no trace is active.
capture_values: Callable[[Recorder, int], None] | None = None
# The table `rec.values` starts as: the runtime installs one that keeps the cheap readings and
# prints the texts only when first read (_trace_values.LazyValues).
new_values: Callable[[], dict[int, dict[str, Any]]] = dict


def instant(kind: str, layer: str, name: str, **args: Any) -> None:
    """Record an instant if a trace is active. Hot callers check `current` themselves first."""
    if current is not None:
        current.instant(kind, layer, name, args)


def record_call(
    rec: Recorder,
    site: FrameSite,
    begin_args: dict[str, Any],
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any] | None = None,
    record_result: bool = True,
    end_args: Callable[[Any], dict[str, Any]] | None = None,
) -> Any:
    """The one way a frame is recorded: begin, call, end with the result or the error.

    Used by every traced wrapper, the Dispatcher's call and redispatch, the DispatchStub and
    the autograd engine's RECORD_FUNCTION scopes, so that every frame an exception crosses
    records it (RecordFunction's scope guard ends its scope on unwinding too). `end_args`
    describes the result where the default summary does not fit (a Node's gradients).
    """
    if get_ident() != rec.ident:  # another thread: its own depth (Recorder.begin and end)
        return _record_call_elsewhere(
            rec, site, begin_args, fn, args, kwargs, record_result, end_args
        )
    # Recorder.begin and Recorder.end for the tracing thread, written out: this runs for
    # every frame of a trace, and each call saved is a tenth of a frame's recording cost
    index = rec._site_index.get(site)  # Note [Sites by value]
    if index is None:  # Recorder._site written out too: each site's first frame per recording
        index = rec._site_index[site] = len(rec.sites)
        rec.sites.append(site)
    name, layer = site.name, site.layer
    events = rec.events
    depth = rec.depth
    events.append((BEGIN, name, layer, _now() - rec.t0, depth, index, "", begin_args, 0))
    rec.depth = depth + 1
    try:
        result = fn(*args, **kwargs) if kwargs else fn(*args)
    except BaseException as exc:
        rec.end(site, {"error": f"{type(exc).__name__}: {exc}"})
        raise
    if end_args is not None:
        described = end_args(result)
    elif record_result:
        kind = type(result)
        if result is None:  # Note [One dict for every None result]
            described = NO_RESULT
        elif kind in _PLAIN_TYPES:
            described = {"result": result}
        else:  # summarize's fast path, inlined: Note [A summary by one lookup]
            describe = DESCRIBE_BY_TYPE.get(kind)
            try:
                described = {"result": (describe or summarize)(result)}
            except AttributeError:
                described = {"result": summarize(result)}
    else:
        described = {}
    rec.depth = depth  # as in a traced wrapper: the frames fn called are balanced
    events.append((END, name, layer, _now() - rec.t0, depth, index, "", described, 0))
    # a kernel wrote memory, or a top-level call finished: read what tensors hold now
    if (depth == 0 or layer == "kernel") and capture_values is not None:
        capture_values(rec, len(events) - 1)
    return result


def _record_call_elsewhere(
    rec: Recorder,
    site: FrameSite,
    begin_args: dict[str, Any],
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any] | None,
    record_result: bool,
    end_args: Callable[[Any], dict[str, Any]] | None,
) -> Any:
    """record_call on a thread other than the tracing one (Note [Each thread has its own
    stack])."""
    rec.begin(site, begin_args)
    try:
        result = fn(*args, **kwargs) if kwargs else fn(*args)
    except BaseException as exc:
        rec.end(site, {"error": f"{type(exc).__name__}: {exc}"})
        raise
    if end_args is not None:
        rec.end(site, end_args(result))
    else:
        rec.end(
            site,
            {"result": result if type(result) in _PLAIN_TYPES else summarize(result)}
            if record_result
            else {},
        )
    return result


def call_traced(
    rec: Recorder,
    site: FrameSite,
    fn: Callable[..., Any],
    names: tuple[str, ...],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> Any:
    """The general path of a traced wrapper, taken only while a trace is active: on another
    thread, or for a parameter list with `*args` or `**kwargs`."""
    return record_call(rec, site, {"args": describe_args(names, args, kwargs)}, fn, args, kwargs)


# Note [Wrappers with the wrapped function's signature]
# A `def wrapper(*args, **kwargs)` costs about 70 ns per call just to pack and unpack its
# arguments, and the seed expression goes through ~110 traced functions. So each wrapper has the
# wrapped function's own parameter list (`def wrapper(self, other, *, alpha=_d2)`) and calls it
# the same way, which brings the idle cost to one global read and one call, ~10 ns.
# The wrappers are plain defs on disk, one factory per parameter list, in
# trace/generated/traced_wrappers.py (written by `python -m tensortrace.torchgen`), so a debugger
# steps into a real file. A parameter list the generator has not seen yet (a new @traced function
# before the files are regenerated) gets the same factory compiled in memory; positional-only
# parameters fall back to the generic wrapper.
# parameter list -> its factory, or None where a parameter name is reserved
_factories: dict[str, Callable[..., Any] | None] = {}


def _factory(key: str) -> Callable[..., Any] | None:
    if key in _factories:
        return _factories[key]
    made = generated_factory(key)
    if _RESERVED.intersection(part.strip("*=") for part in key.split(", ")):
        made = None
    elif made is None:  # not generated yet: the same factory, compiled in memory
        module = sys.modules[__name__]
        namespace: dict[str, Any] = {"recorder": module}
        namespace.update((read, getattr(module, read)) for read in WRAPPER_READS)
        exec(
            compile(factory_source(key, "factory"), f"<traced wrapper ({key})>", "exec"), namespace
        )
        made = namespace["factory"]
    _factories[key] = made
    return made


def _exact_wrapper(fn: Callable[..., Any], site: FrameSite) -> Callable[..., Any] | None:
    found = parameter_list(fn)
    if found is None:
        return None
    key, defaults, names = found
    factory = _factory(key)
    if factory is None:
        return None
    if getattr(fn, "__module__", "").startswith("tensortrace."):
        PARAMETER_LISTS_SEEN.add(key)
        PARAMETER_LISTS_WRAPPED.add(key)  # Note [The factories import needs, apart]
    return factory(fn, site, names, *defaults)  # type: ignore[no-any-return]


def _generic_wrapper(fn: Callable[..., Any], site: FrameSite) -> Callable[..., Any]:
    code = getattr(fn, "__code__", None)
    names = code.co_varnames[: code.co_argcount] if code is not None else ()

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        rec = current
        if rec is None:
            return fn(*args, **kwargs)
        return call_traced(rec, site, fn, names, args, kwargs)

    return wrapper


def traced_site_of_frame(frame: FrameType) -> FrameSite | None:
    """The FrameSite of a Python frame that is a @traced wrapper's, else None: what a Python
    stack (the CUDA allocator's memory history) shows in its place, named as the C++."""
    code = frame.f_code
    swapped = code_swap.SITE_OF_CODE.get(
        code
    )  # Note [Traced functions that cost nothing while idle]
    if swapped is not None:
        return swapped  # type: ignore[no-any-return]
    if code.co_name != "wrapper" or not (
        code.co_filename in _WRAPPER_FILES or code.co_filename.startswith("<traced")
    ):
        return None
    site = frame.f_locals.get("site_", frame.f_locals.get("site"))
    return site if isinstance(site, FrameSite) else None


# the files a wrapper's code comes from: the generated factories and the generic wrapper here
_WRAPPER_FILES = frozenset(
    {__file__}
    | {
        os.path.join(os.path.dirname(__file__), "generated", name)
        for name in ("traced_wrappers.py", "traced_wrappers_at_import.py")
    }
)


# Set before import to build tensortrace with no @traced wrappers at all: the baseline the
# benchmark compares the idle recorder against (like building PyTorch without the profiler).
WRAPPERS_COMPILED_OUT = os.environ.get("TENSORTRACE_COMPILE_OUT_RECORDER") == "1"


def traced(
    layer: str, name: str, source: str, symbol: str | None = None, legacy: str | None = None
) -> Callable[[F], F]:
    """Make `fn` a frame of the trace: its layer, its name, and its PyTorch counterpart.

    A plain function is returned as it is and runs its own code while no trace is active; a
    trace swaps the wrapper's body in (Note [Traced functions that cost nothing while idle]).
    Any other callable gets a wrapper that does one global read and calls `fn` directly
    (Note [Wrappers with the wrapped function's signature]).
    """
    site = _new_site((layer, name, source, symbol or name, legacy))

    def decorate(fn: F) -> F:
        if WRAPPERS_COMPILED_OUT:
            return fn
        # Note [Traced functions that cost nothing while idle]
        if type(fn) is FunctionType and code_swap.adopt(fn, site):  # type: ignore[arg-type]
            return fn
        wrapper = _exact_wrapper(fn, site) or _generic_wrapper(fn, site)
        update_wrapper(wrapper, fn)
        wrapper.__traced_site__ = site  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate


def update_wrapper(wrapper: Callable[..., Any], fn: Callable[..., Any]) -> None:
    """functools.update_wrapper, unrolled for a plain function: it runs for the ~3,000 wrappers
    import makes (traced functions that cannot be swapped, handle_th_errors' bindings)."""
    if type(fn) is not FunctionType:
        functools.update_wrapper(wrapper, fn)
        return
    wrapper.__module__ = fn.__module__
    wrapper.__name__ = fn.__name__
    wrapper.__qualname__ = fn.__qualname__
    wrapper.__doc__ = fn.__doc__
    wrapper.__annotations__ = fn.__annotations__
    wrapper.__dict__.update(fn.__dict__)
    wrapper.__wrapped__ = fn  # type: ignore[attr-defined]


class frame:  # used like a function: `with frame(site):`
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
    code_swap.trace_on()
    gc_deferral.defer_full_collections()  # Note [Full collections deferred while recording]
    return current


def stop(rec: Recorder) -> None:
    """Deactivate `rec`. Frames still open (an exception escaped) are closed."""
    global current
    if current is not rec:
        raise RuntimeError("stopping a trace that is not the active one")
    current = None
    code_swap.trace_off()
    gc_deferral.restore_full_collections()
