"""The at::native namespace: where native_functions.yaml's `dispatch:` names are looked up.

Mirrors the role of the `at::native` C++ namespace: a YAML entry says `CPU: empty_cpu`, and the
code generator finds `at::native::empty_cpu`. Here each native function registers itself under
its C++ name with `@native_function`, which also makes it a `native` frame of the trace.
Structured kernels register their meta functions (TORCH_META_FUNC) and impl functions
(TORCH_IMPL_FUNC) the same way.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, TypeVar

from tensortrace.trace import traced

F = TypeVar("F", bound=Callable[..., Any])

# Note [Native modules imported on first lookup]
# The ~190 modules of at::native register ~1,000 natives, ~230 meta and impl functions and
# ~150 stub kernels, a quarter of what `import tensortrace` executed; a program calls a few dozen
# operators. So import leaves them out (aten/native/__init__.py), and a lookup that misses
# imports the module that registers the name: the generated index (aten/generated/
# native_index.py, written by torchgen from which module's import registered each name) says
# which. Nothing looks a name up before its operator's dispatch table is first computed (Note
# [A lazy table] in dispatcher.py) or its stub first runs (DispatchStub.get_call_ptr), as the
# generated kernels are found then (Note [Generated kernels imported on first lookup] in
# aten/codegen.py). A registry read finds what an eager import registered: the same functions
# under the same names. A name several modules register (max, where, nonzero_numpy...) is
# looked up with native_overloads, which imports them all and lists the overloads in the index's
# order, the order of an eager import: pick_overload takes the first that fits a schema, and
# nonzero_numpy has two that fit. A name the index does not know (a stale index) imports every
# module. Iterating a registry sees the modules imported so far: native.import_all() first.


class _Registry(dict):  # type: ignore[type-arg]
    """A registry dict whose missing name imports the module that registers it."""

    def __init__(self, table: str) -> None:
        super().__init__()
        self.table = table  # the native_index table that names the module of each key

    def __missing__(self, name: str) -> Any:
        from tensortrace.aten.generated import native_index

        found = getattr(native_index, self.table).get(name, ())
        for module in (found,) if isinstance(found, str) else found:  # META, IMPL: one each
            import_native(module)
        if name not in self:  # not indexed (a stale index): every module
            from tensortrace.aten import native

            native.import_all()
        return dict.__getitem__(self, name)  # a KeyError if no module registers it


def import_native(module: str) -> None:
    """Import aten/native/<module> (dotted: `cpu.copy_kernel`), registering what it holds."""
    importlib.import_module(f"tensortrace.aten.native.{module}")


# name -> its overloads: C++ overloads at::native::max(self) and at::native::max(self, other)
# share a name; the code generator picks the one whose parameters fit each schema.
NATIVE_FUNCTIONS: dict[str, list[Callable[..., Any]]] = _Registry("NATIVES")
META_FUNCTIONS: dict[str, Callable[..., Any]] = _Registry("META")
IMPL_FUNCTIONS: dict[str, Callable[..., Any]] = _Registry("IMPL")


def native_overloads(name: str) -> list[Callable[..., Any]]:
    """Every overload of at::native::<name>, from each module that registers one."""
    from tensortrace.aten.generated import native_index

    modules = native_index.NATIVES.get(name, ())
    for module in modules:
        import_native(module)
    overloads = NATIVE_FUNCTIONS[name]
    if len(modules) > 1:  # listed in the order an import of every module registers them
        order = {f"tensortrace.aten.native.{m}": i for i, m in enumerate(modules)}
        overloads.sort(key=lambda fn: order.get(fn.__module__, len(order)))
    return overloads


def native_function(
    source: str, name: str | None = None, legacy: str | None = None, symbol: str | None = None
) -> Callable[[F], F]:
    """Register `fn` as at::native::<name> and trace it as a native frame."""

    def decorate(fn: F) -> F:
        cpp_name = name or fn.__name__
        qualified = f"at::native::{cpp_name}"
        wrapped = traced("native", qualified, source, symbol or qualified, legacy)(fn)
        NATIVE_FUNCTIONS.setdefault(cpp_name, []).append(wrapped)
        return wrapped

    return decorate


def meta_function(op: str, source: str) -> Callable[[F], F]:
    """TORCH_META_FUNC(op): the shape/dtype half of a structured kernel (key: name.overload)."""

    def decorate(fn: F) -> F:
        base = op.split(".")[0]
        wrapped = traced(
            "native",
            f"at::meta::structured_{op.replace('.', '_')}::meta",
            source,
            legacy=f"TensorIterator::Builder ({base})",
        )(fn)
        META_FUNCTIONS[op] = wrapped
        return wrapped

    return decorate


def impl_function(name: str, source: str, legacy: str | None = None) -> Callable[[F], F]:
    """TORCH_IMPL_FUNC(name): the compute half of a structured kernel."""

    def decorate(fn: F) -> F:
        wrapped = traced("native", f"at::native::structured_{name}::impl", source, legacy=legacy)(
            fn
        )
        IMPL_FUNCTIONS[name] = wrapped
        return wrapped

    return decorate
