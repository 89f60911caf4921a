"""torch.library.infer_schema: a schema string from a function's type hints.

Mirrors `torch/_library/infer_schema.py` (tags inplace/out and opaque types left out).
"""

from __future__ import annotations

import collections.abc
import inspect
import typing
from collections.abc import Callable
from types import GenericAlias
from typing import Any, NoReturn

UNKNOWN_MUTATES = "unknown"


def _derived_types(
    base_type: Any,
    cpp_type: str,
    list_base: bool,
    optional_base_list: bool,
    optional_list_base: bool,
) -> list[tuple[Any, str]]:
    result: list[tuple[Any, str]] = [
        (base_type, cpp_type),
        (typing.Optional[base_type], f"{cpp_type}?"),  # noqa: UP045 - the key torch uses
    ]

    def seq_types(typ: Any) -> tuple[Any, ...]:
        return (
            typing.Sequence[typ],  # noqa: UP006
            typing.List[typ],  # noqa: UP006
            GenericAlias(collections.abc.Sequence, (typ,)),
            GenericAlias(list, (typ,)),
        )

    if list_base:
        result.extend((t, f"{cpp_type}[]") for t in seq_types(base_type))
    if optional_base_list:
        result.extend((t, f"{cpp_type}?[]") for t in seq_types(typing.Optional[base_type]))  # noqa: UP045
    if optional_list_base:
        result.extend((typing.Optional[t], f"{cpp_type}[]?") for t in seq_types(base_type))  # noqa: UP045
    return result


def get_supported_param_types() -> dict[Any, str]:
    import tensortrace as torch

    data = [
        # (python type, schema type, type[] variant, type?[] variant, type[]? variant)
        (torch.Tensor, "Tensor", True, True, False),
        (int, "SymInt", True, False, True),
        (float, "float", True, False, True),
        (bool, "bool", True, False, True),
        (str, "str", False, False, False),
        (typing.Union[int, float, bool], "Scalar", True, False, False),  # noqa: UP007 - Number
        (torch.dtype, "ScalarType", False, False, False),
        (torch.device, "Device", False, False, False),
    ]
    result: list[tuple[Any, str]] = []
    for line in data:
        result.extend(_derived_types(*line))
    return dict(result)


def get_supported_return_types() -> dict[Any, str]:
    import tensortrace as torch

    return {
        torch.Tensor: "Tensor",
        typing.List[torch.Tensor]: "Tensor[]",  # noqa: UP006
        list[torch.Tensor]: "Tensor[]",
        int: "SymInt",
        float: "float",
        bool: "bool",
        typing.Union[int, float, bool]: "Scalar",  # noqa: UP007 - torch.types.Number
    }


def _parse_return(annotation: Any, error_fn: Callable[[str], NoReturn]) -> str:
    supported = get_supported_return_types()
    if annotation is None:
        return "()"
    if annotation is inspect.Parameter.empty:
        error_fn("No return type annotation was provided. Please add one.")
    if typing.get_origin(annotation) is not tuple:
        if annotation not in supported:
            error_fn(f"Return has unsupported type {annotation}. The valid types are: {supported}.")
        return supported[annotation]
    args = typing.get_args(annotation)
    for arg in args:
        if arg not in supported:
            error_fn(f"Return has unsupported type {annotation}. The valid types are: {supported}.")
    return "(" + ", ".join(supported[arg] for arg in args) + ")"


def _default_repr(default: Any, name: str, error_fn: Callable[[str], NoReturn]) -> str:
    import tensortrace as torch

    if default is None or isinstance(default, (int, float, bool)):
        return str(default)
    if isinstance(default, (str, torch.device)):
        return f'"{default}"'
    if isinstance(default, torch.dtype):
        return str(default)[len("torch.") :]
    error_fn(
        f"Parameter {name} has an unsupported default value type {type(default)}. "
        f"Please file an issue on GitHub so we can prioritize this."
    )


def infer_schema(
    prototype_function: Callable[..., Any],
    /,
    *,
    mutates_args: Any,
    op_name: str | None = None,
    tags: Any = (),
) -> str:
    """Parses the schema of a function from its type hints: `(Tensor x, SymInt n) -> Tensor`,
    with `Tensor(a0!)` for the arguments in `mutates_args` ("unknown": every Tensor)."""
    sig = inspect.signature(prototype_function)
    if type(mutates_args) is not str:
        mutates_args = tuple(mutates_args)

    def error_fn(what: str) -> NoReturn:
        raise ValueError(f"infer_schema(func): {what} Got func with signature {sig})")

    def resolve(annotation: Any) -> Any:
        if isinstance(annotation, str):  # `from __future__ import annotations`
            try:
                return eval(annotation, prototype_function.__globals__)  # noqa: S307
            except Exception as e:
                error_fn(f"Unsupported type annotation {annotation}. It is not a type. ({e})")
        return annotation

    supported = get_supported_param_types()
    params: list[str] = []
    seen_args = set()
    saw_kwarg_only_arg = False
    for idx, (name, param) in enumerate(sig.parameters.items()):
        if param.kind not in (inspect.Parameter.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY):
            error_fn("We do not support positional-only args, varargs, or varkwargs.")
        if param.kind == inspect.Parameter.KEYWORD_ONLY and not saw_kwarg_only_arg:
            params.append("*")
            saw_kwarg_only_arg = True
        if param.annotation is inspect.Parameter.empty:
            error_fn(f"Parameter {name} must have a type annotation.")
        annotation_type = resolve(param.annotation)
        if annotation_type not in supported:
            if typing.get_origin(annotation_type) is tuple:
                error_fn(
                    f"Parameter {name} has unsupported type {param.annotation}. We do not "
                    "support Tuple inputs in schema. As a workaround, please try to use List "
                    f"instead. \n\nThe valid types are: {supported.keys()}."
                )
            error_fn(
                f"Parameter {name} has unsupported type {param.annotation}. "
                f"The valid types are: {supported.keys()}."
            )
        schema_type = supported[annotation_type]
        if type(mutates_args) is str:
            if mutates_args != UNKNOWN_MUTATES:
                raise ValueError(
                    "mutates_args must either be a sequence of the names of "
                    "the arguments that are mutated or the string 'unknown'. "
                )
            if schema_type.startswith("Tensor"):
                schema_type = f"Tensor(a{idx}!){schema_type[len('Tensor') :]}"
        elif name in mutates_args:
            if not schema_type.startswith("Tensor"):
                error_fn(
                    f"Parameter {name} is in mutable_args but only Tensors or collections of "
                    "Tensors can be mutated"
                )
            schema_type = f"Tensor(a{idx}!){schema_type[len('Tensor') :]}"
        seen_args.add(name)
        if param.default is inspect.Parameter.empty:
            params.append(f"{schema_type} {name}")
        else:
            params.append(f"{schema_type} {name}={_default_repr(param.default, name, error_fn)}")
    if mutates_args != UNKNOWN_MUTATES:
        not_seen = set(mutates_args) - seen_args
        if len(not_seen) > 0:
            error_fn(
                f"{not_seen} in mutates_args were not found in "
                f"the custom op's signature. "
                f"mutates_args should contain the names of all args that the "
                f"custom op mutates, or just the string 'unknown' if you don't know."
            )
    ret = _parse_return(resolve(sig.return_annotation), error_fn)
    if op_name is not None:
        return f"{op_name}({', '.join(params)}) -> {ret}"
    return f"({', '.join(params)}) -> {ret}"
