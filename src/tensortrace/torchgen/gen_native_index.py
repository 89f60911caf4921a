"""The index of at::native: which module's import registers each native, meta and impl function
and each stub kernel, written to aten/generated/native_index.py (Note [Native modules imported
on first lookup] in aten/native/registry.py).

The registrations are read as an import makes them, in a fresh interpreter (this file run as a
script): a meta path hook wraps each module's execution of the package and notes what the
registries gained while that module's own top-level code ran (not what the modules it imported
registered meanwhile), with the package imported and then every native module (import_all).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

NATIVE = "tensortrace.aten.native."
# (kind letter, the index table it fills)
TABLES = {"N": "NATIVES", "M": "META", "I": "IMPL", "C": "CPU_KERNELS", "G": "CUDA_KERNELS"}

Entry = tuple[str, str, int]  # (kind, name, id of what is registered)


def _registrations() -> set[Entry]:
    """Everything the registries hold now (modules still being imported are skipped)."""
    found: set[Entry] = set()
    registry = sys.modules.get("tensortrace.aten.native.registry")
    if registry is not None and hasattr(registry, "IMPL_FUNCTIONS"):
        for name, fns in registry.NATIVE_FUNCTIONS.items():
            found.update(("N", name, id(fn)) for fn in fns)
        found.update(("M", k, id(v)) for k, v in registry.META_FUNCTIONS.items())
        found.update(("I", k, id(v)) for k, v in registry.IMPL_FUNCTIONS.items())
    stubs = sys.modules.get("tensortrace.aten.native.dispatch_stub")
    if stubs is not None and hasattr(stubs, "ALL_STUBS"):
        for name, stub in stubs.ALL_STUBS.items():
            if stub.cpu_dispatch_ptr is not None:
                found.add(("C", name, id(stub.cpu_dispatch_ptr)))
            if stub.cuda_dispatch_ptr is not None:
                found.add(("G", name, id(stub.cuda_dispatch_ptr)))
    return found


class _Noting(importlib.abc.Loader):
    """A module's loader that notes what the module's own top-level code registered."""

    def __init__(self, inner: Any, name: str, log: list[tuple[str, set[Entry]]]) -> None:
        self.inner, self.name, self.log = inner, name, log

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        created: ModuleType | None = self.inner.create_module(spec)
        return created

    def exec_module(self, module: ModuleType) -> None:
        before = _registrations()
        _NESTED.append(set())
        try:
            self.inner.exec_module(module)
        finally:
            nested = _NESTED.pop()
            made = _registrations() - before
            self.log.append((self.name, made - nested))
            if _NESTED:
                _NESTED[-1].update(made)


_NESTED: list[set[Entry]] = []


class _Finder(importlib.abc.MetaPathFinder):
    def __init__(self, log: list[tuple[str, set[Entry]]]) -> None:
        self.log = log

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not name.startswith("tensortrace."):
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _Noting(spec.loader, name, self.log)
        return spec


def _noted() -> dict[str, dict[str, list[str]]]:
    """Run in the fresh interpreter: table -> name -> the modules that register it, in order."""
    log: list[tuple[str, set[Entry]]] = []
    sys.meta_path.insert(0, _Finder(log))
    importlib.import_module("tensortrace")
    importlib.import_module("tensortrace.aten.native").import_all()
    tables: dict[str, dict[str, list[str]]] = {t: {} for t in TABLES.values()}
    for module, made in log:
        for kind, name, _ in sorted(made):
            if not module.startswith(NATIVE):
                raise RuntimeError(f"{module} registers {name}: not an at::native module")
            modules = tables[TABLES[kind]].setdefault(name, [])
            if module[len(NATIVE) :] not in modules:
                modules.append(module[len(NATIVE) :])
    return tables


def native_index_code() -> str:
    """The code of aten/generated/native_index.py, from a fresh interpreter's import."""
    root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run(
        [sys.executable, "-c", f"import runpy; runpy.run_path({__file__!r}, run_name='__main__')"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    tables = json.loads(done.stdout)
    out = []
    for table in TABLES.values():
        entries = tables[table]
        if table == "NATIVES":  # a name several modules register: all of them, in import order
            out.append(f"{table}: dict[str, tuple[str, ...]] = {{")
            for k, v in sorted(entries.items()):
                modules = ", ".join(json.dumps(m) for m in v) + ("," if len(v) == 1 else "")
                out.append(f"    {json.dumps(k)}: ({modules}),")
        else:
            out.append(f"{table}: dict[str, str] = {{")
            for k, v in sorted(entries.items()):
                assert len(v) == 1, f"{table}[{k!r}] registered by {v}"
                out.append(f"    {json.dumps(k)}: {json.dumps(v[0])},")
        out += ["}", ""]
    return "\n".join(out)


if __name__ == "__main__":
    print(json.dumps(_noted()))
