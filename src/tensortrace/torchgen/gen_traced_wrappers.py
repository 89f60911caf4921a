"""Write the @traced wrappers: one factory per parameter list of a traced function.

See Note [Wrappers with the wrapped function's signature] in trace/recorder.py. The generator
imports every module of the package, so that every `@traced` decoration has run, and writes one
factory for each parameter list `traced` has seen (PARAMETER_LISTS_SEEN).
"""

from __future__ import annotations

import importlib
import pkgutil

import tensortrace
from tensortrace.trace import code_swap, recorder
from tensortrace.trace.parameter_lists import PARAMETER_LISTS_SEEN

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


def gen_traced_wrappers() -> tuple[str, str]:
    doc = (
        "The wrappers `@traced` puts around a function: one factory per parameter list.\n\n"
        "See Note [Wrappers with the wrapped function's signature] in trace/recorder.py. "
        "`traced(...)(fn)`\nlooks up the factory of fn's parameter list here and calls it "
        "with fn, its FrameSite, the\nnames of its positional parameters and its default "
        "values. The wrapper is what a debugger\nsteps through on the way into fn: one "
        "read of `recorder.current`, then the call."
    )
    code_swap.prepare_pending()  # the parameter lists of functions traced by code swap
    keys = sorted(PARAMETER_LISTS_SEEN)
    out = [
        "from collections.abc import Callable",
        "from typing import Any",
        "",
        "from tensortrace.trace import recorder",
        "",
    ]
    for i, key in enumerate(keys):
        out.append(f"\n# ({key})" + recorder.factory_source(key, f"traced_{i}").rstrip())
    out += ["", "", "TRACED_WRAPPERS: dict[str, Callable[..., Any]] = {"]
    out += [f"    {key!r}: traced_{i}," for i, key in enumerate(keys)]
    out.append("}")
    return doc, "\n".join(out) + "\n"
