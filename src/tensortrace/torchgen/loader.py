"""Load the generated modules of a package, or build them in memory when they are stale.

Note [Stale generated files]
The generated files are checked in, so a branch that adds an entry to native_functions.yaml
and does not run `python -m tensortrace.torchgen` leaves them behind the YAML. Importing them
then would bind the old operators: a silent wrong binding. So each generated package's
__init__ records the fingerprint of the inputs it was written from (INPUTS_SHA256, and their
CRC-32, INPUTS_CRC32, which the loader compares: Note [A CRC-32 of the inputs at import] in
inputs.py); when it does not match the current inputs, the loader warns and runs the generator
in memory instead, so the runtime always matches the YAML (it is only slower to import), and
tests/test_generated_files.py fails until the files are regenerated.
"""

from __future__ import annotations

import functools
import importlib
import sys
import types
import warnings

from tensortrace.torchgen.inputs import inputs_crc32

_fingerprint = functools.cache(inputs_crc32)  # Note [A CRC-32 of the inputs at import]


def load(package: str) -> dict[str, types.ModuleType]:
    """Import `package`'s generated modules in order (or build them), name -> module."""
    init = importlib.import_module(package)
    if getattr(init, "INPUTS_CRC32", None) == _fingerprint():
        return {name: importlib.import_module(f"{package}.{name}") for name in init.MODULES}
    # the generator is imported only when the files on disk are stale
    from tensortrace.torchgen.gen import COMMAND, package_sources

    warnings.warn(
        f"{package} is out of date with its inputs (the YAML files, "
        f"torchgen): built in memory instead; `{COMMAND}` rewrites the files",
        RuntimeWarning,
        stacklevel=2,
    )
    modules = {}
    for name, source in package_sources(package).items():
        qualified = f"{package}.{name}"
        module = types.ModuleType(qualified)
        module.__file__ = f"<{qualified}, generated in memory>"
        sys.modules[qualified] = module
        setattr(init, name, module)
        exec(compile(source, module.__file__, "exec"), module.__dict__)
        modules[name] = module
    return modules
