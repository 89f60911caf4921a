"""Operator schemas: `add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor`.

Mirrors `aten/src/ATen/core/function_schema.h` and the schema parser of
`torch/csrc/jit/frontend/function_schema_parser.cpp` (and torchgen's `model.py`, which reads the
same strings from native_functions.yaml). A schema knows its arguments' types, defaults, which
are keyword-only, and the alias annotations that mark in-place (`Tensor(a!)`) and view
(`Tensor(a)`) results.
"""

from __future__ import annotations

import re
from typing import Any

from tensortrace.c10.frozen import Frozen
from tensortrace.c10.scalar_type import ScalarType

# Note [Patterns compiled on first use]
# Import parses no schema (the generated files hold them parsed), so the grammar is a pattern
# that `re` compiles on the first parse and keeps in its cache, not one compiled at import.
_SCHEMA_PATTERN = (
    r"^(?P<name>[\w]+)(?:\.(?P<overload>\w+))?\((?P<args>.*)\)\s*->\s*"
    r"(?P<returns>.+)$"
)
# `Tensor(a -> *)` (a list whose elements alias a) and `Tensor?[]` (a list of optional tensors)
_TYPE_PATTERN = (
    r"^(?P<base>[A-Za-z_]\w*)(?:\((?P<alias>[a-z]\d*!?)(?:\s*->\s*\*)?\))?"
    r"(?P<elem_optional>\?)?"
    r"(?P<list>\[(?P<list_size>\d*)\])?(?P<optional>\?)?$"
)


class Type(Frozen):
    """An argument type: `Tensor`, `int[]`, `SymInt[1]`, `Tensor?`, `ScalarType?`..."""

    # Note [Records written out, not made by dataclass] in c10/frozen.py
    __slots__ = ("base", "is_list", "list_size", "optional", "alias", "elem_optional")
    __match_args__ = __slots__  # the fields, in order

    base: str
    is_list: bool
    list_size: int | None
    optional: bool
    alias: str | None  # "a" for a view of input a, "a!" for a write to it
    elem_optional: bool  # Tensor?[]: the list's elements may be None

    def __init__(
        self,
        base: str,
        is_list: bool = False,
        list_size: int | None = None,
        optional: bool = False,
        alias: str | None = None,
        elem_optional: bool = False,
    ) -> None:
        object.__setattr__(self, "base", base)
        object.__setattr__(self, "is_list", is_list)
        object.__setattr__(self, "list_size", list_size)
        object.__setattr__(self, "optional", optional)
        object.__setattr__(self, "alias", alias)
        object.__setattr__(self, "elem_optional", elem_optional)

    @property
    def is_tensor_like(self) -> bool:
        return self.base == "Tensor"

    @property
    def is_write(self) -> bool:
        return bool(self.alias and self.alias.endswith("!"))

    def __str__(self) -> str:
        alias = f"({self.alias})" if self.alias else ""
        lst = f"[{self.list_size or ''}]" if self.is_list else ""
        elem = "?" if self.elem_optional else ""
        return f"{self.base}{alias}{elem}{lst}{'?' if self.optional else ''}"


class Argument(Frozen):
    # Note [Records written out, not made by dataclass] in c10/frozen.py
    __slots__ = ("name", "type", "default", "kwarg_only")
    __match_args__ = __slots__  # the fields, in order

    name: str
    type: Type
    default: str | None
    kwarg_only: bool

    def __init__(self, name: str, type: Type, default: str | None, kwarg_only: bool) -> None:  # noqa: A002 - the field's name
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "default", default)
        object.__setattr__(self, "kwarg_only", kwarg_only)

    @property
    def has_default(self) -> bool:
        return self.default is not None

    def default_value(self) -> Any:
        return parse_default(self.default, self.type)

    def __str__(self) -> str:
        default = f"={self.default}" if self.default is not None else ""
        return f"{self.type} {self.name}{default}"


class FunctionSchema(Frozen):
    # Note [Records written out, not made by dataclass] in c10/frozen.py
    __slots__ = ("name", "overload_name", "arguments", "returns", "return_names", "namespace")
    __match_args__ = __slots__  # the fields, in order

    name: str
    overload_name: str
    arguments: tuple[Argument, ...]
    returns: tuple[Type, ...]
    # `-> (Tensor values, Tensor indices)`: the names a Python namedtuple result takes
    return_names: tuple[str, ...]
    # the library that defined the op: "aten" for native_functions.yaml, else a
    # torch.library.Library's namespace (`myns::foo`)
    namespace: str

    def __init__(
        self,
        name: str,
        overload_name: str,
        arguments: tuple[Argument, ...],
        returns: tuple[Type, ...],
        return_names: tuple[str, ...] = (),
        namespace: str = "aten",
    ) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "overload_name", overload_name)
        object.__setattr__(self, "arguments", arguments)
        object.__setattr__(self, "returns", returns)
        object.__setattr__(self, "return_names", return_names)
        object.__setattr__(self, "namespace", namespace)

    def with_namespace(self, namespace: str) -> FunctionSchema:
        """A copy in another library's namespace (dataclasses.replace, as it was)."""
        return FunctionSchema(
            self.name,
            self.overload_name,
            self.arguments,
            self.returns,
            self.return_names,
            namespace,
        )

    @property
    def qualified_name(self) -> str:
        """`aten::add`: the name torch.profiler records for the op (no overload)."""
        return f"{self.namespace}::{self.name}"

    @property
    def operator_name(self) -> str:
        """`aten::add.Tensor`: OperatorName's text, the dispatcher's key for the overload."""
        return f"{self.namespace}::{self.full_name}"

    @property
    def full_name(self) -> str:
        return f"{self.name}.{self.overload_name}" if self.overload_name else self.name

    @property
    def is_inplace(self) -> bool:
        return self.name.endswith("_") and not self.name.startswith("_")

    @property
    def is_out(self) -> bool:
        return any(a.kwarg_only and a.type.is_write for a in self.arguments)

    @property
    def is_view(self) -> bool:
        return any(r.alias and not r.is_write for r in self.returns)

    @property
    def has_tensor_options(self) -> bool:
        names = {a.name for a in self.arguments}
        return {"dtype", "layout", "device", "pin_memory"} <= names

    def tensor_argument_indices(self) -> tuple[int, ...]:
        return tuple(i for i, a in enumerate(self.arguments) if a.type.is_tensor_like)

    def __str__(self) -> str:
        args: list[str] = []
        star = False
        for a in self.arguments:
            if a.kwarg_only and not star:
                args.append("*")
                star = True
            args.append(str(a))
        rets = ", ".join(str(r) for r in self.returns)
        if len(self.returns) != 1:
            rets = f"({rets})"
        return f"{self.full_name}({', '.join(args)}) -> {rets}"

    def qualified_str(self) -> str:
        """str() of torch's FunctionSchema: `aten::add.Tensor(Tensor self, ...) -> Tensor`."""
        return f"{self.namespace}::{self}"


def parse_type(text: str) -> Type:
    m = re.match(_TYPE_PATTERN, text.strip())
    if not m:
        raise ValueError(f"cannot parse type {text!r}")
    size = m.group("list_size")
    is_list = bool(m.group("list"))
    # a `?` before any `[]` belongs to the elements; with no list it makes the type optional
    elem_optional = bool(m.group("elem_optional")) and is_list
    optional = bool(m.group("optional")) or (bool(m.group("elem_optional")) and not is_list)
    return Type(
        m.group("base"),
        is_list,
        int(size) if size else None,
        optional,
        m.group("alias"),
        elem_optional,
    )


def _split_top_level(text: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        parts.append(current.strip())
    return parts


def parse_schema(text: str) -> FunctionSchema:
    m = re.match(_SCHEMA_PATTERN, " ".join(text.split()))
    if not m:
        raise ValueError(f"cannot parse schema {text!r}")
    arguments: list[Argument] = []
    kwarg_only = False
    for part in _split_top_level(m.group("args")):
        if part == "*":
            kwarg_only = True
            continue
        decl, _, default = part.partition("=")
        type_text, _, name = decl.strip().rpartition(" ")
        arguments.append(Argument(name, parse_type(type_text), default.strip() or None, kwarg_only))
    returns_text = m.group("returns").strip()
    if returns_text.startswith("("):
        returns_text = returns_text[1:-1]
    declared = [r.strip().split(" ") for r in _split_top_level(returns_text)]
    returns = tuple(parse_type(r[0]) for r in declared)
    names = tuple(r[1] for r in declared if len(r) > 1)
    return FunctionSchema(
        m.group("name"),
        m.group("overload") or "",
        tuple(arguments),
        returns,
        names if len(names) == len(returns) else (),
    )


def parse_default(text: str | None, type_: Type) -> Any:
    """Default values as they are written in schemas: None, True, 1, 0.5, [], contiguous_format."""
    if text is None or text == "None":
        return None
    if type_.base == "ScalarType":
        # `ScalarType? dtype=long` (randint): the C++ spelling of the enum value
        return {
            "long": ScalarType.Long,
            "float": ScalarType.Float,
            "double": ScalarType.Double,
            "int": ScalarType.Int,
            "bool": ScalarType.Bool,
        }[text]
    if text in ("True", "False"):
        return text == "True"
    if text == "Mean":  # `int reduction=Mean`: at::Reduction::Mean (Reduction.h)
        return 1
    if type_.base == "str" and len(text) >= 2 and text[0] in "'\"" and text[-1] == text[0]:
        return text[1:-1]  # `str UPLO="L"`, `str mode='reduced'`: the string, not its quotes
    if text.startswith("["):
        inner = text[1:-1].strip()
        return [int(v) for v in inner.split(",")] if inner else []
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text  # an enum spelling such as contiguous_format or "mean"
