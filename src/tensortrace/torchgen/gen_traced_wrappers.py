"""Write the @traced wrappers: one factory per parameter list of a traced function.

See Note [Wrappers with the wrapped function's signature] in trace/recorder.py. The generator
imports every module of the package, so that every `@traced` decoration has run, and writes one
factory for each parameter list `traced` has seen (PARAMETER_LISTS_SEEN), in two files
(Note [The factories import needs, apart] in trace/parameter_lists.py).
"""

from __future__ import annotations

import importlib
import pkgutil

import tensortrace
from tensortrace.trace import code_swap, parameter_lists, recorder
from tensortrace.trace.parameter_lists import PARAMETER_LISTS_SEEN, WRAPPER_READS

# import-only entry points: running them would do more than define functions
SKIP_MODULES = ("tensortrace.torchgen.__main__",)


def import_everything() -> list[str]:
    """Import each module of the package; return the ones that could not be imported (an
    optional dependency missing), which the generator reports."""
    failed = []
    for info in pkgutil.walk_packages(tensortrace.__path__, "tensortrace."):
        if info.name in SKIP_MODULES:
            continue
        try:
            importlib.import_module(info.name)
        except ImportError as exc:
            failed.append(f"{info.name}: {exc}")
    return failed


def gen_traced_wrappers() -> dict[str, tuple[str, str]]:
    """file name -> (docstring, code): the factories of the lists of functions given a
    wrapper, which import loads, and the others (Note [The factories import needs, apart])."""
    code_swap.prepare_pending()  # the parameter lists of functions traced by code swap
    wrapped = parameter_lists.PARAMETER_LISTS_AT_IMPORT  # noted when the package was imported
    at_import = sorted(wrapped & PARAMETER_LISTS_SEEN)
    rest = sorted(PARAMETER_LISTS_SEEN - wrapped)
    doc = (
        "The factories of the parameter lists of @traced functions that get a wrapper (not "
        "traced by\ncode swap), which import needs: Note [The factories import needs, "
        "apart] in\ntrace/parameter_lists.py. traced_wrappers.py beside it has the others."
    )
    return {
        "traced_wrappers_at_import.py": (doc, _factories_module(at_import)),
        "traced_wrappers.py": (_DOC, _factories_module(rest)),
    }


def _factories_module(keys: list[str]) -> str:
    out = [
        "from collections.abc import Callable",
        "from typing import Any",
        "",
        "from tensortrace.trace import recorder",
        "from tensortrace.trace.recorder import (  # Note [What a wrapper reads once]",
        *(f"    {read}," for read in sorted(WRAPPER_READS)),
        ")",
        "",
    ]
    for i, key in enumerate(keys):
        out.append(f"\n# ({key})" + recorder.factory_source(key, f"traced_{i}").rstrip())
    out += ["", "", "TRACED_WRAPPERS: dict[str, Callable[..., Any]] = {"]
    out += [f"    {key!r}: traced_{i}," for i, key in enumerate(keys)]
    out.append("}")
    return "\n".join(out) + "\n"


_DOC = (
    "The wrappers `@traced` puts around a function: one factory per parameter list.\n\n"
    "See Note [Wrappers with the wrapped function's signature] in trace/recorder.py. "
    "`traced(...)(fn)`\nlooks up the factory of fn's parameter list here and calls it "
    "with fn, its FrameSite, the\nnames of its positional parameters and its default "
    "values. The wrapper is what a debugger\nsteps through on the way into fn: one "
    "read of `recorder.current`, then the call.\nThe lists of functions that get a "
    "wrapper at import are in traced_wrappers_at_import.py\n(Note [The factories import "
    "needs, apart] in trace/parameter_lists.py)."
)
