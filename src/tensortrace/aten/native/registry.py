"""The at::native namespace: where native_functions.yaml's `dispatch:` names are looked up.

Mirrors the role of the `at::native` C++ namespace: a YAML entry says `CPU: empty_cpu`, and the
code generator finds `at::native::empty_cpu`. Here each native function registers itself under
its C++ name with `@native_function`, which also makes it a `native` frame of the trace.
Structured kernels register their meta functions (TORCH_META_FUNC) and impl functions
(TORCH_IMPL_FUNC) the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from tensortrace.trace import traced

F = TypeVar("F", bound=Callable[..., Any])

# name -> its overloads: C++ overloads at::native::max(self) and at::native::max(self, other)
# share a name; the code generator picks the one whose parameters fit each schema.
NATIVE_FUNCTIONS: dict[str, list[Callable[..., Any]]] = {}
META_FUNCTIONS: dict[str, Callable[..., Any]] = {}
IMPL_FUNCTIONS: dict[str, Callable[..., Any]] = {}


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
