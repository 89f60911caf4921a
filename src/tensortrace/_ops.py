"""torch.ops: every operator the dispatcher knows, as Python objects.

Mirrors `torch/_ops.py`. `torch.ops.aten` is an _OpNamespace; `torch.ops.aten.add` is the
OpOverloadPacket of all of add's overloads; `torch.ops.aten.add.Tensor` is one OpOverload,
which holds that overload's OperatorHandle. Calling an OpOverload builds the schema's argument
stack from the Python arguments and calls the handle (Note [torch.ops skips the Python
binding] in csrc/pybind_utils.py); calling a packet first picks the overload whose schema takes
the arguments, as the JIT does.
"""

from __future__ import annotations

import importlib
import types
from collections.abc import Iterator
from functools import cached_property
from typing import Any

from tensortrace.aten.dispatcher import OperatorHandle, singleton
from tensortrace.c10.dispatch_key import DispatchKey, DispatchKeySet
from tensortrace.csrc.pybind_utils import (
    create_stack_for_schema,
    invoke_operator_from_python,
    to_py_object,
)
from tensortrace.csrc.python_function_schema import FunctionSchema
from tensortrace.csrc.python_variable import end_handle_th_errors


def _invoke(handles: list[OperatorHandle], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    try:
        return invoke_operator_from_python(handles, args, kwargs)
    except Exception as exc:  # HANDLE_TH_ERRORS: nothing the failed call made outlives it
        del args, kwargs
        raise end_handle_th_errors(exc) from exc.__cause__


class OpOverload:
    """One overload of an operator: `torch.ops.aten.add.Tensor`."""

    def __init__(self, overloadpacket: OpOverloadPacket, handle: OperatorHandle) -> None:
        self._handle = handle
        self._schema = FunctionSchema(handle.schema, handle.entry.get("func"))
        self._overloadpacket = overloadpacket
        self._overloadname = handle.schema.overload_name or "default"
        self._name = self._schema.name
        if handle.schema.overload_name:
            self._name += "." + handle.schema.overload_name
        self.__name__ = f"{handle.schema.name}.{self._overloadname}"
        self.__module__ = overloadpacket.__module__
        self.__qualname__ = self._name
        self.is_view = handle.schema.is_view
        self._tags = list(handle.entry.get("tags") or [])

    @cached_property
    def _namespace(self) -> str:
        return self._schema.name.split("::", maxsplit=1)[0]

    @cached_property
    def _opname(self) -> str:
        return self._schema.name.split("::", maxsplit=1)[1]

    @property
    def namespace(self) -> str:
        return self._namespace

    @property
    def overloadpacket(self) -> OpOverloadPacket:
        return self._overloadpacket

    @property
    def op(self) -> OpOverload:
        return self

    @property
    def tags(self) -> list[Any]:
        return self._tags

    def name(self) -> str:
        return self._name

    def __deepcopy__(self, memo: Any = None) -> OpOverload:
        return self

    def __repr__(self) -> str:
        return (
            f"<OpOverload(op='{self._namespace}.{self._opname}', overload='{self._overloadname}')>"
        )

    def __str__(self) -> str:
        return f"{self._namespace}.{self._opname}.{self._overloadname}"

    def __hash__(self) -> int:
        return id(self._handle)

    def __call__(self, /, *args: Any, **kwargs: Any) -> Any:
        return _invoke([self._handle], args, kwargs)

    def redispatch(self, /, keyset: DispatchKeySet, *args: Any, **kwargs: Any) -> Any:
        """OperatorHandle::redispatchBoxed: the kernel for `keyset`, no new aten:: scope."""
        stack = create_stack_for_schema(self._handle.schema, args, kwargs)
        return to_py_object(self._handle.redispatch(keyset, *stack))

    def has_kernel_for_dispatch_key(self, k: DispatchKey | str) -> bool:
        from tensortrace.csrc.python_dispatch import _dispatch_has_kernel_for_dispatch_key

        return _dispatch_has_kernel_for_dispatch_key(self._name, str(k))

    def _can_decompose(self) -> bool:
        return DispatchKey.CompositeImplicitAutograd in self._handle.registered

    def decompose(self, *args: Any, **kwargs: Any) -> Any:
        """The CompositeImplicitAutograd kernel, called directly, or NotImplemented."""
        kernel = self._handle.registered.get(DispatchKey.CompositeImplicitAutograd)
        if kernel is None:
            return NotImplemented
        self._handle.dispatch_table  # noqa: B018 - makes any deferred kernel
        kernel = self._handle.registered[DispatchKey.CompositeImplicitAutograd]
        stack = create_stack_for_schema(self._handle.schema, args, kwargs)
        return to_py_object(kernel.fn(*stack))  # type: ignore[union-attr,misc]


class OpOverloadPacket:
    """All the overloads of one operator: `torch.ops.aten.add`."""

    __file__ = "torch.ops"

    def __init__(self, qualified_op_name: str, op_name: str, handles: list[OperatorHandle]) -> None:
        self._qualified_op_name = qualified_op_name
        self.__name__ = op_name
        self._handles = handles
        self._overload_names = [h.schema.overload_name for h in handles]
        self._dir: list[str] = []

    def __deepcopy__(self, memo: Any = None) -> OpOverloadPacket:
        return self

    def __repr__(self) -> str:
        return "<OpOverloadPacket(op='{}.{}')>".format(*self._qualified_op_name.split("::"))

    def __hash__(self) -> int:
        return hash(self._qualified_op_name)

    def __str__(self) -> str:
        return "{}.{}".format(*self._qualified_op_name.split("::"))

    @property
    def op(self) -> OpOverloadPacket:
        return self

    @property
    def _schemas(self) -> dict[str, FunctionSchema]:
        return {
            h.schema.overload_name: FunctionSchema(h.schema, h.entry.get("func"))
            for h in self._handles
        }

    def __getattr__(self, key: str) -> OpOverload:
        if key.startswith("__"):
            raise AttributeError(
                f"'{self}' can't have an overload name beginning with '__' and the "
                f"underlying op {self} has no attribute {key} either."
            )
        use_key = "" if key == "default" else key
        for handle in self._handles:
            if handle.schema.overload_name == use_key:
                overload = OpOverload(self, handle)
                setattr(self, key, overload)  # one OpOverload per overload: `is` holds
                self._dir.append(key)
                return overload
        raise AttributeError(f"The underlying op of '{self}' has no overload name '{key}'")

    def __iter__(self) -> Iterator[str]:
        return iter(self._dir)

    def __call__(self, /, *args: Any, **kwargs: Any) -> Any:
        return _invoke(self._handles, args, kwargs)

    def overloads(self) -> list[str]:
        return [n if n else "default" for n in self._overload_names]

    def op_overloads(self) -> list[OpOverload]:
        return [getattr(self, n) for n in self.overloads()]


def _overloads_of(qualified_op_name: str) -> list[OperatorHandle]:
    """The JIT's operator list for a name: its out= overloads after the others (the order
    RegisterSchema.cpp registers them in), each group in native_functions.yaml's order."""
    handles = singleton().overloads_of(qualified_op_name)
    return sorted(handles, key=lambda h: h.schema.is_out)


def _refresh_packet(packet: OpOverloadPacket) -> None:
    """After a define() added an overload: the packet sees every overload there is now."""
    handles = _overloads_of(packet._qualified_op_name)
    packet._handles = handles
    packet._overload_names = [h.schema.overload_name for h in handles]


class _OpNamespace(types.ModuleType):
    """`torch.ops.aten`, `torch.ops.myns`: looks an operator's overloads up on first use."""

    __file__ = "torch.ops"

    def __init__(self, name: str) -> None:
        super().__init__("torch.ops." + name)
        self.name = name
        self._dir: list[str] = []

    def __iter__(self) -> Iterator[str]:
        return iter(self._dir)

    def __getattr__(self, op_name: str) -> OpOverloadPacket:
        if op_name in ("__origin__", "__self__"):
            raise AttributeError(f"Invalid attribute '{op_name}' for '_OpNamespace' '{self.name}'")
        qualified_op_name = f"{self.name}::{op_name}"
        handles = _overloads_of(qualified_op_name)
        if not handles:
            raise AttributeError(
                f"'_OpNamespace' '{self.name}' object has no attribute '{op_name}'"
            )
        packet = OpOverloadPacket(qualified_op_name, op_name, handles)
        packet.__module__ = self.__module__ + "." + self.name
        setattr(self, op_name, packet)  # one packet per operator
        self._dir.append(op_name)
        return packet


class _Ops(types.ModuleType):
    """`torch.ops`: a namespace object per library name, made on first use."""

    __file__ = "_ops.py"

    def __init__(self) -> None:
        super().__init__("torch.ops")
        self.loaded_libraries: set[str] = set()
        self._dir: list[str] = []

    def __getattr__(self, name: str) -> _OpNamespace:
        if name.startswith("__"):  # copy, pickle and inspect probe dunders: no namespace
            raise AttributeError(name)
        namespace = _OpNamespace(name)
        setattr(self, name, namespace)
        self._dir.append(name)
        return namespace

    def __iter__(self) -> Iterator[str]:
        return iter(self._dir)

    def import_module(self, module: str) -> None:
        """Import a Python module whose import registers operators (torch.library calls)."""
        importlib.import_module(module)

    def load_library(self, path: str) -> None:
        raise OSError(
            f"Could not load this library: {path} (tensortrace loads no shared libraries)"
        )


# The ops "namespace"
ops: _Ops = _Ops()
