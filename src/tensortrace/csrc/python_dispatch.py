"""torch._C's dispatcher bindings: `_dispatch_library` (the C++ torch::Library behind
torch.library.Library), Python kernels, and the introspection learners use
(`_dispatch_has_kernel_for_dispatch_key`, `_dispatch_dump`, `_dispatch_dump_table`).

Mirrors `torch/csrc/utils/python_dispatch.cpp` (initDispatchBindings, PythonKernelHolder),
`aten/src/ATen/core/library.cpp` (Library::_def, Library::_impl) and
`OperatorEntry::dumpState` / `dumpComputedTable` (aten/src/ATen/core/dispatch/OperatorEntry.cpp).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

from tensortrace.aten.dispatcher import (
    _FALLBACKS,
    FALLTHROUGH,
    KernelFunction,
    OperatorHandle,
    singleton,
)
from tensortrace.aten.function_schema import FunctionSchema, parse_schema
from tensortrace.aten.tensor_body import Tensor as AtTensor
from tensortrace.c10.dispatch_key import RUNTIME_KEYS, DispatchKey
from tensortrace.csrc.pybind_utils import to_py_object
from tensortrace.csrc.python_variable import TensorBase
from tensortrace.trace import traced

PYTHON_DISPATCH_CPP = "torch/csrc/utils/python_dispatch.cpp"

# the types a schema may name (torchgen's BaseTy, as the JIT's schema type parser knows them)
_SCHEMA_TYPES = frozenset(
    {
        "Tensor", "SymInt", "int", "float", "bool", "Scalar", "str", "ScalarType", "Layout",
        "MemoryFormat", "Device", "Generator", "Storage", "Dimname", "complex", "SymFloat",
        "SymBool", "QScheme", "Stream", "t", "Any",
    }
)  # fmt: skip
_UNKNOWN_TYPE = (
    "\nunknown type specifier. Common valid schema types include Tensor, SymInt, int, float, "
    "bool, Scalar; for a full list, please see "
    "https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/README.md#func :\n"
)


def _here(text: str, start: int, length: int) -> str:
    """The JIT lexer's error context: the source line and `~~~ <--- HERE` under the token."""
    return f"{text}\n{' ' * start}{'~' * length} <--- HERE\n"


def parse_library_schema(text: str, namespace: str) -> FunctionSchema:
    """torch::jit::parseSchema for Library.define: a schema in `namespace` (or its own
    `ns::name`), with the parser's errors for an unknown type or a malformed declaration."""
    body = text
    if "::" in text.split("(")[0]:
        namespace, _, body = text.partition("::")
    try:
        schema = parse_schema(body)
    except ValueError:
        raise RuntimeError(f"Schema not parseable:\n{_here(text, 0, len(text))}") from None
    offset = len(text) - len(body)
    for part in [*(str(a.type) for a in schema.arguments), *(str(r) for r in schema.returns)]:
        base = part.split("(")[0].rstrip("?[]0123456789")
        if base not in _SCHEMA_TYPES:
            at = text.find(base, offset)
            raise RuntimeError(_UNKNOWN_TYPE + _here(text, at, len(base)))
    return schema.with_namespace(namespace)


# ---- dispatch keys --------------------------------------------------------------------------
def parse_dispatch_key(name: str) -> DispatchKey:
    """c10::parseDispatchKey: the keys this runtime models (Note [Dispatch keys] in c10)."""
    key = DispatchKey.__members__.get(name)
    if key is None:
        raise RuntimeError(f"could not parse dispatch key: {name}")
    return key


def _dispatch_key_for_device(device_type: str) -> str:
    """c10::computeDispatchKey's backend for a device type: "cpu" -> "CPU"."""
    return {"cpu": "CPU", "cuda": "CUDA", "meta": "Meta"}.get(device_type, device_type.upper())


# ---- Python kernels (PythonKernelHolder) -------------------------------------------------------
def _unwrap(value: Any) -> Any:
    """A Python kernel's result back on the stack: Tensors as at::Tensors."""
    if isinstance(value, TensorBase):
        return value.cdata
    if isinstance(value, (tuple, list)):
        return type(value)(_unwrap(v) for v in value)
    return value


def _is_default(argument: Any, value: Any) -> bool:
    if not argument.has_default or isinstance(value, AtTensor):
        return False
    default = argument.default_value()
    if argument.type.is_list and argument.type.list_size and isinstance(default, int):
        default = [default] * argument.type.list_size
    return type(value) is type(default) and bool(value == default)


def parse_ivalues_to_py_args_kwargs(
    arguments: Sequence[Any], npos: int, stack: Sequence[Any]
) -> tuple[list[Any], dict[str, Any]]:
    """parseIValuesToPyArgsKwargs: the positional arguments up to the last one that is not at
    its default, and the keyword-only ones that are not at their defaults (a kernel sees
    `foo(x)` for `foo(x, n=2)`, as serialized graphs store it)."""
    last = npos
    while last > 0 and _is_default(arguments[last - 1], stack[last - 1]):
        last -= 1
    args = [to_py_object(v) for v in stack[:last]]
    kwargs = {
        arguments[i].name: to_py_object(stack[i])
        for i in range(npos, len(stack))
        if not _is_default(arguments[i], stack[i])
    }
    return args, kwargs


def python_kernel(
    op: OperatorHandle, fn: Callable[..., Any], key: DispatchKey, with_keyset: bool
) -> KernelFunction:
    """PythonKernelHolder: the boxed stack as Python arguments (keyword-only arguments as
    keywords, as parseIValuesToPyArgsKwargs does), the result unwrapped."""
    arguments = op.schema.arguments
    npos = sum(1 for a in arguments if not a.kwarg_only)
    label = getattr(fn, "__qualname__", type(fn).__name__)

    # the boxed stack as `*args`: made at run time, so its parameter list must be one the
    # generated traced wrappers already have (tests/test_generated_files.py)
    @traced("native", f"{op.schema.operator_name} [{key}] {label}", PYTHON_DISPATCH_CPP,
            "PythonKernelHolder::operator()")  # fmt: skip
    def kernel(*args: Any) -> Any:
        head: tuple[Any, ...] = ()
        stack = args
        if with_keyset:
            head, stack = stack[:1], stack[1:]
        py_args, kwargs = parse_ivalues_to_py_args_kwargs(arguments, npos, stack)
        return _unwrap(fn(*head, *py_args, **kwargs))

    return KernelFunction(kernel, f"python kernel {label}", with_keyset)


# ---- the C++ Library object (torch._C._DispatchModule) -----------------------------------------
_DEF_NAMESPACES: dict[str, str] = {"aten": "build/aten/src/ATen/RegisterSchema.cpp:6"}
_DEBUG: dict[tuple[str, DispatchKey], str] = {}  # (operator name, key) -> "registered at ..."
# impl() of an operator not defined yet waits for its def() (an OperatorEntry with no schema)
_PENDING: dict[str, list[tuple[DispatchKey, Any, bool, str, DispatchModule]]] = {}


def find_operator(name: str) -> OperatorHandle | None:
    """`ns::name` or `ns::name.overload`: the operator, or None."""
    return singleton().findOp(name)


class DispatchModule:
    """torch::Library as Python sees it (`Library.m`): def, impl, and reset on destruction."""

    def __init__(self, kind: str, ns: str, dispatch_key: str, filename: str, lineno: int) -> None:
        self.kind = kind
        self.ns = ns
        self.debug = f"registered at {filename}:{lineno}"
        self.dispatch_key = dispatch_key
        self.defs: list[OperatorHandle] = []
        self.impls: list[tuple[str, DispatchKey]] = []  # impls waiting for a def()
        self.overridden: list[tuple[OperatorHandle, DispatchKey, Any, Any, str | None]] = []
        if kind == "DEF":
            previous = _DEF_NAMESPACES.get(ns)
            if previous is not None:
                raise RuntimeError(
                    f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; "
                    "please put all of your definitions in a single TORCH_LIBRARY block.  If "
                    "you were trying to specify implementations, consider using "
                    "TORCH_LIBRARY_IMPL (which can be duplicated).  If you really intended to "
                    "define operators for a single namespace in a distributed way, you can use "
                    "TORCH_LIBRARY_FRAGMENT to explicitly indicate this.  Previous registration "
                    f"of TORCH_LIBRARY was {previous}; latest registration was {self.debug}"
                )
            _DEF_NAMESPACES[ns] = self.debug
        self.owns_namespace = kind == "DEF"

    def define(self, schema_text: str, alias_analysis: str = "", tags: tuple[Any, ...] = ()) -> str:
        schema = parse_library_schema(schema_text, self.ns)
        existing = find_operator(schema.operator_name)
        if existing is not None:
            original = _registered_at(existing, DispatchKey.Undefined)
            raise RuntimeError(
                "Tried to register an operator "
                f"({schema.qualified_str()}) with the same name and overload name multiple "
                "times. Each overload's schema should only be registered with a single call to "
                "def(). Duplicate registration: "
                f"{self.debug}. Original registration: {original}"
            )
        op = singleton().register_schema(schema, {"func": schema_text, "tags": list(tags)})
        _DEBUG[(schema.operator_name, DispatchKey.Undefined)] = self.debug
        self.defs.append(op)
        for key, fn, with_keyset, debug, owner in _PENDING.pop(schema.operator_name, []):
            kernel = owner._kernel_for(fn, key, with_keyset, op)
            op.register(key, kernel)
            _DEBUG[(schema.operator_name, key)] = debug
            owner.overridden.append((op, key, kernel, None, None))
        return schema.name  # the operator's name, as Library::_def's OperatorName

    def impl(self, name: str, dispatch_key: str, fn: Any, with_keyset: bool = False) -> None:
        key = parse_dispatch_key(dispatch_key)
        qualified = name if "::" in name else f"{self.ns}::{name}"
        op = find_operator(qualified)
        if op is None:  # defined later (or never: the kernel waits, as an OperatorEntry would)
            pending = _PENDING.setdefault(qualified, [])
            pending.append((key, fn, with_keyset, self.debug, self))
            self.impls.append((qualified, key))
            return
        kernel = self._kernel_for(fn, key, with_keyset, op)
        previous = op.registered.get(key)
        if previous is not None:
            warnings.warn(
                "Warning: Overriding a previously registered kernel for the same operator and "
                f"the same dispatch key\n  operator: {op.schema.qualified_str()}\n"
                f"  dispatch key: {key}\n  previous kernel: {_registered_at(op, key)}\n"
                f"       new kernel: {self.debug}",
                UserWarning,
                stacklevel=3,
            )
        # Note [A Python kernel over a native one]: the kernel it replaces comes back when
        # this library is destroyed (OperatorEntry keeps every kernel registered for a key)
        self.overridden.append(
            (op, key, kernel, previous, _DEBUG.get((op.schema.operator_name, key)))
        )
        op.register(key, kernel)
        _DEBUG[(op.schema.operator_name, key)] = self.debug

    def _kernel_for(
        self, fn: Any, key: DispatchKey, with_keyset: bool, op: OperatorHandle
    ) -> KernelFunction:
        if getattr(fn, "__is_fallthrough__", False):
            return FALLTHROUGH
        return python_kernel(op, fn, key, with_keyset)

    def reset(self) -> None:
        """The registration handles' destructors: every def and impl of this library undone."""
        dispatcher = singleton()
        for op, key, kernel, previous, debug in reversed(self.overridden):
            if op.registered.get(key) is not kernel:
                continue  # replaced since (its own library restores what it replaced)
            name = op.schema.operator_name
            if previous is None:
                dispatcher.deregister_kernel(op, key)
                _DEBUG.pop((name, key), None)
            else:
                op.register(key, previous)
                if debug is None:
                    _DEBUG.pop((name, key), None)
                else:
                    _DEBUG[(name, key)] = debug
        self.overridden.clear()
        for name, _key in self.impls:  # kernels still waiting for their operator's def()
            pending = _PENDING.get(name)
            if pending:
                _PENDING[name] = [p for p in pending if p[4] is not self]
        for op in self.defs:
            dispatcher.deregister_schema(op)
            _DEBUG.pop((op.schema.operator_name, DispatchKey.Undefined), None)
        self.impls.clear()
        self.defs.clear()
        if self.owns_namespace:
            _DEF_NAMESPACES.pop(self.ns, None)
            self.owns_namespace = False


def _dispatch_library(
    kind: str, ns: str, dispatch_key: str = "", filename: str = "", lineno: int = 0
) -> DispatchModule:
    return DispatchModule(kind, ns, dispatch_key, filename, lineno)


# ---- introspection --------------------------------------------------------------------------
def _find_or_throw(name: str) -> OperatorHandle:
    op = find_operator(name)
    if op is None:
        raise RuntimeError(f"operator {name} does not exist")
    return op


def _dispatch_has_kernel_for_dispatch_key(name: str, dispatch: str) -> bool:
    """OperatorEntry::hasKernelForDispatchKey: a kernel registered under exactly that key."""
    key = parse_dispatch_key(dispatch)
    op = _find_or_throw(name)
    return key in op.registered  # a fallthrough is a kernel registered too


def _registered_at(op: OperatorHandle, key: DispatchKey) -> str:
    debug = _DEBUG.get((op.schema.operator_name, key))
    if debug is not None:
        return debug
    return f"registered at {_NATIVE_SOURCES.get(key, 'build/aten/src/ATen/RegisterSchema.cpp')}"


# where the generated registrations of native_functions.yaml's kernels live
_NATIVE_SOURCES = {
    DispatchKey.CPU: "build/aten/src/ATen/RegisterCPU.cpp",
    DispatchKey.CUDA: "build/aten/src/ATen/RegisterCUDA.cpp",
    DispatchKey.Meta: "build/aten/src/ATen/RegisterMeta.cpp",
    DispatchKey.BackendSelect: "build/aten/src/ATen/RegisterBackendSelect.cpp",
    DispatchKey.ADInplaceOrView: "torch/csrc/autograd/generated/ADInplaceOrViewType.cpp",
    DispatchKey.Autograd: "torch/csrc/autograd/generated/VariableType.cpp",
    DispatchKey.AutocastCPU: "aten/src/ATen/autocast_mode.cpp",
    DispatchKey.AutocastCUDA: "aten/src/ATen/autocast_mode.cpp",
    DispatchKey.CompositeImplicitAutograd: (
        "build/aten/src/ATen/RegisterCompositeImplicitAutograd.cpp"
    ),
    DispatchKey.CompositeExplicitAutograd: (
        "build/aten/src/ATen/RegisterCompositeExplicitAutograd.cpp"
    ),
    DispatchKey.CompositeExplicitAutogradNonFunctional: (
        "build/aten/src/ATen/RegisterCompositeExplicitAutogradNonFunctional.cpp"
    ),
}


def _dispatch_dump(name: str) -> str:
    """OperatorEntry::dumpState: the schema and each kernel registered, alias keys marked."""
    op = find_operator(name)
    if op is None:
        return ""
    lines = [
        f"name: {op.schema.operator_name}",
        f"schema: {op.schema.qualified_str()}",
        f"debug: {_registered_at(op, DispatchKey.Undefined)}",
        "alias analysis kind: FROM_SCHEMA",
    ]
    for key in sorted(op.registered):
        kernel = op.registered[key]
        label = f"{key}[alias]" if key.is_alias() else str(key)
        if kernel is FALLTHROUGH:
            lines.append(f"{label}: fallthrough {_registered_at(op, key)}")
            continue
        python = isinstance(kernel, KernelFunction) and kernel.name.startswith("python kernel")
        kind = "(none) [ boxed ]" if python else "[ boxed unboxed ]"
        lines.append(f"{label}: {_registered_at(op, key)} :: {kind}")
    return "\n".join(lines) + "\n"


def _dispatch_dump_table(name: str) -> str:
    """OperatorEntry::dumpComputedTable: each runtime key's kernel and where it came from."""
    op = find_operator(name)
    if op is None:
        return ""
    table = op.dispatch_table  # computed now (Note [A lazy table])
    reg = op.registered
    lines = []
    for key in (DispatchKey.Undefined, *RUNTIME_KEYS):
        kernel = table.get(key)
        if kernel is None:
            continue
        if kernel is FALLTHROUGH and reg.get(key) is not FALLTHROUGH:
            lines.append(f"{key}: fallthrough registered at {_FALLBACK_SOURCES.get(key, '')}")
            continue
        source = next((k for k in (key, *_ALIASES) if reg.get(k) is kernel), None)
        if source is None:  # a math-bit fallback (Conjugate, Negative)
            if key in _FALLBACKS:
                where = _FALLBACK_SOURCES[key]
                if not where.endswith("]"):
                    where += " [backend fallback]"
                lines.append(f"{key}: registered at {where}")
            continue
        kind = _TABLE_KIND[source]
        if key == DispatchKey.Undefined and source != key:
            kind = "default backend kernel"  # the composite kernel runs with no tensor argument
        lines.append(f"{key}: {_registered_at(op, source)} [{kind}]")
    return "\n".join(lines) + "\n"


_ALIASES = (
    DispatchKey.Autograd,
    DispatchKey.CompositeExplicitAutogradNonFunctional,
    DispatchKey.CompositeExplicitAutograd,
    DispatchKey.CompositeImplicitAutograd,
)
_TABLE_KIND = {
    **dict.fromkeys(RUNTIME_KEYS, "kernel"),
    DispatchKey.Undefined: "kernel",
    DispatchKey.Autograd: "autograd kernel",
    DispatchKey.CompositeExplicitAutogradNonFunctional: "default backend kernel",
    DispatchKey.CompositeExplicitAutograd: "default backend kernel",
    DispatchKey.CompositeImplicitAutograd: "math kernel",
}
_FALLBACK_SOURCES = {
    DispatchKey.BackendSelect: "aten/src/ATen/core/BackendSelectFallbackKernel.cpp:3 "
    "[backend fallback]",
    DispatchKey.ADInplaceOrView: "aten/src/ATen/core/VariableFallbackKernel.cpp:103 "
    "[backend fallback]",
    DispatchKey.AutocastCPU: "aten/src/ATen/autocast_mode.cpp:330 [backend fallback]",
    DispatchKey.AutocastCUDA: "aten/src/ATen/autocast_mode.cpp:177 [backend fallback]",
    DispatchKey.Conjugate: "aten/src/ATen/ConjugateFallback.cpp:17",
    DispatchKey.Negative: "aten/src/ATen/native/NegateFallback.cpp:18",
    # functorch's keys (aten/functorch/batched_fallback.py registers both)
    DispatchKey.FuncTorchBatched: "aten/src/ATen/functorch/BatchedFallback.cpp",
    DispatchKey.FuncTorchVmapMode: "aten/src/ATen/functorch/VmapModeRegistrations.cpp:22 "
    "[backend fallback]",
    DispatchKey.AutogradCPU: "the backend's kernel (CompositeImplicitAutograd is not used)",
    DispatchKey.AutogradCUDA: "the backend's kernel (CompositeImplicitAutograd is not used)",
    DispatchKey.AutogradMeta: "the backend's kernel (CompositeImplicitAutograd is not used)",
    DispatchKey.AutogradOther: "the backend's kernel (CompositeImplicitAutograd is not used)",
}


def _c_bindings() -> dict[str, Any]:
    from tensortrace.c10.dispatch_key import DispatchKeySet, after_autograd_keyset
    from tensortrace.c10.local_dispatch_key_set import AutoDispatchBelowAutograd
    from tensortrace.csrc.python_function_schema import FunctionSchema, parse_schema

    return {
        "_dispatch_library": _dispatch_library,
        "_dispatch_has_kernel_for_dispatch_key": _dispatch_has_kernel_for_dispatch_key,
        "_dispatch_dump": _dispatch_dump,
        "_dispatch_dump_table": _dispatch_dump_table,
        "_dispatch_key_for_device": _dispatch_key_for_device,
        "_AutoDispatchBelowAutograd": AutoDispatchBelowAutograd,
        "_after_autograd_keyset": after_autograd_keyset,
        "DispatchKey": DispatchKey,
        "DispatchKeySet": DispatchKeySet,
        "FunctionSchema": FunctionSchema,
        "parse_schema": parse_schema,
    }


# what torch/__init__.py's `_C` namespace takes from this module
C_BINDINGS = _c_bindings()
