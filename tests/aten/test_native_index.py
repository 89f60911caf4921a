"""at::native's modules imported on first lookup: Note [Native modules imported on first lookup]
in aten/native/registry.py. Each check runs in a fresh interpreter, since this one may have
imported every native module already."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import tensortrace
from tensortrace.aten import native
from tensortrace.aten.generated import native_index
from tensortrace.aten.native.dispatch_stub import ALL_STUBS
from tensortrace.aten.native.registry import IMPL_FUNCTIONS, META_FUNCTIONS, NATIVE_FUNCTIONS

# the registries as names of what they hold: (module, qualified name) of each function
DUMP = """
def named(fn):
    fn = getattr(fn, "__wrapped__", fn)
    return [fn.__module__, fn.__qualname__]
"""


def run(code: str) -> object:
    """Run `code` in a fresh interpreter on this tensortrace; it prints one JSON value."""
    env = dict(os.environ, PYTHONPATH=str(Path(tensortrace.__file__).parents[1]))
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def named(fn: object) -> list[str]:
    fn = getattr(fn, "__wrapped__", fn)
    return [fn.__module__, fn.__qualname__]  # type: ignore[attr-defined]


def test_import_leaves_the_native_modules_for_their_first_lookup() -> None:
    loaded = run(
        "import json, sys, tensortrace; "
        "print(json.dumps([m for m in sys.modules if m.startswith('tensortrace.aten.native.')]))"
    )
    assert isinstance(loaded, list)
    assert len(loaded) < len(native.NATIVE_MODULES) // 10, loaded


def test_each_lookup_finds_what_importing_every_module_registers() -> None:
    """Every name looked up first in a fresh interpreter (its module imported then) gives the
    functions an import of every module registers, in the same order."""
    native.import_all()
    found = run(
        DUMP + "import json, tensortrace\n"
        "from tensortrace.aten.generated import native_index as ix\n"
        "from tensortrace.aten.native import registry as r\n"
        "out = {'N': {n: [named(f) for f in r.native_overloads(n)] for n in ix.NATIVES},\n"
        "       'M': {n: named(r.META_FUNCTIONS[n]) for n in ix.META},\n"
        "       'I': {n: named(r.IMPL_FUNCTIONS[n]) for n in ix.IMPL}}\n"
        "print(json.dumps(out))"
    )
    assert isinstance(found, dict)
    # a name several modules register lists its overloads in the order they were imported
    # (test_overloads_registered_by_several_modules_fit_one_schema_each)
    assert {n: sorted(fns) for n, fns in found["N"].items()} == {
        n: sorted(named(f) for f in fns) for n, fns in NATIVE_FUNCTIONS.items()
    }
    one_module = {n for n, modules in native_index.NATIVES.items() if len(modules) == 1}
    assert {n: found["N"][n] for n in one_module} == {
        n: [named(f) for f in NATIVE_FUNCTIONS[n]] for n in one_module
    }
    assert found["M"] == {n: named(f) for n, f in META_FUNCTIONS.items()}
    assert found["I"] == {n: named(f) for n, f in IMPL_FUNCTIONS.items()}


def test_each_stub_finds_its_kernels_on_first_call() -> None:
    native.import_all()
    found = run(
        DUMP + "import json, tensortrace\n"
        "from tensortrace.aten.native import import_all\n"
        "from tensortrace.aten.generated import native_index as ix\n"
        "from tensortrace.aten.native.dispatch_stub import ALL_STUBS\n"
        "from tensortrace.c10.device import DeviceType\n"
        "import_all()  # every stub declared, no CUDA kernel made yet\n"
        "out = {n: named(s.get_call_ptr(DeviceType.CPU)) for n, s in ALL_STUBS.items()\n"
        "       if n in ix.CPU_KERNELS}\n"
        "cuda = {n: s.get_call_ptr(DeviceType.CUDA).__name__ for n, s in ALL_STUBS.items()\n"
        "        if n in ix.CPU_KERNELS}\n"
        "print(json.dumps([out, cuda]))"
    )
    assert isinstance(found, list)
    with_cpu = {n: s for n, s in ALL_STUBS.items() if s.cpu_dispatch_ptr is not None}
    assert set(with_cpu) == set(native_index.CPU_KERNELS)
    assert found[0] == {n: named(s.cpu_dispatch_ptr) for n, s in with_cpu.items()}
    assert found[1]["copy_stub"] == "copy_kernel_cuda"  # its own, not one made from the CPU's
    assert found[1]["add_stub"] == "add_kernel_cuda"


def test_importing_the_native_modules_records_nothing() -> None:
    """A lookup may import a module while a trace records: no module's import is a step."""
    found = run(
        "import json, tensortrace\n"
        "from tensortrace.aten.native import import_all\n"
        "with tensortrace.record() as t:\n"
        "    import_all()\n"
        "print(json.dumps(len(t.events)))"
    )
    assert found == 0


def test_overloads_registered_by_several_modules_are_chosen_as_before() -> None:
    """native_overloads lists the overloads of a name several modules register in the order
    an import of every module made, whatever order they were imported in: pick_overload takes
    the first that fits a schema, and some names have two that fit (nonzero_numpy:
    indexing's tuple and tensor_compare_close's list)."""
    from tensortrace.aten.codegen import _parameters
    from tensortrace.aten.native.registry import native_overloads
    from tensortrace.torchgen.inputs import py_name
    from tensortrace.torchgen.model import (
        NATIVE_FUNCTIONS_YAML,
        parse_native_functions,
        read_input,
    )

    native.import_all()
    shared = {n: modules for n, modules in native_index.NATIVES.items() if len(modules) > 1}
    assert shared  # max, min, where...
    for name, modules in shared.items():
        NATIVE_FUNCTIONS[name].reverse()  # as if the modules were imported the other way round
        found = [fn.__module__ for fn in native_overloads(name)]
        assert found == [f"tensortrace.aten.native.{m}" for m in modules], name
    checked, several = set(), set()
    for f in parse_native_functions(read_input(NATIVE_FUNCTIONS_YAML)):
        for name in set(f.entry.get("dispatch", {}).values()) & set(shared):
            names = {py_name(a.name) for a in f.schema.arguments}
            fits = []
            for fn in native_overloads(name):
                params, required = _parameters(fn)
                if names <= set(params) and required <= names:
                    fits.append(fn)
            assert fits, (f.schema, name)
            checked.add(name)
            if len(fits) > 1:
                several.add(name)
    assert checked == set(shared)
    assert several == {"conj_physical", "nonzero_numpy"}
