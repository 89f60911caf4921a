"""torch._C.FunctionSchema and torch._C.Argument: an operator's schema as Python sees it.

Mirrors the pybind11 bindings of `c10::FunctionSchema` in `torch/csrc/jit/python/init.cpp`:
`name` is the qualified `aten::add`, `overload_name` is `Tensor`, str() is the declaration
torch prints (`aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor`).
"""

from __future__ import annotations

import re
from typing import Any

from tensortrace.aten import function_schema as fs


class AliasInfo:
    """torch._C._AliasInfo: `Tensor(a!)` is before_set {"alias::a"}, is_write True."""

    def __init__(self, alias: str) -> None:
        self.is_write = alias.endswith("!")
        self.before_set = {f"alias::{alias.rstrip('!')}"}
        self.after_set = set(self.before_set)


class Argument:
    """torch._C.Argument."""

    def __init__(self, arg: fs.Argument | None, ret: fs.Type | None = None, name: str = "") -> None:
        t = arg.type if arg is not None else ret
        assert t is not None
        self.name = arg.name if arg is not None else name
        self.type = t
        self.kwarg_only = bool(arg is not None and arg.kwarg_only)
        self.N = t.list_size
        self.has_default_value = lambda: bool(arg is not None and arg.has_default)
        self.default_value = arg.default_value() if arg is not None else None
        self.alias_info = AliasInfo(t.alias) if t.alias else None
        self.is_out = bool(self.kwarg_only and self.alias_info and self.alias_info.is_write)
        self._text = str(arg) if arg is not None else f"{t}{' ' + name if name else ''}"

    def __str__(self) -> str:
        return self._text

    __repr__ = __str__


# c10's enums as the IValue ints the schema parser makes of their names
_ENUMS = {
    "contiguous_format": 0,
    "preserve_format": 1,
    "channels_last": 2,
    "channels_last_3d": 3,
    "strided": 0,
    "sparse_coo": 1,
}


def _default_str(arg: fs.Argument) -> str:
    """A default as c10 prints the IValue the parser made of it: `1.` for the double 1.0,
    `1.0000000000000001e-05` (17 digits), `4` for ScalarType long, `[1, 1]` for `SymInt[2]=1`."""
    text = arg.default or ""
    t = arg.type
    if text in ("None", "True", "False"):
        return text
    if t.base in ("Layout", "MemoryFormat"):
        return str(_ENUMS.get(text, text))
    if t.base == "ScalarType" or text == "Mean":
        value = arg.default_value()
        return str(int(value)) if isinstance(value, int) else text
    if t.base == "str" and len(text) >= 2 and text[0] in "'\"":
        return f'"{text[1:-1]}"'
    if t.is_list:
        if text.startswith("["):
            items = [v.strip() for v in text[1:-1].split(",") if v.strip()]
            return "[" + ", ".join(items) + "]"
        # the parser repeats a scalar for a SymInt[N] or an int[1] (not an int[2]: `int[2]
        # padding=0` stays 0, as torch prints it)
        if t.list_size and (t.base == "SymInt" or t.list_size == 1):
            return "[" + ", ".join([text] * t.list_size) + "]"
        return text
    if t.base in ("float", "Scalar"):
        try:
            value = float(text)
        except ValueError:
            return text
        if t.base == "Scalar" and not any(c in text for c in ".eE"):
            return text  # an int Scalar
        return f"{int(value)}." if value.is_integer() else f"{value:.17g}"
    return text


def _declared(text: str) -> tuple[list[str], str] | None:
    """The argument types and the returns as the declaration writes them (`Tensor(a -> *)`,
    `(Tensor values, Tensor indices)`), which the parsed Type does not keep."""
    match = re.match(fs._SCHEMA_PATTERN, " ".join(text.split()))
    if match is None:
        return None
    types = []
    for part in fs._split_top_level(match.group("args")):
        if part != "*":
            types.append(part.partition("=")[0].strip().rpartition(" ")[0])
    return types, match.group("returns").strip()


def schema_str(schema: fs.FunctionSchema, text: str | None) -> str:
    """c10::FunctionSchema's operator<<: `aten::add.Tensor(Tensor self, ...) -> Tensor`."""
    declared = (
        _declared(text.partition("::")[2] if text and "::" in text.split("(")[0] else text)
        if text
        else None
    )
    if declared is None or len(declared[0]) != len(schema.arguments):
        return schema.qualified_str()
    types, returns = declared
    args: list[str] = []
    star = False
    for a, type_text in zip(schema.arguments, types):
        if a.kwarg_only and not star:
            args.append("*")
            star = True
        default = f"={_default_str(a)}" if a.default is not None else ""
        args.append(f"{type_text} {a.name}{default}")
    return f"{schema.operator_name}({', '.join(args)}) -> {returns}"


class FunctionSchema:
    """torch._C.FunctionSchema of one operator overload."""

    def __init__(self, schema: fs.FunctionSchema, text: str | None = None) -> None:
        self._schema = schema
        self._text = schema_str(schema, text)
        self.name = schema.qualified_name
        self.overload_name = schema.overload_name
        self.arguments = [Argument(a) for a in schema.arguments]
        names = schema.return_names or ("",) * len(schema.returns)
        self.returns = [Argument(None, r, n) for r, n in zip(schema.returns, names)]
        self.is_mutable = any(a.type.is_write for a in schema.arguments)

    def _is_view_op(self) -> bool:
        return self._schema.is_view

    def __str__(self) -> str:
        return self._text

    __repr__ = __str__

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, FunctionSchema) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))


def parse_schema(text: str) -> FunctionSchema:
    """torch._C.parse_schema: `ns::name.overload(...) -> ...` (aten when no namespace)."""
    from tensortrace.csrc.python_dispatch import parse_library_schema

    return FunctionSchema(parse_library_schema(text, "aten"))
