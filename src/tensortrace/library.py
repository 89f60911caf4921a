"""torch.library: define operators and register their kernels from Python.

Mirrors `torch/library.py`. A Library is TORCH_LIBRARY(ns, m) (kind "DEF"), TORCH_LIBRARY_IMPL
("IMPL") or TORCH_LIBRARY_FRAGMENT ("FRAGMENT") made at run time: `define` parses a schema with
the dispatcher's schema parser and registers an OperatorHandle, `impl` registers a Python
function as the kernel of one dispatch key (Note [Operators torch.library defines] in
aten/dispatcher.py). Destroying the Library (`_destroy()`, or its last reference going away)
undoes every registration it made, as the C++ registration handles' destructors do.
"""

from __future__ import annotations

import functools
import re
import sys
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import tensortrace as torch
from tensortrace import _ops
from tensortrace._library import utils as _utils
from tensortrace._library.custom_ops import CustomOpDef as CustomOpDef
from tensortrace._library.custom_ops import _maybe_get_opdef
from tensortrace._library.custom_ops import custom_op as custom_op
from tensortrace._library.infer_schema import infer_schema as infer_schema
from tensortrace._ops import OpOverload
from tensortrace.csrc import python_dispatch

__all__ = [
    "Library",
    "custom_op",
    "define",
    "fallthrough_kernel",
    "impl",
    "infer_schema",
    "register_autograd",
    "register_fake",
    "register_kernel",
]

# keys "ns/name/dispatch_key" of every Python impl, and "ns::name" of every Python def
_impls: set[str] = set()
_defs: set[str] = set()

# prim is reserved by TorchScript interpreter
_reserved_namespaces = ["prim"]


def fallthrough_kernel() -> None:
    """A dummy function to pass to ``Library.impl`` in order to register a fallthrough."""
    raise NotImplementedError("fallthrough_kernel() should never be called.")


fallthrough_kernel.__is_fallthrough__ = True  # type: ignore[attr-defined]


class Library:
    """A library of operators in namespace `ns`: "DEF" defines it (once), "IMPL" only
    registers kernels, "FRAGMENT" may define more operators in a namespace another
    Library made. `dispatch_key`: the key impl() uses when given none."""

    def __init__(self, ns: str, kind: str, dispatch_key: str = "") -> None:
        if kind not in ("IMPL", "DEF", "FRAGMENT"):
            raise ValueError(f"Unsupported kind: {kind}")
        if ns in _reserved_namespaces and (kind == "DEF" or kind == "FRAGMENT"):
            raise ValueError(
                f"{ns} is a reserved namespace. Please try creating a library with another name."
            )
        frame = sys._getframe(1)
        filename, lineno = frame.f_code.co_filename, frame.f_lineno
        self.m: python_dispatch.DispatchModule | None = python_dispatch._dispatch_library(
            kind, ns, dispatch_key, filename, lineno
        )
        self.ns = ns
        self._op_defs: set[str] = set()
        self._op_impls: set[str] = set()
        self.kind = kind
        self.dispatch_key = dispatch_key
        # the registrations die with the Library, as the C++ handles do with their owner
        weakref.finalize(self, _del_library, self._op_impls, self._op_defs, self.m)

    def __repr__(self) -> str:
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def define(self, schema: str, alias_analysis: str = "", *, tags: Any = ()) -> str:
        """Defines a new operator in this namespace; returns its name (`foo`, `foo.bar`)."""
        if alias_analysis not in ["", "FROM_SCHEMA", "CONSERVATIVE"]:
            raise RuntimeError(f"Invalid alias_analysis type {alias_analysis}")
        if self.m is None:
            raise AssertionError("Library object has been destroyed")
        name = schema.split("(")[0]
        packet_name = name.split(".")[0] if "." in name else name
        namespace = vars(torch.ops).get(self.ns)
        packet = vars(namespace).get(packet_name) if namespace is not None else None
        result = self.m.define(schema, alias_analysis, tuple(tags) if tags else ())
        if packet is not None:
            _ops._refresh_packet(packet)  # the new overload joins the packet
        qualname = self.ns + "::" + name
        self._op_defs.add(qualname)
        _defs.add(qualname)
        return result

    def _resolve_op_name(self, op_name: Any, api_name: str) -> str:
        if isinstance(op_name, str):
            return op_name
        if isinstance(op_name, OpOverload):
            name = op_name._schema.name
            if op_name._schema.overload_name:
                name = name + "." + op_name._schema.overload_name
            return name
        raise RuntimeError(
            f"{api_name} should be passed either a name or an OpOverload object "
            f"as the first argument, got {type(op_name)}"
        )

    def impl(
        self,
        op_name: Any,
        fn: Callable[..., Any],
        dispatch_key: str = "",
        *,
        with_keyset: bool = False,
        allow_override: bool = True,
    ) -> None:
        """Registers `fn` as the operator's kernel for `dispatch_key` ("CPU", "CUDA",
        "Autograd", "CompositeImplicitAutograd", ...); fallthrough_kernel skips the key."""
        if not callable(fn):
            raise TypeError(
                f"Input function is required to be a callable but found type {type(fn)}"
            )
        if dispatch_key == "":
            dispatch_key = self.dispatch_key
        name = self._resolve_op_name(op_name, "impl")
        key = self.ns + "/" + name.split("::")[-1] + "/" + dispatch_key
        if (not allow_override) and key in _impls:
            raise RuntimeError(
                "This is not allowed since there's already a kernel registered from python "
                "overriding {}'s behavior for {} dispatch key and {} namespace.".format(
                    name.split("::")[-1], dispatch_key, self.ns
                )
            )
        if self.m is None:
            raise AssertionError("Library object has been destroyed")
        self.m.impl(
            name, dispatch_key if dispatch_key != "" else "CompositeImplicitAutograd", fn,
            with_keyset,
        )  # fmt: skip
        _impls.add(key)
        self._op_impls.add(key)

    def _destroy(self) -> None:
        if self.m is not None:
            self.m.reset()
        self.m = None
        global _impls
        _impls -= self._op_impls
        _clear_torch_ops_cache(self._op_defs)


def _clear_torch_ops_cache(op_defs: set[str]) -> None:
    """Forget torch.ops.ns.foo: the next lookup sees the overloads that are still defined."""
    ops_ns = vars(torch).get("ops")
    if ops_ns is None:
        return
    for qualname in op_defs:
        ns, name_with_overload = qualname.split("::")
        name = name_with_overload.split(".")[0]
        namespace = vars(ops_ns).get(ns)
        if namespace is None or name not in vars(namespace):
            continue
        delattr(namespace, name)
        if name in namespace._dir:
            namespace._dir.remove(name)


def _del_library(
    op_impls: set[str], op_defs: set[str], m: python_dispatch.DispatchModule | None
) -> None:
    global _impls, _defs
    _impls -= op_impls
    _defs -= op_defs
    if m is not None:
        m.reset()
    _clear_torch_ops_cache(op_defs)


_keep_alive: list[Library] = []

NAMELESS_SCHEMA = re.compile(r"\(.*\) -> .*")


@functools.singledispatch
def define(qualname: Any, schema: str, *, lib: Library | None = None, tags: Any = ()) -> Any:
    """Defines a new operator `qualname` ("namespace::name") with `schema` ("(Tensor x) ->
    Tensor"); with `lib`, its lifetime is the Library's."""
    if not isinstance(qualname, str):
        raise ValueError(
            f"define(qualname, schema): expected qualname "
            f"to be instance of str, got {type(qualname)}"
        )
    namespace, name = _utils.parse_namespace(qualname)
    if lib is None:
        lib = Library(namespace, "FRAGMENT")
        _keep_alive.append(lib)
    if not NAMELESS_SCHEMA.fullmatch(schema):
        raise ValueError(
            f"define(qualname, schema, ...): expected schema "
            f'to look like e.g. "(Tensor x) -> Tensor" but '
            f'got "{schema}"'
        )
    lib.define(name + schema, alias_analysis="", tags=tags)


@define.register
def _(lib: Library, schema: str, alias_analysis: str = "") -> Callable[..., Any]:
    """The old torch.library.define(lib, schema): a decorator that also registers the impl."""

    def wrap(f: Callable[..., Any]) -> Callable[..., Any]:
        name = lib.define(schema, alias_analysis)
        lib.impl(name, f)
        return f

    return wrap


def _device_type_to_key(device_type: str) -> str:
    if device_type == "default":
        return "CompositeExplicitAutograd"
    return python_dispatch._dispatch_key_for_device(device_type)


def _is_dispatch_key(name: str) -> bool:
    try:
        python_dispatch.parse_dispatch_key(name)
    except RuntimeError:
        return False
    return True


def _impl(
    qualname: str,
    types: str | Sequence[str],
    func: Callable[..., Any] | None = None,
    *,
    lib: Library | None = None,
) -> Any:
    if isinstance(types, str):
        types = (types,)
    keys = {typ if _is_dispatch_key(typ) else _device_type_to_key(typ) for typ in types}

    def register_(func: Callable[..., Any]) -> None:
        namespace, _ = _utils.parse_namespace(qualname)
        use_lib = lib
        if use_lib is None:
            use_lib = Library(namespace, "FRAGMENT")
            _keep_alive.append(use_lib)
        for key in sorted(keys):
            use_lib.impl(qualname, func, key)

    if func is None:
        return register_
    register_(func)
    return None


@functools.singledispatch
def impl(
    qualname: Any,
    types: str | Sequence[str],
    func: Callable[..., Any] | None = None,
    *,
    lib: Library | None = None,
) -> Any:
    """Register an implementation for device types ("cpu", "cuda", or "default" for all)
    of operator `qualname`; a decorator when `func` is not given."""
    return _impl(qualname, types, func, lib=lib)


@impl.register
def _(lib: Library, name: str, dispatch_key: str = "") -> Callable[..., Any]:
    """Legacy torch.library.impl(lib, name, dispatch_key) decorator."""

    def wrap(f: Callable[..., Any]) -> Callable[..., Any]:
        lib.impl(name, f, dispatch_key)
        return f

    return wrap


def _resolve_op(op: Any) -> Any:
    if isinstance(op, OpOverload):
        return op._name
    return op


def register_kernel(
    op: Any,
    device_types: str | Sequence[str] | None,
    func: Callable[..., Any] | None = None,
    /,
    *,
    lib: Library | None = None,
) -> Any:
    """Register `func` as the kernel of `op` for these device types (None: all of them)."""
    opdef = _maybe_get_opdef(_resolve_op(op))
    if opdef is not None:
        return opdef.register_kernel(device_types, func)
    if device_types is None:
        device_types = "CompositeExplicitAutograd"
    return _impl(_resolve_op(op), device_types, func, lib=lib)


def register_fake(
    op: Any, func: Callable[..., Any] | None = None, /, *, lib: Library | None = None
) -> Any:
    """Register the op's meta kernel (shapes and dtypes only): its Meta key here."""
    opdef = _maybe_get_opdef(_resolve_op(op))

    def register(func: Callable[..., Any]) -> Callable[..., Any]:
        if opdef is not None:
            return opdef.register_fake(func)
        _impl(_resolve_op(op), "Meta", func, lib=lib)
        return func

    return register if func is None else register(func)


def register_autograd(
    op: Any,
    backward: Callable[..., Any],
    /,
    *,
    setup_context: Callable[..., Any] | None = None,
    lib: Library | None = None,
) -> None:
    """Register the backward formula (and the setup_context that saves for it) of `op`."""
    from tensortrace._library import autograd

    opdef = _maybe_get_opdef(_resolve_op(op))
    if opdef is not None:
        opdef.register_autograd(backward, setup_context=setup_context)
        return
    qualname = _resolve_op(op)
    overload = _utils.lookup_op(qualname)
    schema = overload._schema
    if _utils.is_out(overload):
        raise RuntimeError(
            f"Cannot register autograd formula for operator tagged with "
            f"torch.Tag.out: {overload}. Out variants do not support autograd."
        )
    if not _utils.is_functional_schema(schema):
        raise RuntimeError(
            f"Cannot register autograd formula for non-functional operator "
            f"{overload} with schema {schema}. Please create "
            f"a functional operator and register an autograd formula for that."
        )
    info = autograd.Info(backward, setup_context)
    autograd_kernel = autograd.make_autograd_impl(overload, info)
    namespace, opname = _utils.parse_namespace(qualname)
    use_lib = lib
    if use_lib is None:
        use_lib = Library(namespace, "FRAGMENT")
        _keep_alive.append(use_lib)
    use_lib.impl(opname, autograd_kernel, "Autograd", with_keyset=True)
