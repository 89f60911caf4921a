"""The TypeError text of arguments no signature accepts: format_invalid_args.

Mirrors `torch/csrc/utils/invalid_arguments.cpp` (and py_typename of `python_strings.h`).
PythonArgParser (python_arg_parser.py) raises its result when no signature matches.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tensortrace.c10.device import Device
from tensortrace.csrc.dtype import dtype, layout, memory_format
from tensortrace.csrc.unordered_map_order import unordered_map_order


def py_typename(obj: Any) -> str:
    """py_typename: the type's tp_name, which for torch's own C types is qualified."""
    for key, cls in (
        ("dtype", dtype),
        ("layout", layout),
        ("memory_format", memory_format),
        ("device", Device),
    ):
        if cls is type(obj):
            return f"torch.{key}"
    kind = type(obj)
    # a static C type's tp_name carries its module (numpy.float64, numpy.dtypes.Int32DType,
    # collections.OrderedDict) unless it is a builtin; a class made at run time has its name
    if not kind.__flags__ & _HEAPTYPE and kind.__module__ != "builtins":
        return f"{kind.__module__}.{kind.__name__}"
    return kind.__name__


_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE


# Note [How torch describes an invalid combination]
# format_invalid_args re-reads each printed signature by splitting it at ", ": every piece is an
# "argument" whose type is the text before its last space, matched against the Python type name.
# So `()` counts as one (empty) argument, `*` counts as one, and `bool keepdim = False` has the
# type "bool keepdim =". These quirks decide which signatures get a "didn't match because"
# line and which arguments are wrapped in `!...!`, and are kept as they are.


def _option_arguments(option: str) -> list[tuple[str, str, bool]]:
    """_parseOption: (type, name, nullable) for each ", "-separated piece of `(...)`."""
    pieces = []
    for arg in option[1:-1].split(", "):
        start = 1 if arg.startswith("#") else 0
        nullable = arg[start : start + 1] == "["
        if nullable:
            start += 1
            arg = arg[: -len(" or None]")]
        type_end = arg.rfind(" ")
        name = arg[type_end + 1 :]
        if "..." in arg:
            type_end -= 4
        pieces.append((arg[start:type_end] if type_end >= 0 else arg[start:-1], name, nullable))
    return pieces


def _type_matches(type_name: str, nullable: bool, obj: Any) -> bool:
    """_buildType(...).is_matching: by Python type name ("float" also takes int)."""
    if nullable and obj is None:
        return True
    name = py_typename(obj)
    if type_name == "float":
        return name in ("float", "int", "long")
    if type_name == "int":
        return name in ("int", "long")
    return name == type_name


def _argcount_match(
    arguments: list[tuple[str, str, bool]], args: Sequence[Any], kwargs: dict[str, Any]
) -> bool:
    return len(args) + len(kwargs) == len(arguments)


def _arg_desc(args: Sequence[Any], kwargs: dict[str, Any]) -> str:
    # invalid_arguments.cpp's arg_desc appends ", " after each item and erases the last one
    # only when there are positional arguments: keywords alone read `(dtype=str, )`
    text = "".join(
        [f"{py_typename(a)}, " for a in args]
        + [f"{k}={py_typename(v)}, " for k, v in kwargs.items()]
    )
    return "(" + (text[:-2] if args else text) + ")"


def _formatted_arg_desc(
    arguments: list[tuple[str, str, bool]], args: Sequence[Any], kwargs: dict[str, Any]
) -> str:
    """The arguments, each not matching its piece of the signature wrapped in `!...!`."""
    parts = []
    values = list(args) + list(kwargs.values())
    keys = [None] * len(args) + list(kwargs)
    for i, (value, key) in enumerate(zip(values, keys)):
        type_name, _, nullable = arguments[i]
        text = py_typename(value)
        if isinstance(value, (tuple, list)):
            inner = ", ".join(py_typename(v) for v in value)
            text += (
                f" of ({inner}{',' if len(value) == 1 else ''})"
                if isinstance(value, tuple)
                else f" of [{inner}]"
            )
        if key is not None:
            text = f"{key}={text}"
        parts.append(text if _type_matches(type_name, nullable, value) else f"!{text}!")
    return "(" + ", ".join(parts) + ")"


def _unmatched_kwargs(arguments: list[tuple[str, str, bool]], kwargs: dict[str, Any]) -> list[str]:
    names = [name for _, name, _ in arguments[max(0, len(arguments) - len(kwargs)) :]]
    return [k for k in kwargs if k not in names]


def format_invalid_args(
    args: Sequence[Any], kwargs: dict[str, Any], function_name: str, options: list[str]
) -> str:
    """torch::format_invalid_args (Note [How torch describes an invalid combination])."""
    # the keywords are read from an std::unordered_map (Note [unordered_map iteration order])
    kwargs = {k: kwargs[k] for k in unordered_map_order(kwargs)}
    msg = f"{function_name} received an invalid combination of arguments - "
    if len(options) == 1:
        arguments = _option_arguments(options[0])
        unmatched = _unmatched_kwargs(arguments, kwargs) if kwargs else []
        if unmatched:
            return msg + "got unrecognized keyword arguments: " + ", ".join(unmatched)
        got = (
            _formatted_arg_desc(arguments, args, kwargs)
            if _argcount_match(arguments, args, kwargs)
            else _arg_desc(args, kwargs)
        )
        return msg + f"got {got}, but expected {options[0]}"
    msg += f"got {_arg_desc(args, kwargs)}, but expected one of:\n"
    for option in options:
        msg += f" * {option}\n"
        arguments = _option_arguments(option)
        if not _argcount_match(arguments, args, kwargs):
            continue
        unmatched = _unmatched_kwargs(arguments, kwargs) if kwargs else []
        if unmatched:
            msg += (
                "      didn't match because some of the keywords were incorrect: "
                + ", ".join(unmatched)
                + "\n"
            )
        else:
            msg += (
                "      didn't match because some of the arguments have invalid types: "
                + _formatted_arg_desc(arguments, args, kwargs)
                + "\n"
            )
    return msg
