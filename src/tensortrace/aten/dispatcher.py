"""The Dispatcher: one table of kernels per operator, indexed by dispatch key.

Mirrors `aten/src/ATen/core/dispatch/Dispatcher.h` (Dispatcher::call, Dispatcher::redispatch),
`OperatorEntry.cpp` (computing each runtime key's kernel from the kernels registered under it or
under an alias key) and `DispatchKeyExtractor.h` (the key set of a call: the union of its tensor
arguments' key sets, plus the thread-local included keys, minus the excluded ones).

Note [The dispatcher's RecordFunction]
Dispatcher::call opens the `aten::<op>` RecordFunction scope torch.profiler shows; redispatch
does not. So the trace's `aten::` frames nest exactly as torch.profiler's do, while the steps in
between (the autograd kernel, BackendSelect, the redispatch to CPU) appear as frames of their own
with names that do not start with `aten::`.

Note [A lazy table]
OperatorEntry::updateDispatchTable_ recomputes the table on every registration. Here that was
~4,000 recomputations at import (each registration, then every operator again for each math-bit
fallback), most for operators a program never calls. A registration only forgets the table;
the first lookup computes it from what is registered then, which is the same table. A kernel
found by name (a `dispatch:` entry's at::native function, DeferredKernel) is looked up then too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tensortrace.aten.function_schema import FunctionSchema
from tensortrace.c10.dispatch_key import (
    _INTERNED,
    BACKEND_KEYS,
    KEY_NAMES,
    KEYSET_REPRS,
    SINGLE_KEY_SETS,
    DispatchKey,
    DispatchKeySet,
    autocast_dispatch_keyset,
    autograd_dispatch_keyset,
    default_included_set,
    interned_keyset,
    key_at_index,
)
from tensortrace.c10.local_dispatch_key_set import _tls
from tensortrace.trace import FrameSite, recorder
from tensortrace.trace.arguments import describe_args

DISPATCHER_H = "aten/src/ATen/core/dispatch/Dispatcher.h"
_default_included = default_included_set.repr_


def untraced(fn: Callable[..., Any] | None) -> Callable[..., Any] | None:
    """The function a @traced wrapper calls, or fn itself if it is no wrapper: what a dispatch
    table runs while no trace is active (Note [Kernels called unwrapped while idle])."""
    idle = getattr(fn, "__untraced__", None)  # an adapter (codegen.adapt_to_schema)
    if idle is not None:
        return idle  # type: ignore[no-any-return]
    if fn is not None and hasattr(fn, "__traced_site__"):
        return fn.__wrapped__  # type: ignore[attr-defined,no-any-return]
    return fn


# Note [Kernels called unwrapped while idle]
# A kernel in a dispatch table is usually a @traced function, whose wrapper checks the
# recorder and calls through. Dispatcher::call and redispatch read the recorder already (to
# open the aten:: scope, as RecordFunction does), so while no trace is active they call the
# wrapped function directly (`KernelFunction.idle`) and save the wrapper's frame; while a trace
# is active they call `fn`, the wrapper, so every frame is recorded as before.
@dataclass(frozen=True, slots=True)
class KernelFunction:
    """A kernel registered for one key. `with_keyset` kernels take the DispatchKeySet first."""

    fn: Callable[..., Any] | None
    name: str
    with_keyset: bool = False
    idle: Callable[..., Any] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.idle is None:
            object.__setattr__(self, "idle", untraced(self.fn))

    @property
    def is_fallthrough(self) -> bool:
        return self.fn is None


FALLTHROUGH = KernelFunction(None, "fallthrough")


class DeferredKernel:
    """A kernel registered as the way to make it: made when its operator's table is first
    computed (Note [A lazy table]). What a `dispatch:` entry names is found by C++ overload
    resolution (codegen.native_kernel), which is work for every operator a program never calls."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], KernelFunction]) -> None:
        self.make = make


# Dispatcher::registerFallback: a boxed kernel for every operator under one key (the math bits),
# given here as a factory so each operator's entry can redispatch itself
_FALLBACKS: dict[DispatchKey, Callable[[OperatorHandle], KernelFunction]] = {}


# the keys any call's set may hold without a tensor argument: default_included_set, and the
# autocast keys while autocast is on
# (and FuncTorchVmapMode while a vmap runs)
_ALWAYS_INCLUDED_MASK = (
    default_included_set | autocast_dispatch_keyset | SINGLE_KEY_SETS[DispatchKey.FuncTorchVmapMode]
).repr_


_CALL_FIELDS = frozenset(  # what OperatorHandle._make_call_fields makes (annotated there)
    "tensor_indices list_indices _single_indices arg_names full_name call_site _lookups "
    "_redispatch_sites".split()
)


class OperatorHandle:
    """One operator overload: its schema, its registered kernels and its dispatch table."""

    # what a call reads, made on first use (Note [An operator's call fields on first use])
    tensor_indices: tuple[int, ...]
    list_indices: tuple[int, ...]
    _single_indices: tuple[int, ...]
    arg_names: tuple[str, ...]
    full_name: str  # "add.Tensor", in every traced call's arguments
    call_site: FrameSite
    # lookup's answer per key-set mask (with the key set itself), and redispatch's frame site
    # per key: both depend only on the dispatch table, so update_dispatch_table clears them
    _lookups: dict[int, tuple[DispatchKeySet, DispatchKey, KernelFunction]]
    _redispatch_sites: dict[DispatchKey, FrameSite]

    def __init__(self, schema: FunctionSchema, entry: dict[str, Any]) -> None:
        self.schema = schema
        self.entry = entry
        self.name = schema.qualified_name
        self.registered: dict[DispatchKey, KernelFunction | DeferredKernel] = {}
        self._table: dict[DispatchKey, KernelFunction] | None = None  # Note [A lazy table]
        self._mask = 0  # keys whose kernel is not a fallthrough (set with the table)
        self.__class__ = _HandleWithoutCallFields  # Note [An operator's call fields on first use]

    # Note [An operator's call fields on first use]
    # Import makes ~1,500 handles, a program calls a few dozen: a call's fields are made when
    # first read, by the __getattr__ of _HandleWithoutCallFields, the class a handle starts as,
    # which then makes it a plain OperatorHandle (no read of a class with __getattr__ is sped up).
    def _make_call_fields(self) -> None:
        schema = self.schema
        arguments = schema.arguments
        self.tensor_indices = indices = schema.tensor_argument_indices()
        self.list_indices = tuple([i for i in indices if arguments[i].type.is_list])
        self._single_indices = tuple([i for i in indices if not arguments[i].type.is_list])
        self.arg_names = tuple([a.name for a in arguments])
        self.full_name = schema.full_name
        self.call_site = FrameSite(
            "dispatch", self.name, DISPATCHER_H, "c10::Dispatcher::call", legacy="op table getOp"
        )
        self._lookups = {}
        self._redispatch_sites = {}

    # ---- registration (OperatorEntry) --------------------------------------------------------
    def register(self, key: DispatchKey, kernel: KernelFunction | DeferredKernel) -> None:
        self.registered[key] = kernel
        if self._table is not None:  # Note [Nothing to forget before the first lookup]
            self.update_dispatch_table()

    # Note [Nothing to forget before the first lookup]
    # Only a lookup fills _lookups and _redispatch_sites, and it computes the table first; every
    # update_dispatch_table empties them with the table. So while the table is None there is
    # nothing to forget, and import's ~12,000 registrations (kernels, then each fallback for
    # every operator) skip the call.
    def update_dispatch_table(self) -> None:
        """Forget the table and what was looked up in it: the next lookup recomputes them."""
        self._table = None
        fields = self.__dict__  # not made yet while import registers (~5,700 times)
        if fields.get("_lookups"):
            self._lookups = {}
        if fields.get("_redispatch_sites"):
            self._redispatch_sites = {}

    @property
    def dispatch_table(self) -> dict[DispatchKey, KernelFunction]:
        table = self._table
        if table is None:
            table = self._table = self._compute_dispatch_table()
        return table

    def _compute_dispatch_table(self) -> dict[DispatchKey, KernelFunction]:
        """Fill each runtime key from a direct kernel, else from the alias keys, as PyTorch does.

        Backend (CPU, CUDA): direct, then CompositeExplicitAutograd, then
        CompositeImplicitAutograd. AutogradCPU / AutogradCUDA: direct, then Autograd, then
        CompositeImplicitAutograd unless the backend (or CompositeExplicitAutograd) has a kernel.
        BackendSelect, ADInplaceOrView, AutocastCPU and AutocastCUDA: direct, else fall through
        (autocast_mode.cpp registers a fallthrough for every other op: `TORCH_LIBRARY_IMPL(_,
        AutocastCPU, m) { m.fallback(makeFallthrough()); }`).
        """
        made: dict[DispatchKey, KernelFunction] = {}
        for key, given in self.registered.items():
            made[key] = given.make() if isinstance(given, DeferredKernel) else given
        self.registered.update(made)  # each deferred kernel is made once
        reg = made
        table: dict[DispatchKey, KernelFunction] = {}
        for backend in BACKEND_KEYS:
            kernel = (
                reg.get(backend)
                or reg.get(DispatchKey.CompositeExplicitAutogradNonFunctional)
                or reg.get(DispatchKey.CompositeExplicitAutograd)
                or reg.get(DispatchKey.CompositeImplicitAutograd)
            )
            if kernel is not None:
                table[backend] = kernel
        for autograd_key, backend_key in (
            (DispatchKey.AutogradCPU, DispatchKey.CPU),
            (DispatchKey.AutogradCUDA, DispatchKey.CUDA),
            (DispatchKey.AutogradMeta, DispatchKey.Meta),
            (DispatchKey.AutogradOther, None),
        ):
            # 2.2: the CompositeImplicitAutograd kernel serves an autograd key only when the
            # backend has no kernel of its own (native_channel_shuffle's CPU kernel wins on
            # the CPU); else the backend kernel runs below autograd (a fallthrough here)
            # (a CPU tensor's key set carries AutogradOther too: it defers to any backend's own)
            backends = BACKEND_KEYS if backend_key is None else (backend_key,)
            has_own = reg.get(DispatchKey.CompositeExplicitAutograd) is not None or any(
                reg.get(b) is not None for b in backends
            )
            kernel = (
                reg.get(autograd_key)
                or reg.get(DispatchKey.Autograd)
                or (None if has_own else reg.get(DispatchKey.CompositeImplicitAutograd))
            )
            if kernel is not None:
                table[autograd_key] = kernel
            elif has_own and reg.get(DispatchKey.CompositeImplicitAutograd) is not None:
                table[autograd_key] = FALLTHROUGH
            elif self.schema.namespace != "aten" and DispatchKey.Autograd in _FALLBACKS:
                # a torch.library operator with no autograd kernel: the autograd fallback
                # (native operators all have one, from derivatives.yaml or their composite)
                table[autograd_key] = _FALLBACKS[DispatchKey.Autograd](self)
        for key in (
            DispatchKey.BackendSelect,
            DispatchKey.ADInplaceOrView,
            DispatchKey.AutocastCPU,
            DispatchKey.AutocastCUDA,
        ):
            table[key] = reg.get(key, FALLTHROUGH)
        for key in (
            DispatchKey.Conjugate,
            DispatchKey.Negative,
            DispatchKey.FuncTorchBatched,
            DispatchKey.FuncTorchVmapMode,
        ):
            fallback = _FALLBACKS.get(key)
            table[key] = reg.get(key) or (fallback(self) if fallback is not None else FALLTHROUGH)
        # Undefined: an op with no tensor argument (promote_types, result_type of two numbers)
        # runs its composite kernel (computeDispatchTableEntryWithDebug, 2.1 and 2.2)
        undefined = reg.get(DispatchKey.CompositeExplicitAutograd) or reg.get(
            DispatchKey.CompositeImplicitAutograd
        )
        if undefined is not None:
            table[DispatchKey.Undefined] = undefined
        self._mask = 0
        for key, kernel in table.items():
            if not kernel.is_fallthrough:
                self._mask |= 1 << key
        return table

    # ---- calling -----------------------------------------------------------------------------
    def compute_dispatch_key_set(self, args: tuple[Any, ...]) -> DispatchKeySet:
        """DispatchKeyExtractor: tensor arguments' keys, plus TLS included, minus TLS excluded."""
        mask = 0
        for i in self._single_indices:
            value = args[i]
            if value is not None:
                impl = value.impl_.target_  # key_set(), read directly when defined
                mask |= (impl.key_set_ if impl is not None else value.key_set()).repr_
        if self.list_indices:
            for i in self.list_indices:
                if args[i] is not None:
                    for t in args[i]:
                        if t is not None:
                            mask |= t.key_set().repr_
            if mask == 0:
                # Note [An empty TensorList]: `torch.cat([])` still reaches its kernel (which
                # raises "expected a non-empty list"): with no tensor to take a backend from,
                # the call goes to the default backend, which here is always the CPU.
                mask = 1 << DispatchKey.CPU
        local = _tls  # tls_local_dispatch_key_set(), read directly: hot
        mask = (mask | local.included_.repr_ | _default_included) & ~local.excluded_.repr_
        return _INTERNED.get(mask) or interned_keyset(mask)  # Note [Interned key sets]

    def lookup(self, ks: DispatchKeySet) -> tuple[DispatchKey, KernelFunction]:
        """OperatorEntry::lookup: the highest key of `ks` with a kernel, and that kernel."""
        return self._entry(ks.repr_)[1:]

    def _entry(self, mask: int) -> tuple[DispatchKeySet, DispatchKey, KernelFunction]:
        """lookup's answer with its key set, remembered per mask: a call finds all three with
        one dict read."""
        found = self._lookups.get(mask)
        if found is None:
            ks = _INTERNED.get(mask) or interned_keyset(mask)  # Note [Interned key sets]
            found = self._lookups[mask] = (ks, *self._lookup(ks))
        return found

    def _lookup(self, ks: DispatchKeySet) -> tuple[DispatchKey, KernelFunction]:
        table = self.dispatch_table  # computed here (and _mask with it) after a registration
        candidates = ks.repr_ & self._mask
        if candidates == 0:
            # only the always-included keys (and autocast's, Note [Autocast keys in the local
            # include set]): no tensor argument chose a backend
            only_defaults = not ks.repr_ & ~_ALWAYS_INCLUDED_MASK
            if only_defaults and DispatchKey.Undefined in table:
                return DispatchKey.Undefined, table[DispatchKey.Undefined]
            raise NotImplementedError(self._missing_kernel_message(ks))
        key = key_at_index(candidates.bit_length() - 1)
        return key, table[key]

    def _missing_kernel_message(self, ks: DispatchKeySet) -> str:
        # the keys that fall through (BackendSelect, ADInplaceOrView) are not the backend
        # (nor are the autograd keys: torch's autograd fallback covers an operator that
        # torch.library defined with no autograd kernel, so the backend is what is missing)
        backend = (
            ks.remove(DispatchKey.BackendSelect).remove(DispatchKey.ADInplaceOrView)
            - autocast_dispatch_keyset
            - autograd_dispatch_keyset
        ).remove(DispatchKey.FuncTorchVmapMode)
        available = ", ".join(str(k) for k in self.registered)
        name = self.schema.operator_name  # the overload too: 'aten::addmm.dtype'
        return (
            f"Could not run '{name}' with arguments from the "
            f"'{backend.highestPriorityTypeId()}' backend. "
            f"'{name}' is only available for these backends: [{available}]."
        )

    def call(self, *args: Any) -> Any:
        """Dispatcher::call: compute the key set, pick the kernel, run it inside aten::<op>."""
        if self.list_indices:
            mask = self.compute_dispatch_key_set(args).repr_
        else:  # compute_dispatch_key_set's mask, written out for the common case (no TensorList)
            mask = 0
            for i in self._single_indices:
                value = args[i]
                if value is not None:
                    impl = value.impl_.target_
                    mask |= (impl.key_set_ if impl is not None else value.key_set()).repr_
            local = _tls
            mask = (mask | local.included_.repr_ | _default_included) & ~local.excluded_.repr_
        ks, key, kernel = self._lookups.get(mask) or self._entry(mask)
        rec = recorder.current
        if rec is None:  # Note [Kernels called unwrapped while idle]
            return kernel.idle(ks, *args) if kernel.with_keyset else kernel.idle(*args)  # type: ignore[misc]
        return recorder.record_call(
            rec,
            self.call_site,
            {
                "args": describe_args(self.arg_names, args, {}),
                "overload": self.full_name,
                "dispatch_key_set": KEYSET_REPRS.get(ks.repr_) or repr(ks),
                "dispatch_key": KEY_NAMES[key],
                "kernel": kernel.name,
            },
            kernel.fn,  # type: ignore[arg-type]
            (ks, *args) if kernel.with_keyset else args,
        )

    def redispatch(self, ks: DispatchKeySet, *args: Any) -> Any:
        """Dispatcher::redispatch: the next kernel for `ks`, with no new aten:: scope."""
        _, key, kernel = self._lookups.get(ks.repr_) or self._entry(ks.repr_)
        rec = recorder.current
        if rec is None:  # Note [Kernels called unwrapped while idle]
            return kernel.idle(ks, *args) if kernel.with_keyset else kernel.idle(*args)  # type: ignore[misc]
        site = self._redispatch_sites.get(key)
        if site is None:
            site = self._redispatch_sites[key] = FrameSite(
                "dispatch",
                f"redispatch {self.schema.full_name} -> {key}",
                DISPATCHER_H,
                "c10::Dispatcher::redispatch",
                legacy="getOp(backend)",
            )
        return recorder.record_call(
            rec,
            site,
            {
                "args": {
                    "dispatch_key_set": KEYSET_REPRS.get(ks.repr_) or repr(ks),
                    "dispatch_key": KEY_NAMES[key],
                    "kernel": kernel.name,
                }
            },
            kernel.fn,  # type: ignore[arg-type]
            (ks, *args) if kernel.with_keyset else args,
        )

    def __repr__(self) -> str:
        return f"OperatorHandle({self.schema.full_name})"


class _HandleWithoutCallFields(OperatorHandle):
    """A handle whose call fields are not made yet: Note [An operator's call fields on first use]"""

    def __getattr__(self, name: str) -> Any:
        if name not in _CALL_FIELDS or "schema" not in self.__dict__:
            raise AttributeError(f"'OperatorHandle' object has no attribute '{name}'")
        self._make_call_fields()
        self.__class__ = OperatorHandle  # type: ignore[assignment]
        return self.__dict__[name]


class Dispatcher:
    """The singleton registry of operators (c10::Dispatcher::singleton()).

    `operators` holds native_functions.yaml's operators by `name.overload` (the generated code
    and the math-bit fallbacks walk it); `libraries` holds the ones torch.library defines, by
    their OperatorName `ns::name.overload` (Note [Operators torch.library defines]).
    """

    def __init__(self) -> None:
        self.operators: dict[str, OperatorHandle] = {}
        self.libraries: dict[str, OperatorHandle] = {}

    def register_schema(self, schema: FunctionSchema, entry: dict[str, Any]) -> OperatorHandle:
        op = OperatorHandle(schema, entry)
        if schema.namespace == "aten":
            self.operators[schema.full_name] = op
        else:
            self.libraries[schema.operator_name] = op
        return op

    def deregister_schema(self, op: OperatorHandle) -> None:
        """RegistrationHandleRAII's destructor for a def(): the operator is gone."""
        if op.schema.namespace == "aten":
            self.operators.pop(op.schema.full_name, None)
        else:
            self.libraries.pop(op.schema.operator_name, None)

    def findOp(self, operator_name: str) -> OperatorHandle | None:
        """Dispatcher::findOp: `aten::add.Tensor`, `myns::foo` (the default overload)."""
        namespace, sep, full = operator_name.partition("::")
        if not sep:
            return None
        if namespace == "aten":
            return self.operators.get(full)
        return self.libraries.get(operator_name)

    def overloads_of(self, qualified_name: str) -> list[OperatorHandle]:
        """Every overload of `ns::name`, in registration order (the JIT's operator list)."""
        namespace, _, name = qualified_name.partition("::")
        table = self.operators if namespace == "aten" else self.libraries
        return [
            op
            for op in table.values()
            if op.schema.name == name and op.schema.namespace == namespace
        ]

    def findSchemaOrThrow(self, name: str, overload_name: str = "") -> OperatorHandle:
        full = f"{name}.{overload_name}" if overload_name else name
        try:
            return self.operators[full]
        except KeyError:
            raise RuntimeError(f"Could not find schema for aten::{full}") from None

    def registerFallback(
        self,
        key: DispatchKey,
        factory: Callable[[OperatorHandle], KernelFunction],
    ) -> None:
        _FALLBACKS[key] = factory
        for op in self.operators.values():
            if op._table is not None:  # Note [Nothing to forget before the first lookup]
                op.update_dispatch_table()

    def overloads(self, name: str) -> list[OperatorHandle]:
        return [op for op in self.operators.values() if op.schema.name == name]

    def deregister_kernel(self, op: OperatorHandle, key: DispatchKey) -> None:
        """RegistrationHandleRAII's destructor for an impl(): the key has no kernel again."""
        if op.registered.pop(key, None) is not None:
            op.update_dispatch_table()


# Note [Operators torch.library defines]
# TORCH_LIBRARY(myns, m) { m.def("foo(Tensor x) -> Tensor"); } makes an OperatorHandle as
# RegisterSchema.cpp does for aten's; torch.library.Library.define (library.py) is its Python
# front door. Such an operator dispatches exactly as a native one (its key set from its tensor
# arguments, the table computed from the kernels registered under runtime and alias keys, the
# `myns::foo` frame of Dispatcher::call), and goes away when its Library is destroyed.


_singleton = Dispatcher()


def singleton() -> Dispatcher:
    return _singleton
