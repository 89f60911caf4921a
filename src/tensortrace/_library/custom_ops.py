"""torch.library.custom_op: a Python function made into an operator of the dispatcher.

Mirrors `torch/_library/custom_ops.py`. `@custom_op("mylib::sin", mutates_args=())` infers the
schema from the type hints, defines `mylib::sin` in a FRAGMENT Library, registers the function
as the kernel of the device types given (CompositeExplicitAutograd for all of them by default)
and an Autograd kernel (_library/autograd.py) that raises at backward until register_autograd
gives a formula. Calling the CustomOpDef calls `torch.ops.mylib.sin.default`, so the call
dispatches, and traces, as a native operator's does.
"""

from __future__ import annotations

import inspect
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from tensortrace._library import autograd, utils
from tensortrace._library.infer_schema import infer_schema
from tensortrace.autograd.variable import increment_version
from tensortrace.c10.dispatch_key import SINGLE_KEY_SETS, after_ADInplaceOrView_keyset
from tensortrace.csrc.python_dispatch import _dispatch_key_for_device, parse_dispatch_key

device_types_t = str | Sequence[str] | None


def custom_op(
    name: str,
    fn: Callable[..., Any] | None = None,
    /,
    *,
    mutates_args: str | Iterable[str],
    device_types: device_types_t = None,
    schema: str | None = None,
    tags: Any = None,
) -> Any:
    """Wraps a function into a custom operator (see torch.library.custom_op)."""

    def inner(fn: Callable[..., Any]) -> CustomOpDef:
        if schema is None:
            schema_str = infer_schema(fn, mutates_args=mutates_args)
        else:
            schema_str = schema
        namespace, opname = name.split("::")
        result = CustomOpDef(namespace, opname, schema_str, fn, tags)
        if schema is not None:
            # the schema's alias annotations must say what mutates_args says
            expected = set()
            for arg in result._opoverload._schema.arguments:
                if arg.alias_info is not None and arg.alias_info.is_write:
                    expected.add(arg.name)
            if expected != set(mutates_args):
                raise ValueError(
                    f"Attempted to create a custom op with `mutates_args={mutates_args}` "
                    f"and `schema={schema}. The schema suggests that the op mutates {expected}"
                    f"which is different from what was provided to us in `mutates_args`. "
                    f"Please make these consistent."
                )
        result.register_kernel(device_types)(fn)
        return result

    if fn is None:
        return inner
    return inner(fn)


def _storage_key(t: Any) -> int:
    return id(t.cdata.unsafeGetTensorImpl().storage_.unsafeGetStorageImpl())


def check_aliasing_constraint(
    name: str, args: Any, kwargs: Any, result: Any, get_module: Callable[[], Any]
) -> None:
    """A custom op's outputs alias neither its inputs nor each other."""
    storages = {_storage_key(t) for t in utils.iter_tensors(tuple(args), kwargs)}
    results = result if isinstance(result, tuple) else (result,)
    for tensor in utils.iter_tensors(results, {}):
        key = _storage_key(tensor)
        if key in storages:
            raise RuntimeError(
                f"{name} (with implementation in {get_module()}): "
                f"The output of this custom operator (1) must not "
                f"also be an input to this custom operator and "
                f"(2) may not alias any inputs to this custom operator "
                f"or other returns. "
                f"The most common way to trigger this error is if "
                f"we have y = custom_op(x) and y and x are the same Tensor. "
                f"Please instead return a clone of the offending output "
                f"tensor(s) (e.g. return x.clone()) or refactor the custom "
                f"operator to not return y."
            )
        storages.add(key)


class CustomOpDef:
    """A function made an operator by custom_op; register more behaviour on it."""

    def __init__(
        self, namespace: str, name: str, schema: str, fn: Callable[..., Any], tags: Any = None
    ) -> None:
        self._namespace = namespace
        self._name = name
        self._schema = schema
        self._tags = tags
        self._init_fn = fn
        self._backend_fns: dict[str | None, Callable[..., Any]] = {}
        self._abstract_fn: Callable[..., Any] | None = None
        self._setup_context_fn: Callable[..., Any] | None = None
        self._backward_fn: Callable[..., Any] | None = None
        self._lib = get_library_allowing_overwrite(self._namespace, self._name)
        self._register_to_dispatcher()
        OPDEFS[self._qualname] = self

    @property
    def _qualname(self) -> str:
        return f"{self._namespace}::{self._name}"

    def __repr__(self) -> str:
        return f"<CustomOpDef({self._qualname})>"

    def register_kernel(
        self, device_types: device_types_t, fn: Callable[..., Any] | None = None, /
    ) -> Callable[..., Any]:
        """Register `fn` as the kernel of these device types ("cpu", "cuda"; None: all)."""

        def inner(fn: Callable[..., Any]) -> Callable[..., Any]:
            if device_types is None or isinstance(device_types, str):
                dtypes: list[str | None] = [device_types]
            else:
                dtypes = list(device_types)
            for device_type in dtypes:
                if device_type not in self._backend_fns:
                    self._register_backend_impl(device_type)

                def wrapped_fn(*args: Any, fn: Callable[..., Any] = fn, **kwargs: Any) -> Any:
                    return fn(*args, **kwargs)

                self._backend_fns[device_type] = wrapped_fn
            return fn

        if device_types is not None and not utils.has_tensor_arg(self._opoverload._schema):
            index = utils.get_device_arg_index(self._opoverload._schema)
            if index is None:
                raise ValueError(
                    "Functions without tensor inputs are required to have a "
                    "`device: torch.device` argument"
                )
            self._register_backend_select_dispatcher(index)
        if fn is None:
            return inner
        return inner(fn)

    def _register_backend_impl(self, device_type: str | None) -> None:
        def backend_impl(*args: Any, **kwargs: Any) -> Any:
            fn = self._backend_fns[device_type]
            result = fn(*args, **kwargs)
            if (
                not self._opoverload._schema._is_view_op()
                and not self._opoverload._schema.is_mutable
            ):
                check_aliasing_constraint(
                    self._name, args, kwargs, result, lambda: inspect.getmodule(fn)
                )
            return result

        key = (
            "CompositeExplicitAutograd"
            if device_type is None
            else _dispatch_key_for_device(device_type)
        )
        self._lib.impl(self._name, backend_impl, key)

    def _register_backend_select_dispatcher(self, device_arg_index: int) -> None:
        """A factory op: BackendSelect takes the backend from its `device` argument."""
        op = self._opoverload

        def backend_select(keyset: Any, *args: Any, **kwargs: Any) -> Any:
            device = args[device_arg_index]
            device_type = getattr(device, "type", str(device).split(":")[0])
            key = parse_dispatch_key(_dispatch_key_for_device(device_type))
            return op.redispatch(SINGLE_KEY_SETS[key], *args, **kwargs)

        self._lib.impl(self._name, backend_select, "BackendSelect", with_keyset=True)

    def register_fake(self, fn: Callable[..., Any], /) -> Callable[..., Any]:
        """The kernel for meta tensors: only shapes and dtypes, no data."""
        self._abstract_fn = fn
        self._lib.impl(self._name, fn, "Meta")
        return fn

    def register_autograd(
        self, backward: Callable[..., Any], /, *, setup_context: Callable[..., Any] | None = None
    ) -> None:
        """backward(ctx, *grads) computes the gradients; setup_context(ctx, inputs, output)
        saves what it needs during the forward."""
        schema = self._opoverload._schema
        if utils.is_out(self._opoverload):
            raise RuntimeError(
                f"Cannot register autograd formula for operator tagged with "
                f"torch.Tag.out: {self}. Out variants do not support autograd."
            )
        if not utils.is_functional_schema(schema, allow_valid_view=True):
            raise RuntimeError(
                f"Cannot register autograd formula for non-functional operator "
                f"{self} with schema {schema}. Please create "
                f"a functional operator and register an autograd formula for that."
            )
        self._backward_fn = backward
        self._setup_context_fn = setup_context

    def _register_to_dispatcher(self) -> None:
        schema_str = self._name + self._schema
        self._lib.define(schema_str)
        self._opoverload = utils.lookup_op(self._qualname)
        schema = self._opoverload._schema
        if utils.has_kwarg_only_tensors(schema):
            raise NotImplementedError(
                f"custom_op with kwarg-only Tensor args. Please make your "
                f"tensors not kwarg-only. Got: {schema_str}"
            )
        autograd_impl = autograd.make_autograd_impl(self._opoverload, self)
        self._lib.impl(self._name, autograd_impl, "Autograd", with_keyset=True)
        if schema.is_mutable and not schema._is_view_op():
            self._register_mutation_version_bump()

    def _register_mutation_version_bump(self) -> None:
        """The ADInplaceOrView kernel of a mutating op: each argument it writes gets a new
        version (so autograd sees a saved tensor was modified), then the backend runs."""
        op = self._opoverload
        schema = op._schema
        mutated = [
            (i, a.name, a.kwarg_only)
            for i, a in enumerate(schema.arguments)
            if a.alias_info is not None and a.alias_info.is_write
        ]

        def adinplaceorview_impl(keyset: Any, *args: Any, **kwargs: Any) -> Any:
            all_args, all_kwargs = utils.fill_defaults(schema, args, kwargs)
            for index, name, kwarg_only in mutated:
                value = all_kwargs[name] if kwarg_only else all_args[index]
                for tensor in utils.iter_tensors((value,), {}):
                    increment_version(tensor.cdata)
            return op.redispatch(keyset & after_ADInplaceOrView_keyset, *args, **kwargs)

        self._lib.impl(self._name, adinplaceorview_impl, "ADInplaceOrView", with_keyset=True)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._opoverload(*args, **kwargs)


OPDEFS: weakref.WeakValueDictionary[str, CustomOpDef] = weakref.WeakValueDictionary()
OPDEF_TO_LIB: dict[str, Any] = {}


def get_library_allowing_overwrite(namespace: str, name: str) -> Any:
    """A FRAGMENT Library of its own per op: defining the op again replaces the old one."""
    import tensortrace.library

    qualname = f"{namespace}::{name}"
    if qualname in OPDEF_TO_LIB:
        OPDEF_TO_LIB[qualname]._destroy()
        del OPDEF_TO_LIB[qualname]
    lib = tensortrace.library.Library(namespace, "FRAGMENT")
    OPDEF_TO_LIB[qualname] = lib
    return lib


def _maybe_get_opdef(op: Any) -> CustomOpDef | None:
    if isinstance(op, CustomOpDef):
        return op
    name = getattr(op, "_name", op)
    return OPDEFS.get(name) if isinstance(name, str) else None
