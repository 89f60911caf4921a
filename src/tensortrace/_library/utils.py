"""Helpers of torch.library's implementation. Mirrors `torch/_library/utils.py`."""

from __future__ import annotations

from typing import Any

from tensortrace._ops import OpOverload
from tensortrace.csrc.python_function_schema import FunctionSchema


def parse_namespace(qualname: str) -> tuple[str, str]:
    splits = qualname.split("::")
    if len(splits) != 2:
        raise ValueError(
            f"Expected `qualname` to be of the form "
            f'"namespace::name", but got {qualname}. '
            f"The qualname passed to the torch.library APIs must consist "
            f"of a namespace and a name, e.g. aten::sin"
        )
    return splits[0], splits[1]


def lookup_op(qualname: str) -> OpOverload:
    """`ns::name` or `ns::name.overload` as its OpOverload (the default overload if none)."""
    import tensortrace

    namespace, name = parse_namespace(qualname)
    if "." in name:
        name, overload = name.split(".")
    else:
        overload = "default"
    ns = getattr(tensortrace.ops, namespace)
    packet = getattr(ns, name)
    return getattr(packet, overload)  # type: ignore[no-any-return]


def has_kwarg_only_args(schema: FunctionSchema) -> bool:
    return any(a.kwarg_only for a in schema.arguments)


def has_kwarg_only_tensors(schema: FunctionSchema) -> bool:
    return any(a.kwarg_only and a.type.base == "Tensor" for a in schema.arguments)


def has_tensor_arg(schema: FunctionSchema) -> bool:
    return any(a.type.base == "Tensor" for a in schema.arguments)


def get_device_arg_index(schema: FunctionSchema) -> int | None:
    for index, arg in enumerate(schema.arguments):
        if arg.type.base == "Device" and arg.name == "device":
            return index
    return None


def is_out(op: OpOverload) -> bool:
    return any(a.is_out for a in op._schema.arguments)


def mutates_and_returns_first_arg(op: OpOverload) -> bool:
    schema = op._schema
    if not schema.arguments or not schema.returns:
        return False
    first = schema.arguments[0].alias_info
    ret = schema.returns[0].alias_info
    return bool(first and first.is_write and ret and ret.before_set == first.before_set)


def is_inplace(op: OpOverload) -> bool:
    return mutates_and_returns_first_arg(op)


def is_functional_schema(schema: FunctionSchema, *, allow_valid_view: bool = False) -> bool:
    """No argument is written and no result aliases an input (a view, if allowed)."""
    if schema.is_mutable:
        return False
    rets = schema.returns
    is_non_mutating_view = len(rets) > 0 and any(
        r.alias_info is not None and not r.alias_info.is_write for r in rets
    )
    if is_non_mutating_view:
        return allow_valid_view and len(rets) == 1
    return bool(rets)  # an op that returns nothing has only side effects


def fill_defaults(
    schema: FunctionSchema, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The arguments as given, with every omitted one at its schema default."""
    new_args = []
    new_kwargs = {}
    for i in range(len(schema.arguments)):
        info = schema.arguments[i]
        if info.kwarg_only:
            new_kwargs[info.name] = kwargs.get(info.name, info.default_value)
        elif i < len(args):
            new_args.append(args[i])
        else:
            new_args.append(info.default_value)
    return tuple(new_args), new_kwargs


def iter_tensors(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    import tensortrace

    for value in (*args, *kwargs.values()):
        if isinstance(value, tensortrace.Tensor):
            yield value
        elif isinstance(value, (list, tuple)):
            yield from (v for v in value if isinstance(v, tensortrace.Tensor))
