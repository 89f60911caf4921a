"""The parse remembered per argument types: what PythonArgParser.parse skips on a repeat call.

Part of `torch/csrc/utils/python_arg_parser.cpp`'s model (python_arg_parser.py), split out:
which parameter checks look at an argument's type alone, and the plan a parse leaves behind.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from tensortrace.csrc.python_arg_parser_types import ParameterType
from tensortrace.csrc.python_variable import TensorBase

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tensortrace.csrc.python_arg_parser import FunctionSignature

# numpy_compatibility_arg_names (python_arg_parser.cpp): a keyword argument may also be spelled
# the NumPy way: x.sum(axis=0, keepdims=True) is x.sum(dim=0, keepdim=True).
NUMPY_COMPATIBILITY_ARG_NAMES: dict[str, tuple[str, ...]] = {
    "dim": ("axis",),
    "keepdim": ("keepdims",),
    "input": ("x", "a", "x1"),
    "other": ("x2",),
}


# Note [The parse remembered per argument types]
# FunctionSignature::parse decides whether a call matches from each argument's type, except
# where it looks at a value: a tensor where a number is allowed (a 0-dim tensor is one), the
# first element of a list, a Python type given as a dtype. When every decision of a parse was by
# type, the same signature matches every later call with the same argument types and keyword
# names, and its arguments land in the same places; so `parse` remembers, per such key, the
# signature and where each parameter is read from (the positional arguments in order, or all of
# them as one int list, then the keywords), and fills the list from them directly. Values are
# still checked where PyTorch checks them, by the PythonArgs accessors (intlist's overflow).
# The key mirrors select_overload's (Note [The overload chosen per argument types]).
# (signature, positional arguments taken as one int list, the keyword of each later parameter)
ParsePlan = tuple["FunctionSignature", bool, tuple["str | None", ...]]
_NO_KWARGS: dict[str, Any] = {}
# parameter types whose check looks at the argument's type alone (DEVICE's int branch excludes
# tensors, so a tensor's value never decides it)
_CHECKED_BY_TYPE = frozenset(
    {
        ParameterType.TENSOR,
        ParameterType.PYOBJECT,
        ParameterType.DEVICE,
        ParameterType.BOOL,
        ParameterType.LAYOUT,
        ParameterType.GENERATOR,
        ParameterType.MEMORY_FORMAT,
        ParameterType.STRING,
        ParameterType.STORAGE,
    }
)

_SCALARTYPE = ParameterType.SCALARTYPE  # read once: Note [Enum members read once]


def decided_by_type(param_type: ParameterType, obj: Any) -> bool:
    """Whether `param.check(obj)` depends on `type(obj)` alone."""
    if param_type in _CHECKED_BY_TYPE:
        return True
    if param_type is _SCALARTYPE:
        # else whether obj *is* int, float, bool or complex: only a type can be one
        return type(obj) is not type
    # numbers and lists: a 0-dim tensor is a number, a list's first element decides
    return not isinstance(obj, (TensorBase, list, tuple))


class Match(NamedTuple):
    """What FunctionSignature.match found: the arguments in the signature's order (None: no
    match), whether the argument types alone decided it (a mismatch too), and whether all
    positional arguments became one int list. Returned, not kept on the shared signature, so
    that two threads parsing at once cannot mix their answers."""

    parsed: list[Any] | None
    by_type: bool
    took_varargs: bool


def plan_of(
    sig: FunctionSignature, took_varargs: bool, args: Sequence[Any], kwargs: dict[str, Any]
) -> ParsePlan:
    """Where each parameter of `sig` was read from by the parse that just matched it."""
    taken = 1 if took_varargs else len(args)
    tail = []
    for param in sig.params[taken:]:  # the keyword it was given as, if any
        names = (param.name, *NUMPY_COMPATIBILITY_ARG_NAMES.get(param.name, ()))
        tail.append(next((n for n in names if n in kwargs), None))
    return sig, took_varargs, tuple(tail)
