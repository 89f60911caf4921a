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
closure cells; `trace_off` gives the original code back when the trace stops. Every reference to
the function (module attributes, `from ... import`, dispatch tables, class dicts) sees the swap,
because the function object stays the same. While tracing, the frames and events are exactly
those of the wrapper: the same `call_traced(rec, site, fn, names, args, kwargs)`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from types import CodeType, FunctionType
from typing import Any

from tensortrace.trace.parameter_lists import wrapper_text

# markers the template's code holds as constants, replaced by the real objects
_RECORDER, _FN, _SITE, _NAMES = "\x00recorder", "\x00fn", "\x00site", "\x00names"

# line for line the generated wrapper (trace/generated/traced_wrappers.py), whose lines a
# debugger shows for it
_TEMPLATE = (
    "\n"
    "def wrapper({params}):\n"
    "    rec_ = {recorder!r}.current\n"
    "    if rec_ is None:\n"
    "        return {fn!r}({call})\n"
    "    return {recorder!r}.call_traced(rec_, {site!r}, {fn!r}, {names!r}, "
    "({positional}), {{{keywords}}})\n"
)

# parameter list key -> the template's code (its markers not yet replaced)
_templates: dict[str, CodeType] = {}
# every function traced by code swap: (function, its own code, the copy the wrapper body calls,
# the FrameSite, the positional names, the wrapper body once built)
_swappable: list[list[Any]] = []
# the wrapper bodies in use, to name their frames (traced_site_of_frame)
SITE_OF_CODE: dict[CodeType, Any] = {}
# each swappable function's own code: its frame while idle stands for its traced frame too
SITE_OF_IDLE_CODE: dict[CodeType, Any] = {}
_active = False


def can_swap(fn: Callable[..., Any], key: str) -> bool:
    """A plain function without free variables; its parameter list has a wrapper (`key`)."""
    return (
        type(fn) is FunctionType
        and not fn.__code__.co_freevars
        and not fn.__code__.co_posonlyargcount
        and not any(part.strip("*=") in _RESERVED for part in key.split(", "))
    )


# parameter names that would shadow the wrapper body's own local
_RESERVED = frozenset({"rec_"})


def copy_function(fn: FunctionType) -> FunctionType:
    """A second function object with fn's code, globals, defaults and attributes."""
    copy = FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    copy.__qualname__ = fn.__qualname__
    copy.__module__ = fn.__module__
    copy.__doc__ = fn.__doc__
    copy.__annotations__ = fn.__annotations__
    copy.__dict__.update(fn.__dict__)
    return copy


def register(fn: FunctionType, site: Any, key: str, names: tuple[str, ...]) -> None:
    """Trace `fn` by code swap from now on (swapped at once if a trace is active)."""
    entry = [fn, fn.__code__, copy_function(fn), site, key, names, None]
    _swappable.append(entry)
    SITE_OF_IDLE_CODE[fn.__code__] = site
    if _active:
        fn.__code__ = _wrapper_code(entry)


def _template(key: str) -> CodeType:
    code = _templates.get(key)
    if code is None:
        # a default's value lives in the function (__defaults__), not in its code
        params, call, positional, keywords = wrapper_text(key, lambda i: "=None")
        source = _TEMPLATE.format(
            params=params,
            call=call,
            positional=positional,
            keywords=keywords,
            recorder=_RECORDER,
            fn=_FN,
            site=_SITE,
            names=_NAMES,
        )
        with warnings.catch_warnings():  # "'str' object is not callable": a marker, replaced
            warnings.simplefilter("ignore", SyntaxWarning)
            module = compile(source, "<traced wrapper>", "exec")
        code = next(c for c in module.co_consts if isinstance(c, CodeType))
        # a real cycle: the generated wrappers import the recorder, which imports this module
        from tensortrace.trace.generated.traced_wrappers import TRACED_WRAPPERS

        factory = TRACED_WRAPPERS.get(key)
        if factory is not None:  # the generated wrapper's file and lines, for a debugger
            code = code.replace(
                co_filename=factory.__code__.co_filename,
                co_firstlineno=factory.__code__.co_firstlineno + 1,
            )
        _templates[key] = code
    return code


def _wrapper_code(entry: list[Any]) -> CodeType:
    built: CodeType | None = entry[6]
    if built is None:
        fn, _, copy, site, key, names, _ = entry
        template = _template(key)
        consts = list(template.co_consts)
        for i, c in enumerate(consts):  # the markers, by value
            if c == _RECORDER:
                consts[i] = _recorder_module()
            elif c == _FN:
                consts[i] = copy
            elif c == _SITE:
                consts[i] = site
            elif c == _NAMES:
                consts[i] = names
        built = template.replace(co_consts=tuple(consts), co_qualname=f"{fn.__qualname__}.wrapper")
        entry[6] = built
        SITE_OF_CODE[built] = site
    return built


def _recorder_module() -> Any:
    # a real cycle: recorder registers its functions here
    from tensortrace.trace import recorder

    return recorder


def is_active() -> bool:
    return _active


def trace_on() -> None:
    """A trace starts: every swappable function takes its wrapper body."""
    global _active
    _active = True
    for entry in _swappable:
        entry[0].__code__ = entry[6] or _wrapper_code(entry)


def trace_off() -> None:
    """The trace stopped: every swappable function runs its own code again."""
    global _active
    _active = False
    for entry in _swappable:
        entry[0].__code__ = entry[1]
