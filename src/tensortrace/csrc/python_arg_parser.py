"""PythonArgParser: match Python arguments against signature strings, with PyTorch's TypeErrors.

Mirrors `torch/csrc/utils/python_arg_parser.cpp`; split from it: ParameterType
(python_arg_parser_types.py), the number checks (python_numbers.py) and the text of an invalid
combination (invalid_arguments.py, `invalid_arguments.cpp`). A binding declares its overloads
as strings, `"rand(SymIntArrayRef size, *, Generator? generator, ...)"`; `parse` tries them in
order and returns the first that matches with its arguments converted (PythonArgs).
When none match: if exactly one signature is plausible by argument count, it is parsed again to
raise its precise error (`rand(): argument 'size' (position 1) must be tuple of ints, not str`);
otherwise the error lists every signature (`received an invalid combination of arguments`).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tensortrace.c10.device import Device
from tensortrace.csrc.dtype import dtype, layout, memory_format
from tensortrace.csrc.generator import Generator
from tensortrace.csrc.invalid_arguments import format_invalid_args, py_typename
from tensortrace.csrc.python_arg_parser_plan import (
    _NO_KWARGS,
    NUMPY_COMPATIBILITY_ARG_NAMES,
    Match,
    ParsePlan,
    decided_by_type,
    plan_of,
)
from tensortrace.csrc.python_arg_parser_types import _TYPES, ParameterType
from tensortrace.csrc.python_numbers import _first_bad_int, _is_double, _is_int, _is_scalar
from tensortrace.csrc.python_variable import TensorBase
from tensortrace.csrc.storage import TypedStorage, UntypedStorage
from tensortrace.trace import traced

SOURCE = "torch/csrc/utils/python_arg_parser.cpp"
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
_ints_only = frozenset({int}).issuperset  # of an iterable of types


_DEFAULT_VALUES: dict[str, Any] = {}
_UNPARSED = object()
_new_object = object.__new__


@dataclass
class FunctionParameter:
    type_: ParameterType
    name: str
    optional: bool = False  # has a default
    allow_none: bool = False  # `Type?` or default None
    keyword_only: bool = False
    size: int = 0  # IntArrayRef[2]: a single int broadcasts
    default_str: str | None = None
    allow_numbers_as_tensor: bool = False

    @classmethod
    def parse(cls, text: str, keyword_only: bool) -> FunctionParameter:
        decl, eq, default = text.partition("=")
        type_str, name = decl.strip().rsplit(" ", 1)
        allow_none = type_str.endswith("?")
        type_str = type_str.rstrip("?")
        size = 0
        m = re.match(r"^(\w+(?:::\w+)?)\[(\d+)\]$", type_str)
        if m:
            type_str, size = m.group(1), int(m.group(2))
        default_str = default.strip() if eq else None
        if default_str == "None":
            allow_none = True
        return cls(
            _TYPES[type_str], name.strip(), eq == "=", allow_none, keyword_only, size, default_str
        )

    def type_name(self) -> str:
        return self.type_.value if self.type_ != ParameterType.SYM_INT else "int"

    def default_value(self) -> Any:
        """The value an absent argument takes (PythonArgs' accessors fall back to it)."""
        text = self.default_str
        if text is None:
            return None
        # parsed once per default text (every absent argument of every call asks); a list
        # default is copied, since the caller may change it
        value = _DEFAULT_VALUES.get(text, _UNPARSED)
        if value is _UNPARSED:
            value = _DEFAULT_VALUES[text] = self._parse_default(text)
        return list(value) if type(value) is list else value

    @staticmethod
    def _parse_default(text: str) -> Any:
        if text == "None":
            return None
        if text in ("True", "False"):
            return text == "True"
        if text[:1] in ("'", '"'):  # a str default: ord='fro'
            return text[1:-1]
        if text.startswith(("[", "(")):
            inner = text[1:-1].strip()
            return [int(v) for v in inner.split(",") if v.strip()]
        if text == "Mean":
            # FunctionParameter::set_default_str parses an int default with atoi, so
            # `int reduction=Mean` is 0 (Reduction::None) when omitted from Python, as in torch
            return 0
        try:
            return int(text)
        except ValueError:
            return float(text)

    def check(self, obj: Any, argnum: int = 0) -> tuple[bool, int]:
        """(matches, index of the failing element of a list or -1)."""
        t = self.type_
        if t == ParameterType.TENSOR:
            if isinstance(obj, TensorBase):
                return True, -1
            return (self.allow_numbers_as_tensor and _is_scalar(obj)), -1
        if t == ParameterType.SCALAR:
            return _is_scalar(obj), -1
        if t in (ParameterType.INT64, ParameterType.SYM_INT):
            return _is_int(obj), -1
        if t == ParameterType.DOUBLE:
            return _is_double(obj), -1
        if t == ParameterType.BOOL:
            return isinstance(obj, bool) or type(obj).__name__ == "bool_", -1
        if t == ParameterType.INT_LIST:
            if isinstance(obj, (tuple, list)):
                # like PyTorch, only the first element decides; unpacking checks the rest
                return (len(obj) == 0 or type(obj[0]) is int or _is_int(obj[0])), -1
            return (self.size > 0 and _is_int(obj)), -1
        if t == ParameterType.FLOAT_LIST:  # histogram's range=(lo, hi)
            if isinstance(obj, (tuple, list)):
                return (len(obj) == 0 or _is_double(obj[0])), -1
            return (self.size > 0 and _is_double(obj)), -1
        if t == ParameterType.TENSOR_LIST:
            if isinstance(obj, (tuple, list)):
                # is_tensor_list_and_append_overloaded(throw_error=true): a bad element is an
                # error right away, not a mismatch of this signature
                for i, o in enumerate(obj):
                    if not isinstance(o, TensorBase):
                        raise TypeError(
                            f"expected Tensor as element {i} in argument "
                            f"{argnum}, but got {type(o).__name__}"
                        )
                return True, -1
            return False, -1
        if t == ParameterType.PYOBJECT:
            return True, -1
        if t == ParameterType.SCALARTYPE:
            # THPPythonScalarType_Check compares by identity: np.dtype("int64") == int, but
            # NumPy's dtype is no Python scalar type
            return isinstance(obj, dtype) or obj is int or obj is float or obj is bool or (
                obj is complex
            ), -1
        if t == ParameterType.LAYOUT:
            return isinstance(obj, layout), -1
        if t == ParameterType.DEVICE:
            return (
                isinstance(obj, (Device, str)) or (_is_int(obj) and not isinstance(obj, TensorBase))
            ), -1
        if t == ParameterType.GENERATOR:
            return isinstance(obj, Generator), -1
        if t == ParameterType.MEMORY_FORMAT:
            return isinstance(obj, memory_format), -1
        if t == ParameterType.STRING:
            return isinstance(obj, str), -1
        if t == ParameterType.STORAGE:
            return isinstance(obj, (UntypedStorage, TypedStorage)), -1
        return False, -1

    def __str__(self) -> str:
        text = f"{self.type_name()} {self.name}"
        if self.default_str is not None:
            # a list's `[]` default is C++'s `{}`, which the Python signature prints as None
            text += f" = {'None' if self.default_str == '[]' else self.default_str}"
        return text


@dataclass
class FunctionSignature:
    name: str
    params: list[FunctionParameter]
    index: int
    deprecated: bool = False
    hidden: bool = False
    min_args: int = 0
    max_args: int = 0
    max_pos_args: int = 0
    text: str = ""
    required_kwargs: frozenset[str] = frozenset()

    @classmethod
    def parse(cls, fmt: str, index: int, allow_numbers_as_tensors: bool) -> FunctionSignature:
        fmt, _, flags = fmt.partition("|")
        m = re.match(r"^(\w+)\((.*)\)$", fmt.strip())
        if not m:
            raise ValueError(f"bad signature {fmt!r}")
        params: list[FunctionParameter] = []
        keyword_only = False
        for part in (p.strip() for p in re.split(r",(?![^\[]*\])", m.group(2))):  # not in [0,1]
            if not part:
                continue
            if part == "*":
                keyword_only = True
                continue
            param = FunctionParameter.parse(part, keyword_only)
            param.allow_numbers_as_tensor = allow_numbers_as_tensors
            params.append(param)
        sig = cls(
            m.group(1),
            params,
            index,
            deprecated="deprecated" in flags,
            hidden="hidden" in flags or "deprecated" in flags,
            text=fmt.strip(),
        )
        # rand(size, *, Generator? generator) cannot match a call without generator=: the
        # parser skips it without parsing (an argument spelled the NumPy way is not counted)
        sig.required_kwargs = frozenset(
            p.name
            for p in params
            if p.keyword_only and not p.optional and p.name not in NUMPY_COMPATIBILITY_ARG_NAMES
        )
        sig.min_args = sum(1 for p in params if not p.optional)
        sig.max_args = len(params)
        sig.max_pos_args = sum(1 for p in params if not p.keyword_only)
        return sig

    def __str__(self) -> str:
        parts: list[str] = []
        star = False
        for p in self.params:
            if p.keyword_only and not star:
                parts.append("*")
                star = True
            parts.append(str(p))
        return "(" + ", ".join(parts) + ")"

    # ---- matching (FunctionSignature::parse) -------------------------------------------------
    def parse_args(
        self, args: Sequence[Any], kwargs: dict[str, Any], raise_exception: bool
    ) -> list[Any] | None:
        """FunctionSignature::parse: the arguments in the signature's order, or None."""
        return self.match(args, kwargs, raise_exception).parsed

    def match(self, args: Sequence[Any], kwargs: dict[str, Any], raise_exception: bool) -> Match:
        """parse_args, and what it looked at (Note [The parse remembered per argument types])."""
        nargs = len(args)
        remaining_kwargs = len(kwargs)
        allow_varargs_intlist = (
            self.max_pos_args == 1 and self.params[0].type_ == ParameterType.INT_LIST
        )
        if nargs > self.max_pos_args and not allow_varargs_intlist:
            if raise_exception:
                self._extra_args(nargs)
            return Match(None, True, False)  # decided by the count
        dst: list[Any] = []
        arg_pos = 0
        missing = object()
        by_type, took_varargs = True, False
        for i, param in enumerate(self.params):
            is_kwd = False
            if arg_pos < nargs:
                if param.keyword_only:
                    if raise_exception:
                        self._extra_args(nargs)
                    return Match(None, by_type, False)
                obj = args[arg_pos]
            else:
                obj = kwargs.get(param.name, missing)
                if obj is missing and param.name in NUMPY_COMPATIBILITY_ARG_NAMES:
                    for numpy_name in NUMPY_COMPATIBILITY_ARG_NAMES[param.name]:
                        obj = kwargs.get(numpy_name, missing)
                        if obj is not missing:
                            break
                is_kwd = True
            varargs_eligible = allow_varargs_intlist and arg_pos == 0 and not is_kwd
            if (obj is missing and param.optional) or (obj is None and param.allow_none):
                dst.append(None)
            elif obj is missing:
                if raise_exception:
                    self._missing_args(i)
                return Match(None, by_type, False)
            else:
                if not decided_by_type(param.type_, obj):
                    by_type = False
                ok, failed_idx = param.check(obj, i)
                if ok:
                    dst.append(obj)
                elif varargs_eligible and (type(args[0]) is int or _is_int(args[0])):
                    if isinstance(args[0], TensorBase):  # a 0-dim integer tensor counts
                        by_type = False
                    # take all positional arguments as this parameter: rand(3, 4) -> rand((3, 4))
                    dst.append(tuple(args))
                    took_varargs = True
                    arg_pos = nargs
                    continue
                elif raise_exception:
                    tname = py_typename(obj)
                    if is_kwd:
                        raise TypeError(
                            f"{self.name}(): argument '{param.name}' must be "
                            f"{param.type_name()}, not {tname}"
                        )
                    if failed_idx != -1:
                        bad = type(obj[failed_idx]).__name__
                        raise TypeError(
                            f"{self.name}(): argument '{param.name}' (position "
                            f"{arg_pos + 1}) must be {param.type_name()}, but found "
                            f"element of type {bad} at pos {failed_idx}"
                        )
                    raise TypeError(
                        f"{self.name}(): argument '{param.name}' (position "
                        f"{arg_pos + 1}) must be {param.type_name()}, not {tname}"
                    )
                else:
                    return Match(None, by_type, False)
            if not is_kwd:
                arg_pos += 1
            elif obj is not missing:
                remaining_kwargs -= 1
        if remaining_kwargs > 0:
            if raise_exception:
                self._extra_kwargs(kwargs)
            return Match(None, by_type, False)
        return Match(dst, by_type, took_varargs)

    def _extra_args(self, nargs: int) -> None:
        max_pos, min_args = self.max_pos_args, self.min_args
        if min_args != max_pos:
            raise TypeError(
                f"{self.name}() takes from {min_args} to {max_pos} positional "
                f"arguments but {nargs} were given"
            )
        plural = "" if max_pos == 1 else "s"
        verb = "was" if nargs == 1 else "were"
        raise TypeError(
            f"{self.name}() takes {max_pos} positional argument{plural} but {nargs} {verb} given"
        )

    def _missing_args(self, idx: int) -> None:
        names = [f'"{p.name}"' for p in self.params[idx:] if not p.optional]
        # PyTorch's own message says "arguments" for one and "argument" for several; kept.
        plural = "s" if len(names) == 1 else ""
        raise TypeError(
            f"{self.name}() missing {len(names)} required positional argument"
            f"{plural}: {', '.join(names)}"
        )

    def _extra_kwargs(self, kwargs: dict[str, Any]) -> None:
        names = {p.name for p in self.params}
        for key in kwargs:
            if key not in names:
                raise TypeError(f"{self.name}() got an unexpected keyword argument '{key}'")
        raise TypeError(f"{self.name}() got multiple values for argument '{next(iter(kwargs))}'")


class PythonArgs:
    """The parsed arguments of the matched signature, with PyTorch's typed accessors."""

    def __init__(self, signature: FunctionSignature, args: list[Any]) -> None:
        self.signature = signature
        self.idx = signature.index
        self.args = args

    def isNone(self, i: int) -> bool:
        return self.args[i] is None

    def get(self, i: int) -> Any:
        value = self.args[i]
        return self.signature.params[i].default_value() if value is None else value

    def intlist(self, i: int) -> list[int]:
        obj = self.args[i]
        param = self.signature.params[i]
        if obj is None:  # absent: the signature's default (dim=[-2,-1]), else empty
            default = param.default_value()
            if isinstance(default, int) and not isinstance(default, bool) and param.size:
                return [default] * param.size  # `SymInt[2] stride=1` is [1, 1]
            return list(default) if isinstance(default, list) else []
        if not isinstance(obj, (tuple, list)):
            value = int(obj)
            if not INT64_MIN <= value <= INT64_MAX:  # THPUtils_unpackLong
                raise ValueError("Overflow when unpacking long long")
            return [value] * param.size  # IntArrayRef[N] broadcasts a single int
        exact = _ints_only(map(type, obj))  # the common case, each an int by exact type: in C
        bad = -1 if exact else _first_bad_int(obj)
        if bad != -1:
            raise TypeError(
                f"{self.signature.name}(): argument '{param.name}' failed to unpack "
                f'the object at pos {bad + 1} with error "type must be tuple of '
                f'ints,but got {type(obj[bad]).__name__}"'
            )
        values = list(obj) if exact else [int(x) for x in obj]
        if not values or INT64_MIN <= min(values) and max(values) <= INT64_MAX:
            return values
        for pos, value in enumerate(values):
            if not INT64_MIN <= value <= INT64_MAX:
                # torch appends the C++ backtrace of THPUtils_unpackLong's error here
                raise TypeError(
                    f"{self.signature.name}(): argument '{param.name}' failed to "
                    f'unpack the object at pos {pos + 1} with error "Overflow '
                    f'when unpacking long long"'
                )
        return values


@dataclass
class PythonArgParser:
    signatures: list[FunctionSignature] = field(default_factory=list)
    function_name: str = ""
    # the formats of a parser made by `lazy`, parsed into `signatures` on its first use
    pending: tuple[Sequence[str], bool] | None = None
    # Note [The parse remembered per argument types]
    parsed: dict[tuple[Any, ...], ParsePlan] = field(default_factory=dict)

    @classmethod
    def create(cls, fmts: Sequence[str], allow_numbers_as_tensors: bool = False) -> PythonArgParser:
        sigs = [FunctionSignature.parse(f, i, allow_numbers_as_tensors) for i, f in enumerate(fmts)]
        return cls(sigs, sigs[0].name)

    @classmethod
    def lazy(cls, fmts: Sequence[str], allow_numbers_as_tensors: bool = False) -> PythonArgParser:
        """A parser whose signatures are parsed when it is first used, as a generated binding's
        `static PythonArgParser parser({...})` is constructed on the binding's first call: the
        ~900 signatures of the generated bindings cost nothing at import."""
        return cls([], fmts[0].split("(")[0], (fmts, allow_numbers_as_tensors))

    def _parse_pending(self) -> None:
        assert self.pending is not None
        fmts, allow_numbers_as_tensors = self.pending
        self.signatures = [
            FunctionSignature.parse(f, i, allow_numbers_as_tensors) for i, f in enumerate(fmts)
        ]
        self.function_name = self.signatures[0].name
        self.pending = None

    @traced("python", "torch::PythonArgParser::parse", SOURCE, legacy="PythonArgParser::parse")
    def parse(self, args: Sequence[Any], kwargs: dict[str, Any] | None) -> PythonArgs:
        kwargs = kwargs or _NO_KWARGS
        key = (
            (*map(type, args), *kwargs, *map(type, kwargs.values()))
            if kwargs
            else tuple(map(type, args))
        )
        plan = self.parsed.get(key)
        if plan is not None:  # the same types as a call before: the same signature, in place
            sig, varargs, tail = plan
            head = [tuple(args)] if varargs else [*args]
            head.extend(map(kwargs.get, tail))  # type: ignore[arg-type]  # None: no keyword
            hit = _new_object(PythonArgs)  # PythonArgs(sig, head): Note [Pointers made in C]
            hit.signature, hit.idx, hit.args = sig, sig.index, head
            return hit
        if self.pending is not None:
            self._parse_pending()
        if len(self.signatures) == 1:
            sig = self.signatures[0]
            match = sig.match(args, kwargs, raise_exception=True)
            assert match.parsed is not None
            if match.by_type:
                self.parsed[key] = plan_of(sig, match.took_varargs, args, kwargs)
            return PythonArgs(sig, match.parsed)
        by_type = True
        for sig in self.signatures:
            if sig.required_kwargs and not sig.required_kwargs <= kwargs.keys():
                continue
            match = sig.match(args, kwargs, raise_exception=False)
            by_type = by_type and match.by_type
            parsed = match.parsed
            if parsed is not None:
                if sig.deprecated:
                    self.warn_deprecated(sig)  # on every call: never remembered
                elif by_type:
                    self.parsed[key] = plan_of(sig, match.took_varargs, args, kwargs)
                return PythonArgs(sig, parsed)
        self.print_error(args, kwargs)
        raise AssertionError("unreachable")

    def warn_deprecated(self, sig: FunctionSignature) -> None:
        """check_deprecated: name the old signature and the ones to use instead."""
        instead = "\n".join(f"\t{self.function_name}{s}" for s in self.signatures if not s.hidden)
        warnings.warn(
            f"This overload of {self.function_name} is deprecated:\n"
            f"\t{self.function_name}{sig}\nConsider using one of the following "
            f"signatures instead:\n{instead}",
            UserWarning,
            stacklevel=4,
        )

    def print_error(self, args: Sequence[Any], kwargs: dict[str, Any]) -> None:
        num_args = len(args) + len(kwargs)
        plausible = [
            s for s in self.signatures if s.min_args <= num_args <= s.max_args and not s.hidden
        ]
        if len(plausible) == 1:
            plausible[0].parse_args(args, kwargs, raise_exception=True)
        options = [str(s) for s in self.signatures if not s.hidden]
        raise TypeError(format_invalid_args(args, kwargs, f"{self.function_name}()", options))
