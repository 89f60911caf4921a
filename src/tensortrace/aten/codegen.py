"""What the generated aten code calls, and the loader that brings it in at import.

`python -m tensortrace.torchgen` writes the at:: functions, the Tensor methods, the BackendSelect
kernels and the Register<Key> registrations (with the structured kernels' wrappers) to
`aten/generated/`, as torchgen writes `Functions.h`, `TensorBody.h`, `RegisterBackendSelect.cpp`
and `RegisterCPU.cpp`. This module holds the pieces those files share, which in PyTorch are C++
overload resolution and the structured-kernel base classes: Binder (a Python call to a schema's
argument list), Overloads and select_overload, native_kernel (a `dispatch:` name to its
at::native function),
StructuredKernel; and generate(), which loads the generated modules.
Autograd and ADInplaceOrView kernels are registered by `tensortrace.autograd`.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Sequence
from typing import Any

from tensortrace.aten import functions as at
from tensortrace.aten.adaption import check_and_update_common_device_all
from tensortrace.aten.cuda.empty_tensor import empty_cuda, empty_strided_cuda
from tensortrace.aten.dispatcher import (
    DeferredKernel,
    KernelFunction,
    OperatorHandle,
    singleton,
    untraced,
)
from tensortrace.aten.empty_tensor import (
    empty_cpu_for_output,
    empty_meta,
    empty_strided_cpu,
    empty_strided_meta,
)
from tensortrace.aten.function_schema import FunctionSchema, Type
from tensortrace.aten.native.registry import native_overloads
from tensortrace.aten.native.resize import resize_output, setStrided
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.device import CPU, DeviceType, kCUDA, kMeta
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType, TypeMeta
from tensortrace.c10.tensor_options import TensorOptions
from tensortrace.torchgen.inputs import py_name
from tensortrace.torchgen.loader import load
from tensortrace.trace import traced
from tensortrace.trace.recorder import parameter_list

REGISTER_META = "build/aten/src/ATen/RegisterMeta.cpp"


# ---- calling conventions -------------------------------------------------------------------------
def adapt_to_schema(fn: Callable[..., Any], schema: FunctionSchema) -> Callable[..., Any]:
    """Call `fn` with the schema's arguments, matched by name when the orders differ.

    One Python function may serve several overloads (C++ overloads at::native::rand), so its
    parameters need not line up with every schema positionally.
    """
    names = [py_name(a.name) for a in schema.arguments]
    params = _parameters(fn)[0]
    if params[: len(names)] == names:
        return fn
    missing = set(names) - set(params)
    if missing:
        raise TypeError(f"{fn.__name__} cannot implement {schema}: no parameters {missing}")

    def by_name(*args: Any) -> Any:
        return fn(**dict(zip(names, args)))

    by_name.__name__ = fn.__name__
    idle = untraced(fn)
    if idle is not fn:  # Note [Kernels called unwrapped while idle]

        def idle_by_name(*args: Any) -> Any:
            return idle(**dict(zip(names, args)))  # type: ignore[misc]

        by_name.__untraced__ = idle_by_name  # type: ignore[attr-defined]
    return by_name


def pick_overload(
    overloads: list[Callable[..., Any]], schema: FunctionSchema
) -> Callable[..., Any]:
    """The C++ overload resolution of a `dispatch:` name: the function whose parameters take
    exactly the schema's arguments (extra parameters must have defaults)."""
    names = {py_name(a.name) for a in schema.arguments}
    for fn in overloads:
        params, required = _parameters(fn)
        if names <= set(params) and required <= names:
            return fn
    raise TypeError(f"no at::native overload of {schema.name} takes the arguments of {schema}")


# What Binder.matches checks of an argument's value, decided once from its schema type.
_ANY, _TENSOR, _NUMBER, _INT_LIST, _STORAGE = range(5)


def _value_check(t: Type) -> int:
    if t.is_tensor_like and not t.is_list:
        return _TENSOR
    if t.base in ("Scalar", "int", "float", "SymInt") and not t.is_list:
        return _NUMBER
    if t.is_list and t.base in ("int", "SymInt"):
        return _INT_LIST
    if t.base == "Storage":
        return _STORAGE
    return _ANY


class Binder:
    """Turns a Python call `(args, kwargs)` into the schema's full positional argument list.

    Made by Overloads when a call first has to choose among its overloads, and prepared on its
    own first call: the generated at:: functions and Tensor methods have ~2,000 overloads,
    most of which a program never calls (import time).
    """

    names: list[str]
    positional: int
    defaults: list[Any]
    required: list[bool]
    _name_set: frozenset[str]
    _checks: tuple[tuple[str, bool, int, bool], ...]

    def __init__(self, schema: FunctionSchema) -> None:
        self.schema = schema
        self._ready = False

    def _prepare(self) -> None:
        schema = self.schema
        self.names = [py_name(a.name) for a in schema.arguments]
        self.positional = sum(1 for a in schema.arguments if not a.kwarg_only)
        self.defaults = [a.default_value() for a in schema.arguments]
        self.required = [not a.has_default for a in schema.arguments]
        # matches() runs for each candidate overload on every call: precompute its inputs
        self._name_set = frozenset(self.names)
        self._checks = tuple(
            zip(
                self.names,
                self.required,
                (_value_check(a.type) for a in schema.arguments),
                (a.type.optional for a in schema.arguments),
            )
        )
        self._ready = True

    def matches(self, args: Sequence[Any], kwargs: dict[str, Any]) -> bool:
        if not self._ready:
            self._prepare()
        nargs = len(args)
        if nargs > self.positional or not self._name_set.issuperset(kwargs):
            return False
        for i, (name, required, check, optional) in enumerate(self._checks):
            if i < nargs:
                value = args[i]
            elif name in kwargs:
                value = kwargs[name]
            elif required:
                return False
            else:
                continue
            if check == _TENSOR:
                if not (isinstance(value, Tensor) or (value is None and optional)):
                    return False
            elif check == _NUMBER:
                # squeeze(dim=[0, 2]) is squeeze.dims, not squeeze.dim; linalg_cond(p='fro') is
                # linalg_cond.p_str (a string is no Scalar)
                if isinstance(value, (Tensor, list, tuple, str)):
                    return False
                if value is None and not optional:
                    return False  # any(dim=None) is any.dims (int[]? dim), not any.dim
            elif check == _STORAGE:
                # set_(Tensor source) is set_.source_Tensor, not set_.source_Storage
                if isinstance(value, Tensor):
                    return False
            elif check == _INT_LIST:
                # any(dim=1) is any.dim, not any.dims (as C++ prefers int64_t to IntArrayRef)
                if not (isinstance(value, (list, tuple)) or (value is None and optional)):
                    return False
        return True

    def bind(self, args: Sequence[Any], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        if not self._ready:
            self._prepare()
        if not kwargs and len(args) == len(self.names):
            return tuple(args)
        full = list(args) + [None] * (len(self.names) - len(args))
        for i in range(len(args), len(self.names)):
            name = self.names[i]
            if name in kwargs:
                full[i] = kwargs[name]
            else:
                TORCH_CHECK(
                    not self.required[i], self.schema.name, "() missing argument '", name, "'"
                )
                full[i] = self.defaults[i]
        return tuple(full)


class Overloads:
    """The overloads of one at:: function or Tensor method, in the order C++ would try them,
    with the choice remembered per argument types (Note [The overload chosen per argument
    types])."""

    __slots__ = ("ops", "binders", "chosen", "single")

    def __init__(self, ops: list[OperatorHandle]) -> None:
        self.ops = ops
        self.single = len(ops) == 1  # nothing to choose: Note [The overload chosen per ...]
        # one Binder per overload, made when a call first has to choose (_choose): the
        # generated at:: functions and Tensor methods hold ~2,000 overloads, most never called
        self.binders: list[Binder] | None = None
        # argument types -> (the operator, the schema's names and defaults after the
        # positional arguments): what binds a call to it without looking again
        self.chosen: dict[Any, tuple[OperatorHandle, tuple[str, ...], tuple[Any, ...]]] = {}


# Note [The overload chosen per argument types]
# C++ resolves `at::rand(size, dtype, ...)` to one overload at compile time, from the static
# types of the arguments; Python learns them per call. Binder.matches decides from the number
# of positional arguments, the keyword names and each value's type (Tensor, list or tuple,
# None, other) and nothing else, so its answer is a function of the tuple
# (types of args, keyword names, types of keyword values). select_overload asks it once per
# such tuple and remembers the overload with the rest of its argument list (the names to take
# from the keywords, else their defaults), as the C++ call is fixed per call site. With a single
# overload nothing is matched, and the binding depends on the count and the keyword names
# alone: they are the key (the values' types cost a map per call, ~0.4 us, to no purpose).


def select_overload(
    overloads: Overloads, args: tuple[Any, ...], kwargs: dict[str, Any], what: str
) -> tuple[OperatorHandle, tuple[Any, ...]]:
    """The overload these arguments call, and the schema's full argument list for it."""
    if overloads.single:
        key: Any = (len(args), *kwargs) if kwargs else len(args)
    elif kwargs:
        key = (*map(type, args), *kwargs, *map(type, kwargs.values()))
    else:
        key = tuple(map(type, args))
    chosen = overloads.chosen.get(key)
    if chosen is None:
        chosen = _choose(overloads, args, kwargs, what, key)
    op, names, defaults = chosen
    if not names:  # every argument given, in order
        return op, args
    return op, (*args, *map(kwargs.get, names, defaults))


def _choose(
    overloads: Overloads,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    what: str,
    key: Any,
) -> tuple[OperatorHandle, tuple[str, ...], tuple[Any, ...]]:
    ops, binders = overloads.ops, overloads.binders
    if binders is None:
        binders = overloads.binders = [Binder(op.schema) for op in ops]
    for op, binder in zip(ops, binders):
        if len(ops) == 1 or binder.matches(args, kwargs):
            binder.bind(args, kwargs)  # a missing argument raises here, and is not remembered
            n = len(args)
            chosen = (op, tuple(binder.names[n:]), tuple(binder.defaults[n:]))
            overloads.chosen[key] = chosen
            return chosen
    raise TypeError(f"{what}: no overload of {ops[0].name} matches these arguments")


# ---- structured kernels (Register<Key>.cpp) ------------------------------------------------------
def create_out(sizes: Sequence[int], strides: Sequence[int], options: TensorOptions) -> Tensor:
    """The functional variant's output: at::detail::empty_strided_cpu (no dispatcher call);
    RegisterCUDA.cpp's create_out calls at::detail::empty_strided_cuda."""
    # kMeta: Note [Enum members read once]
    device = options.device
    if device is not None and device.type_ is kMeta:
        return create_out_meta(sizes, strides, options)
    if device is not None and device.type_ is kCUDA:  # device.is_cuda(), read once
        if strides:
            return empty_strided_cuda(list(sizes), list(strides), options.dtype, options.device)
        return empty_cuda(list(sizes), options.dtype, options.device)
    if strides:
        return empty_strided_cpu(list(sizes), list(strides), options.dtype, options.device)
    # Note [The 2019 name of an output allocation]
    return empty_cpu_for_output(list(sizes), options.dtype, options.device)


def create_out_meta(sizes: Sequence[int], strides: Sequence[int], options: TensorOptions) -> Tensor:
    """RegisterMeta.cpp's create_out: `options.device(at::kMeta)`, then at::detail::empty_meta
    (or empty_strided_meta): a tensor with sizes, strides and dtype and no data."""
    if strides:
        return empty_strided_meta(list(sizes), list(strides), options.dtype)
    return empty_meta(list(sizes), options.dtype)


def check_devices(args: Sequence[Any], pairs: Sequence[tuple[int, str]], method_name: str) -> None:
    """RegisterCUDA.cpp's device check: every tensor argument on one device (gen_device_check;
    torchgen lists the `(index, name)` pairs in the generated wrapper)."""
    check_and_update_common_device_all([(args[i], n) for i, n in pairs], method_name)


# Note [A functional wrapper's undefined outputs]
# A functional variant's outputs start undefined (RegisterCPU.cpp's `std::array<Tensor, N>
# outputs_`: null pointers, nothing allocated) and set_output_raw_strided puts the tensor it
# makes in their place. An undefined Tensor is never changed in place (its one field is the
# shared null pointer), so the generated wrappers list the one shared UNDEFINED_TENSOR rather
# than make a Tensor() per call (tensor_iterator_operands.py's, which OperandInfo shares too).

# Note [A structured wrapper passes its arguments one by one]
# A generated wrapper calls its meta and impl functions as `fn(op, args[0], ..., args[n - 1])`
# (and the outputs as `op.outputs_[0], ...`), not `fn(op, *args[:n])`: a starred call slices a
# tuple and goes through CALL_FUNCTION_EX, which CPython 3.11 runs as a call from C (a new
# interpreter entry), where a plain call runs in place. The same arguments, in the same order.


_UNDEFINED = ScalarType.Undefined  # Note [Enum members read once]


class StructuredKernel(TensorIteratorBase):
    """The generated class of one structured kernel variant: its outputs and set_output."""

    kind = "functional"

    def __init__(self, outputs: list[Tensor]) -> None:
        # TensorIteratorBase.__init__'s fields, written out: every structured kernel call makes
        # one (one call fewer)
        self.operands_ = []
        self.shape_ = []
        self.perm_ = []
        self.common_dtype_ = _UNDEFINED
        self.common_device_ = CPU
        self.outputs_ = outputs

    def maybe_get_output(self, i: int = 0) -> Tensor:
        return self.outputs_[i]

    def set_output_raw_strided(
        self, output_idx: int, sizes: Sequence[int], strides: Sequence[int], options: TensorOptions
    ) -> None:
        out = self.outputs_[output_idx]
        if self.kind == "functional":
            out = self.outputs_[output_idx] = self.create_out(sizes, strides, options)
        elif self.kind == "inplace":
            TORCH_CHECK(
                tuple(out.sizes()) == tuple(sizes),
                "Bad in-place call: input tensor size ",
                list(out.sizes()),
                " and output tensor size ",
                list(sizes),
                " should match",
            )
        else:  # out=
            # resize_out streams TypeMetas, whose names are C++ types: "float", "long int"
            if options.dtype is not None and options.dtype != out.scalar_type():
                TORCH_CHECK(
                    False,
                    "Expected out tensor to have dtype ",
                    TypeMeta.fromScalarType(options.dtype).name,
                    ", but got ",
                    out.dtype().name,
                    " instead",
                )
            if resize_output(out, sizes) and strides:
                setStrided(out, sizes, strides, out.storage_offset())
        if output_idx < len(self.operands_):  # a TensorIterator meta (not cat's) has operands
            self._adopt_output(output_idx, out)

    # the functional output's allocation: the module's create_out itself, called with no method
    # frame in between (every functional structured call makes one)
    create_out = staticmethod(create_out)


class MetaStructuredKernel(StructuredKernel):
    """RegisterMeta.cpp's `structured_<op>_meta_<kind>`: the same meta function and
    set_output, with its functional outputs made on the meta device; no impl runs
    (Note [Meta kernels for free] in the generated register_meta.py)."""

    create_out = staticmethod(create_out_meta)


def inplace_meta(name: str) -> Callable[..., Any]:
    """RegisterMeta.cpp's kernel for an in-place op with no Meta kernel of its own
    (torchgen's inplace_meta): a meta `self` is returned as it is; anything else refuses."""

    def kernel(self: Tensor, *args: Any) -> Tensor:
        if self.device().type_ is not DeviceType.Meta:
            raise NotImplementedError(
                "Cannot inplace into non-meta tensor with meta tensor argument"
            )
        return self

    kernel.__name__ = kernel.__qualname__ = f"wrapper_Meta_{name}"
    return traced("native", f"at::(anonymous)::wrapper_Meta_{name}", REGISTER_META)(kernel)


def _parameters(fn: Callable[..., Any]) -> tuple[list[str], set[str]]:
    """fn's parameter names (as inspect.signature lists them) and the ones without a default."""
    found = parameter_list(fn)
    if found is None:
        params = inspect.signature(fn).parameters
        return list(params), {n for n, p in params.items() if p.default is inspect.Parameter.empty}
    parts = [p for p in found[0].split(", ") if p and p != "*"]
    names = [p.lstrip("*").rstrip("=") for p in parts]
    return names, {p.lstrip("*") for p in parts if not p.endswith("=")}


def native_kernel(
    native_name: str, op: OperatorHandle, device_check: Sequence[tuple[int, str]] = ()
) -> DeferredKernel:
    """The kernel of a `dispatch:` entry: at::native::<native_name>, the overload that takes
    the op's schema, called with the schema's arguments. `device_check`: the tensor arguments
    RegisterCUDA.cpp's wrapper_CUDA_<overload>_<name> checks first (torchgen's
    needs_device_check). Found when op's dispatch table is first computed (Note [A lazy
    table] in dispatcher.py)."""
    return DeferredKernel(lambda: _native_kernel(native_name, op, device_check))


# Note [Generated kernels imported on first lookup]
# The generated Register<Key> (structured wrappers), VariableType and ADInplaceOrView modules
# register ~2,800 kernels, ~3,100 @traced functions and ~3.7 MB of bytecode: a fifth of what
# import unmarshals and a third of the functions it decorates, for the few dozen operators a
# program calls. So each of those modules is two: the registrations (`register_cpu.py`,
# imported at import), each kernel registered as `kernel_on_first_lookup(KERNELS, name)`, and
# the kernels (`register_cpu_kernels.py`), imported when an operator's dispatch table is first
# computed and needs one of them (Note [A lazy table] in dispatcher.py), as a `dispatch:`
# entry's kernel is found then (native_kernel). The kernels, their names, sites and traces are
# the same; only when their module is imported moves.
def kernel_on_first_lookup(
    module: str, name: str, symbol: str | None = None, with_keyset: bool = False
) -> DeferredKernel:
    """The kernel `name` of the generated `module`, as KernelFunction(fn, symbol or name),
    imported when its operator's dispatch table is first computed."""

    def make() -> KernelFunction:
        fn = getattr(importlib.import_module(module), name)
        return KernelFunction(fn, symbol or name, with_keyset=with_keyset)

    return DeferredKernel(make)


def _native_kernel(
    native_name: str, op: OperatorHandle, device_check: Sequence[tuple[int, str]]
) -> KernelFunction:
    fn = adapt_to_schema(pick_overload(native_overloads(native_name), op.schema), op.schema)
    if device_check:
        fn = _with_device_check(
            fn, device_check, f"wrapper_CUDA_{op.schema.overload_name}_{op.schema.name}"
        )
    return KernelFunction(fn, f"at::native::{native_name}")


def _with_device_check(
    fn: Callable[..., Any], pairs: Sequence[tuple[int, str]], method_name: str
) -> Callable[..., Any]:
    def checked(*a: Any) -> Any:
        check_devices(a, pairs, method_name)
        return fn(*a)

    checked.__name__ = getattr(fn, "__name__", method_name)
    return checked


# ---- the whole library ---------------------------------------------------------------------------
def generate() -> list[OperatorHandle]:
    """Load aten/generated (see torchgen/loader.py): register every operator's schema and
    kernels, fill the at:: namespace and set the Tensor methods."""
    modules = load("tensortrace.aten.generated")
    ops: list[OperatorHandle] = modules["operators"].OPERATORS
    # at::_ops is the dispatcher's table of them: register_schema keyed each by its full name,
    # in this order
    at._ops.update(singleton().operators)
    for name, fn in modules["functions"].FUNCTIONS.items():
        setattr(at, name, fn)
    methods = modules["tensor_body"].TensorMethods
    for name in modules["tensor_body"].METHODS:
        setattr(Tensor, name, methods.__dict__[name])
    return ops
