"""The parameter list of a traced function, and the source of the wrapper made for it.

No PyTorch counterpart: RECORD_FUNCTION is a C++ scope guard, free when the profiler is off;
here each @traced function gets a wrapper with its own parameter list, written from the text
below (Note [Wrappers with the wrapped function's signature] in trace/recorder.py). The
generator writes one factory per list to trace/generated/traced_wrappers.py.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from types import CodeType, FunctionType
from typing import Any

from tensortrace.trace.schema import BEGIN, END

# code_swap._TEMPLATE is this wrapper's body with constants for its closure cells (Note [Traced
# functions that cost nothing while idle] in trace/code_swap.py): both are made from _TRACED.
_FACTORY = """
def {factory}(fn_, site_, names_{defaults}):
    name_, layer_ = site_.name, site_.layer  # Note [What a wrapper reads once]
    def wrapper({params}):
        rec_ = recorder.current
        if rec_ is None:
            return fn_({call})
{traced}
    return wrapper
"""

# Note [A traced wrapper records its own frame]
# While a trace is active a wrapper records its frame itself: what Recorder.begin and end do,
# written out line by line, with its arguments described one by one (a plain number or string
# as itself, else by the function `summarize` learned for its type, Note [A summary by one
# lookup] in trace/arguments.py, else by `summarize`). So a traced call costs the wrapper's
# own frame and the summaries, not two more frames and a loop over its arguments (record_call
# and call_traced, which other threads still take; a parameter list with `*args` or
# `**kwargs` has its arguments described by one call, describe_args). A summary method raises
# AttributeError for an object still being constructed (the `self` of an `__init__`): then
# the arguments are described again by describe_args, which names it. `{recorder}` and the
# others are what the body reads them from: the factory's closure cells here, constants of
# the swapped code in code_swap. The phases (schema.BEGIN, END) are written in as literals and
# each event's tuple is built inside the call that makes it: no module read or local per event.
# After the call the depth is set back to the frame's own, which is what decrementing it gave:
# the frames it called are balanced (each ends, or records its error, before it returns).
# Change the steps in Recorder.begin and end, record_call and this body alike.
#
# Note [What a wrapper reads once]
# What does not change from one call to the next is not read per call: the site's name and
# layer, and the recorder's helpers (its clock, the thread check, the describers of Note [A
# summary by one lookup]). A generated
# wrapper reads the site's in its factory (closure cells) and the helpers as globals of its
# file (imported from recorder.py, `now_` and the others: WRAPPER_READS); the body swapped in
# by code_swap holds them all as constants of its code. Only `recorder.current` and
# `capture_values`, which change, are read from the module per call.
_TRACED = """\
    if rec_.ident != {get_ident_}():  # Note [Each thread has its own stack]
        return {recorder}.call_traced(rec_, {site}, {fn}, {names}, ({positional}), {{{keywords}}})
{described}    index_ = rec_._site_index.get({site})  # Note [Sites by value] (recorder.py)
    if index_ is None:  # the site's first frame in this recording: Recorder._site, written out
        index_ = rec_._site_index[{site}] = len(rec_.sites)
        rec_.sites.append({site})
    events_, depth_ = rec_.events, rec_.depth
    events_.append(  # a row: Note [Events made when the recording stops] (recorder.py)
        ("{begin}", {name}, {layer}, {now_}() - rec_.t0, depth_, index_, "", args_, 0)
    )
    rec_.depth = depth_ + 1
    try:
        result_ = {fn}({call})
    except BaseException as error_:
        rec_.end({site}, {recorder}.error_args(error_))
        raise
    rec_.depth = depth_  # back to this frame's depth (the frames it called are balanced)
    if result_ is None:  # Note [One dict for every None result] (recorder.py)
        outcome_ = {recorder}.NO_RESULT
    else:
        try:
            kind_ = type(result_)
            outcome_ = {{
                "result": result_
                if kind_ in {plain_}
                else {summary_}(kind_, {describe_})(result_)
            }}
        except AttributeError:
            outcome_ = {{"result": {describe_}(result_)}}
    events_.append(
        ("{end}", {name}, {layer}, {now_}() - rec_.t0, depth_, index_, "", outcome_, 0)
    )
    # a kernel wrote memory, or a top-level call finished: read what tensors hold now
    if (depth_ == 0 or {layer} == "kernel") and {recorder}.capture_values is not None:
        {recorder}.capture_values(rec_, len(events_) - 1)
    return result_"""
# the recorder's helpers a wrapper body reads (Note [What a wrapper reads once]): the names
# recorder.py gives them, which the generated files import
WRAPPER_READS = (
    "get_ident_",
    "now_",
    "plain_",
    "summary_",
    "describe_",
)
# names the factory and the wrapper use for themselves (and the builtins the wrapper calls): a
# parameter with one of these names would shadow them, so such a function gets the generic
# wrapper
_RESERVED = frozenset(
    {"fn_", "site_", "names_", "rec_", "recorder", "wrapper", "id", "type", "len"}
    | {"BaseException", "AttributeError", "plain_", "summary_", "describe_", "args_"}
    | {"index_", "events_", "depth_", "name_", "layer_", "begin_", "result_", "error_"}
    | {"outcome_", "when_", "event_", "kind_"}
    | set(WRAPPER_READS)
)

_CO_VARARGS, _CO_VARKEYWORDS = inspect.CO_VARARGS, inspect.CO_VARKEYWORDS

# Every parameter list `traced` has seen in this process for a function of the package (not of
# a test or a notebook): what the generator writes out. Lists of functions traced by code swap
# are added when a trace first needs them (code_swap.prepare_pending).
PARAMETER_LISTS_SEEN: set[str] = set()
# Note [The factories import needs, apart]
# The generated factories are ~32,000 lines (~2.6 MB of bytecode), and import needs few of
# them: the ~30 parameter lists of the ~570 traced functions that get a wrapper (closures, such
# as aliases.py's natives, which cannot be swapped); a function traced by code swap needs its
# list only when a trace starts. So the generator writes the wrapped functions' lists to
# trace/generated/traced_wrappers_at_import.py and the others to traced_wrappers.py, which is
# loaded on the first trace (or the first wrapped function whose list the small one lacks).
# The lists written apart are those `import tensortrace` gave a wrapper, noted at its end, so
# that they do not vary with what a process ran before the generator (a torch.library kernel
# is a closure of the package given a wrapper when a program registers it).
PARAMETER_LISTS_WRAPPED: set[str] = set()  # the package's lists given a wrapper (recorder)
PARAMETER_LISTS_AT_IMPORT: frozenset[str] = frozenset()  # those of them import made
_EMPTY = inspect.Parameter.empty


def note_the_lists_import_wrapped() -> None:
    """Called at the end of tensortrace/__init__.py: see Note [The factories import needs,
    apart]."""
    global PARAMETER_LISTS_AT_IMPORT
    PARAMETER_LISTS_AT_IMPORT = frozenset(PARAMETER_LISTS_WRAPPED)


def generated_factory(key: str) -> Callable[..., Any] | None:
    """The generated factory of parameter list `key`, or None if none is generated (Note [The
    factories import needs, apart])."""
    # a real cycle: the generated factories import the recorder, which imports this module
    from tensortrace.trace.generated import traced_wrappers_at_import

    found = traced_wrappers_at_import.TRACED_WRAPPERS.get(key)
    if found is None:
        from tensortrace.trace.generated import traced_wrappers

        found = traced_wrappers.TRACED_WRAPPERS.get(key)
    return found


def parameter_list(fn: Callable[..., Any]) -> tuple[str, tuple[Any, ...], tuple[str, ...]] | None:
    """`fn`'s parameter list as a wrapper key (`self, other, *, alpha=`), its default values in
    order, and the names of its positional-or-keyword parameters; None if a wrapper with the same
    signature cannot be written (positional-only parameters, no signature).

    Read from the code object (as inspect.signature does, after following `__wrapped__`), which
    is much cheaper than building a Signature for each of the ~2000 traced functions.
    """
    target = fn
    code: CodeType | None
    if type(fn) is FunctionType and not fn.__dict__:
        # a plain function: nothing to unwrap and no __signature__ (each of hasattr's misses
        # below raises and catches an AttributeError; this runs ~5,000 times at import)
        code = fn.__code__
    else:  # inspect.unwrap(fn, stop=...__signature__), without its bookkeeping
        while not hasattr(target, "__signature__") and hasattr(target, "__wrapped__"):
            target = target.__wrapped__
        code = getattr(target, "__code__", None)
        if code is None or not isinstance(target, FunctionType) or hasattr(target, "__signature__"):
            return _parameter_list_of_signature(fn)
    if code.co_posonlyargcount:
        return None
    argc, kwc = code.co_argcount, code.co_kwonlyargcount
    pos_defaults = target.__defaults__ or ()
    kw_defaults = target.__kwdefaults__ or {}
    # ~2000 functions share ~350 parameter lists: build each list's text once
    stars = code.co_flags & _STAR_FLAGS
    n_names = argc + kwc + bool(stars & _CO_VARARGS) + bool(stars & _CO_VARKEYWORDS)
    shape = (code.co_varnames[:n_names], argc, stars, len(pos_defaults), tuple(kw_defaults))
    known = _shapes.get(shape)
    if known is None:
        known = _shapes[shape] = _parameter_list_text(code, len(pos_defaults), kw_defaults)
    text, positional = known
    if not kw_defaults:
        return text, pos_defaults, positional
    kwonly = code.co_varnames[argc : argc + kwc]
    return (
        text,
        pos_defaults + tuple(kw_defaults[n] for n in kwonly if n in kw_defaults),
        positional,
    )


_STAR_FLAGS = _CO_VARARGS | _CO_VARKEYWORDS
_shapes: dict[tuple[Any, ...], tuple[str, tuple[str, ...]]] = {}


def _parameter_list_text(
    code: CodeType, n_pos_defaults: int, kw_defaults: dict[str, Any]
) -> tuple[str, tuple[str, ...]]:
    argc, kwc = code.co_argcount, code.co_kwonlyargcount
    positional = code.co_varnames[:argc]
    kwonly = code.co_varnames[argc : argc + kwc]
    i = argc + kwc
    varargs = code.co_varnames[i] if code.co_flags & _CO_VARARGS else None
    if varargs is not None:
        i += 1
    varkw = code.co_varnames[i] if code.co_flags & _CO_VARKEYWORDS else None
    first_default = argc - n_pos_defaults
    parts = [f"{name}=" if j >= first_default else name for j, name in enumerate(positional)]
    if varargs is not None:
        parts.append(f"*{varargs}")
    elif kwonly:
        parts.append("*")
    parts += [f"{name}=" if name in kw_defaults else name for name in kwonly]
    if varkw is not None:
        parts.append(f"**{varkw}")
    return ", ".join(parts), tuple(positional)


def _parameter_list_of_signature(
    fn: Callable[..., Any],
) -> tuple[str, tuple[Any, ...], tuple[str, ...]] | None:
    """parameter_list for what is not a plain function (a callable object, a builtin)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    parts: list[str] = []
    defaults: list[Any] = []
    star_seen = False
    for p in sig.parameters.values():
        suffix = ""
        if p.default is not _EMPTY:
            suffix = "="
            defaults.append(p.default)
        if p.kind is p.POSITIONAL_OR_KEYWORD:
            parts.append(p.name + suffix)
        elif p.kind is p.VAR_POSITIONAL:
            parts.append(f"*{p.name}")
            star_seen = True
        elif p.kind is p.KEYWORD_ONLY:
            if not star_seen:
                parts.append("*")
                star_seen = True
            parts.append(p.name + suffix)
        elif p.kind is p.VAR_KEYWORD:
            parts.append(f"**{p.name}")
        else:
            return None
    names = tuple(p.name for p in sig.parameters.values() if p.kind is p.POSITIONAL_OR_KEYWORD)
    return ", ".join(parts), tuple(defaults), names


def wrapper_text(key: str, default_of: Callable[[int], str]) -> tuple[str, str, str, str]:
    """The pieces of a wrapper for one parameter list: its parameters (the i-th part's default
    written as `default_of(i)`), the call of the wrapped function, the positional arguments as a
    tuple's items, and the keyword arguments as a dict's items."""
    params, call, positional, keywords = [], [], [], []
    kwonly = False
    for i, part in enumerate(key.split(", ") if key else []):
        name = part.rstrip("=")
        default = default_of(i) if part.endswith("=") else ""
        if part == "*":
            params.append("*")
            kwonly = True
        elif part.startswith("**"):
            params.append(part)
            call.append(part)
            keywords.append(part)
        elif part.startswith("*"):
            params.append(part)
            call.append(part)
            positional.append(part)
            kwonly = True
        elif kwonly:
            params.append(name + default)
            call.append(f"{name}={name}")
            keywords.append(f"{name!r}: {name}")
        else:
            params.append(name + default)
            call.append(name)
            positional.append(name)
    positional_items = ", ".join(positional) + ("," if len(positional) == 1 else "")
    return ", ".join(params), ", ".join(call), positional_items, ", ".join(keywords)


def traced_body(
    key: str,
    recorder: str,
    fn: str,
    site: str,
    names: str,
    reads: dict[str, str] | None = None,
) -> str:
    """The lines a wrapper for one parameter list runs while a trace is active (_TRACED),
    indented for a wrapper at the top level, with `recorder`, `fn`, `site` and `names` written
    as given, and what it reads once (Note [What a wrapper reads once]: `name_`, `layer_` and
    WRAPPER_READS) as `reads` spells them, else by their own names. With `*args` or `**kwargs`
    the arguments are described by describe_args."""
    spelled = {read: read for read in (*WRAPPER_READS, "name_", "layer_")}
    spelled.update(reads or {})
    _, call, positional, keywords = wrapper_text(key, lambda i: "")
    parts = key.split(", ") if key else []
    by_describe_args = f"{recorder}.describe_args({names}, ({positional}), {{{keywords}}})"
    if any(part.startswith("*") and part != "*" for part in parts):  # `*args`, `**kwargs`
        described = f'    args_ = {{"args": {by_describe_args}}}\n'
    else:
        plain, summary, describe = (spelled[r] for r in ("plain_", "summary_", "describe_"))
        one_by_one = ", ".join(
            f"{name!r}: {name} if type({name}) in {plain} "
            f"else {summary}(type({name}), {describe})({name})"
            for name in (part.rstrip("=") for part in parts if part != "*")
        )
        described = (
            "    try:  # each argument as itself, else by its type's summary\n"
            f'        args_ = {{"args": {{{one_by_one}}}}}\n'
            "    except AttributeError:  # an object still being constructed: summarize names it\n"
            f'        args_ = {{"args": {by_describe_args}}}\n'
        )
    return _TRACED.format(
        recorder=recorder,
        fn=fn,
        site=site,
        names=names,
        call=call,
        positional=positional,
        keywords=keywords,
        described=described,
        begin=BEGIN,
        end=END,
        name=spelled["name_"],
        layer=spelled["layer_"],
        **{read: spelled[read] for read in WRAPPER_READS},
    )


def factory_source(key: str, factory: str) -> str:
    """The source of the wrapper factory for one parameter list (see _FACTORY)."""
    parts = key.split(", ") if key else []
    params, call, _, _ = wrapper_text(key, lambda i: f"=_d{i}")
    traced = traced_body(key, "recorder", "fn_", "site_", "names_")
    return _FACTORY.format(
        factory=factory,
        defaults="".join(f", _d{i}" for i, part in enumerate(parts) if part.endswith("=")),
        params=params,
        call=call,
        traced="\n".join("    " + line for line in traced.split("\n")),
    )
