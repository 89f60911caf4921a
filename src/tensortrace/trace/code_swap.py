"""Traced functions that cost no frame while no trace is active: the wrapper swapped in by code.

Mirrors what `at::hasCallbacks()` buys RecordFunction in `aten/src/ATen/record_function.h`:
with no profiler attached, an operator runs as if the scope guard were not there.

Note [Traced functions that cost nothing while idle]
A @traced wrapper (Note [Wrappers with the wrapped function's signature]) is one more Python
frame per traced call even while idle: ~100 frames of the seed expression. So a plain function
(a module function or method, no closure, no positional-only parameter) is not replaced by a
wrapper: `traced` returns the function itself, whose code runs directly while idle. When a trace
starts, `trace_on` gives each such function the wrapper's body as its `__code__`, the same lines
as the generated wrapper, with the wrapped function (a copy of the original, so the copy runs the
original code), its FrameSite and its parameter names as constants of that code instead of
closure cells. Every reference to the function (module attributes, `from ... import`, dispatch
tables, class dicts) sees the swap, because the function object stays the same. While tracing,
the frames and events are exactly those of the wrapper (Note [A traced wrapper records its own
frame] in trace/parameter_lists.py).

Note [A function takes its own code back when it next runs idle]
Swapping all ~5,000 functions each way cost ~770 us per recording, most of a small recording's
time, while a recording calls ~100 of them. So `trace_off` swaps nothing back: a wrapper body
left in place finds no recorder and calls `restore_own_code`, which gives its function its own
code again (once: its next call runs that code directly) and notes it; `trace_on` swaps the
wrapper into just the functions noted since the last trace (at first, all of them). A recording
costs what the functions run idle in between cost, not what the package holds. Threads: the
restore checks `_active` after noting the function, and `trace_on` sets `_active` before
taking the notes, so a function restored while a trace starts is swapped by one or the other.

Note [Traced functions registered at import, prepared on first use]
Import decorates ~5,000 functions, and a program that never records a trace needs none of their
wrapper bodies. So `traced` only checks that a function can be swapped (adopt, from its code's
flags), gives it `__wrapped__` and `__traced_site__`, and defers it; its parameter list (the key of
its wrapper) is read and its SwappedFunction made when a trace first starts (prepare_pending, from
trace_on), or when the generator asks which parameter lists exist. This took ~15 ms off import;
the first recording of a process pays it instead.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from inspect import CO_VARARGS, CO_VARKEYWORDS
from types import CodeType, FunctionType
from typing import Any

from tensortrace.trace.parameter_lists import (
    _RESERVED,
    PARAMETER_LISTS_SEEN,
    WRAPPER_READS,
    generated_factory,
    parameter_list,
    traced_body,
    wrapper_text,
)

# markers the template's code holds as constants, replaced by the real objects
_RECORDER, _FN, _SITE, _NAMES = "\x00recorder", "\x00fn", "\x00site", "\x00names"
_RESTORE, _SWAP = "\x00restore", "\x00swap"
_NAME, _LAYER = "\x00name", "\x00layer"  # the site's (Note [What a wrapper reads once])
# the recorder's helpers the body reads (parameter_lists.WRAPPER_READS): marker -> name
_READ_MARKERS = {f"\x00{read}": read for read in WRAPPER_READS}

# line for line the generated wrapper (trace/generated/traced_wrappers.py), whose lines a
# debugger shows for it; while idle it also gives the function its own code back (Note [A
# function takes its own code back when it next runs idle]). `traced` is the body that records
# the frame (parameter_lists._TRACED), read from the markers.
_TEMPLATE = (
    "\n"
    "def wrapper({params}):\n"
    "    rec_ = {recorder}.current\n"
    "    if rec_ is None:\n"
    "        return {restore}({swap})({call})\n"
    "{traced}\n"
)

# parameter list key -> the template's code (its markers not yet replaced)
_templates: dict[str, CodeType] = {}


class SwappedFunction:
    """A function traced by code swap: what its wrapper body is built from and swapped with."""

    __slots__ = ("fn", "own_code", "original", "site", "key", "names", "wrapper_code")

    def __init__(self, fn: FunctionType, site: Any, key: str, names: tuple[str, ...]) -> None:
        self.fn = fn
        self.own_code = fn.__code__
        # what the wrapper body calls: a copy running the own code, made with the wrapper body
        self.original: FunctionType | None = None
        self.site = site
        self.key = key  # its parameter list
        self.names = names  # its positional parameters' names
        self.wrapper_code: CodeType | None = None  # built on first use


# traced functions whose parameter lists are not read yet: (fn, site, ours)
_pending: list[tuple[FunctionType, Any, bool]] = []
# the functions running their own code: trace_on swaps the wrapper body into these
_running_own: list[SwappedFunction] = []
# the wrapper bodies in use, to name their frames (traced_site_of_frame)
SITE_OF_CODE: dict[CodeType, Any] = {}
# each swappable function's own code: its frame while idle stands for its traced frame too
SITE_OF_IDLE_CODE: dict[CodeType, Any] = {}
_active = False


def _code_can_swap(code: CodeType) -> bool:
    """The code of a function without free variables or positional-only parameters, none of
    whose parameters is named like the wrapper body's own locals."""
    if code.co_freevars or code.co_posonlyargcount:
        return False
    flags = code.co_flags
    n_names = code.co_argcount + code.co_kwonlyargcount
    n_names += bool(flags & CO_VARARGS) + bool(flags & CO_VARKEYWORDS)
    # a parameter that would shadow the wrapper body's own locals or the builtins it calls
    return _RESERVED.isdisjoint(code.co_varnames[:n_names])


def copy_function(fn: FunctionType) -> FunctionType:
    """A second function object with fn's code, globals, defaults and attributes."""
    # the module and the docstring come with the globals and the code
    copy = FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    copy.__qualname__ = fn.__qualname__
    if copy.__doc__ is not fn.__doc__:  # assigned after the def
        copy.__doc__ = fn.__doc__
    copy.__annotations__ = fn.__annotations__
    if fn.__dict__:
        copy.__dict__.update(fn.__dict__)
    return copy


def adopt(fn: FunctionType, site: Any) -> bool:
    """Trace `fn` by code swap if it can be (Note [Traced functions registered at import,
    prepared on first use]): give it `__wrapped__` and `__traced_site__` and defer it."""
    attrs = fn.__dict__  # a function's own attributes (hasattr's misses raise and catch)
    if "__wrapped__" in attrs or "__signature__" in attrs:
        return False
    code = fn.__code__
    if not _code_can_swap(code):
        return False
    attrs["__wrapped__"] = copy_function(fn)  # unwrapping finds fn's own code
    attrs["__traced_site__"] = site
    SITE_OF_IDLE_CODE[code] = site
    # `ours`: fn belongs to the package, so its parameter list is one the generator writes a
    # wrapper for
    _pending.append((fn, site, fn.__module__.startswith("tensortrace.")))
    if _active:  # decorated while a trace runs: swapped at once
        prepare_pending()
    return True


def prepare_pending() -> None:
    """Read the parameter list of each function deferred since the last call and register it."""
    global _pending
    pending, _pending = _pending, []
    for fn, site, ours in pending:
        # fn.__wrapped__, the copy made at decoration: the same code and defaults, and none of
        # the attributes that send parameter_list the slow way
        found = parameter_list(fn.__wrapped__)  # type: ignore[attr-defined]
        assert found is not None, "adopt admits no positional-only parameters"
        key, _, names = found
        if ours:
            PARAMETER_LISTS_SEEN.add(key)
        register(fn, site, key, names)


def register(fn: FunctionType, site: Any, key: str, names: tuple[str, ...]) -> None:
    """Trace `fn` by code swap from now on (swapped at once if a trace is active)."""
    swap = SwappedFunction(fn, site, key, names)
    if _active:
        fn.__code__ = _wrapper_code(swap)
    else:
        _running_own.append(swap)


def _template(key: str) -> CodeType:
    code = _templates.get(key)
    if code is None:
        # a default's value lives in the function (__defaults__), not in its code
        params, call, _, _ = wrapper_text(key, lambda i: "=None")
        source = _TEMPLATE.format(
            params=params,
            call=call,
            recorder=repr(_RECORDER),
            restore=repr(_RESTORE),
            swap=repr(_SWAP),
            traced=traced_body(
                key,
                repr(_RECORDER),
                repr(_FN),
                repr(_SITE),
                repr(_NAMES),
                {
                    "name_": repr(_NAME),
                    "layer_": repr(_LAYER),
                    **{read: repr(marker) for marker, read in _READ_MARKERS.items()},
                },
            ),
        )
        with warnings.catch_warnings():  # "'str' object is not callable": a marker, replaced
            warnings.simplefilter("ignore", SyntaxWarning)
            module = compile(source, "<traced wrapper>", "exec")
        code = next(c for c in module.co_consts if isinstance(c, CodeType))
        factory = generated_factory(key)
        if factory is not None:  # the generated wrapper's file and lines, for a debugger
            code = code.replace(
                co_filename=factory.__code__.co_filename,
                co_firstlineno=factory.__code__.co_firstlineno + 2,  # after name_, layer_
            )
        _templates[key] = code
    return code


def _wrapper_code(swap: SwappedFunction) -> CodeType:
    built = swap.wrapper_code
    if built is None:
        # the wrapper body calls a copy of its own, made while fn runs its own code (on the
        # first trace, not at import): `fn.__wrapped__`, the other copy, is public and may be
        # traced in turn under another name (a CUDA function made from the CPU one)
        swap.original = copy_function(swap.fn)
        template = _template(swap.key)
        consts = list(template.co_consts)
        recorder = _recorder_module()
        for i, c in enumerate(consts):  # the markers, by value
            if type(c) is not str or not c.startswith("\x00"):
                continue
            if c == _RECORDER:
                consts[i] = recorder
            elif c in _READ_MARKERS:
                consts[i] = getattr(recorder, _READ_MARKERS[c])
            elif c == _NAME:
                consts[i] = swap.site.name
            elif c == _LAYER:
                consts[i] = swap.site.layer
            elif c == _FN:
                consts[i] = swap.original
            elif c == _SITE:
                consts[i] = swap.site
            elif c == _NAMES:
                consts[i] = swap.names
            elif c == _RESTORE:
                consts[i] = restore_own_code
            elif c == _SWAP:
                consts[i] = swap
        built = template.replace(
            co_consts=tuple(consts), co_qualname=f"{swap.fn.__qualname__}.wrapper"
        )
        swap.wrapper_code = built
        SITE_OF_CODE[built] = swap.site
    return built


def _recorder_module() -> Any:
    # a real cycle: recorder registers its functions here
    from tensortrace.trace import recorder

    return recorder


def is_active() -> bool:
    return _active


def trace_on() -> None:
    """A trace starts: each function running its own code takes its wrapper body."""
    global _active, _running_own
    _active = True  # before taking the list: see the Note on threads
    prepare_pending()  # the first trace: every function traced so far (swapped at once)
    own, _running_own = _running_own, []
    for swap in own:
        swap.fn.__code__ = swap.wrapper_code or _wrapper_code(swap)


def trace_off() -> None:
    """The trace stopped: each wrapper body gives its function its own code back when it next
    runs (Note [A function takes its own code back when it next runs idle])."""
    global _active
    _active = False


def restore_own_code(swap: SwappedFunction) -> Callable[..., Any]:
    """Called by a wrapper body that found no recorder: give its function its own code back
    (unless a trace is active) and return the function to call now, running that code."""
    if not _active:
        swap.fn.__code__ = swap.own_code
        _running_own.append(swap)
        if _active:  # a trace started meanwhile (another thread) and may have missed the note
            swap.fn.__code__ = swap.wrapper_code
    return swap.original  # type: ignore[return-value] # made with the body that called this
