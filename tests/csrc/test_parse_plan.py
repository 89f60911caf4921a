"""The parse remembered per argument types (python_arg_parser_plan.py): a repeat call with the
same types takes the remembered signature, and a parse that looked at values is never remembered.
Each program runs twice, so its second run takes whatever the first left behind, and is compared
with torch 2.13 where it is installed."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import tensortrace

try:
    import torch
except ImportError:  # the programs still run; only the comparison with torch is skipped
    torch = None


def outcome(program: Callable[[Any], Any], lib: Any) -> Any:
    """What `program(lib)` gives, as plain data: its values, or its error's type and text."""
    try:
        result = program(lib)
    except Exception as exc:  # noqa: BLE001 - the error is the outcome compared
        # torch continues an unpacking error with its C++ backtrace after the quote
        return type(exc).__name__, str(exc).split("\n")[0].rstrip('"')
    if isinstance(result, tuple):
        return tuple(r.tolist() if hasattr(r, "tolist") else r for r in result)
    return result.tolist()


PROGRAMS: dict[str, Callable[[Any], Any]] = {
    # a 0-dim tensor is a number where a Scalar is expected, a 1-dim one is not: the types are
    # the same (Tensor), the values decide, so the first parse must not be reused for the second
    "scalar_then_vector": lambda t: (
        t.arange(t.tensor(3)),
        t.arange(t.tensor([3, 4])),
    ),
    "integer_tensor_as_int": lambda t: (
        t.ones(4).view(t.tensor(2), 2),
        t.ones(4).view(t.tensor(2.0), 2),
    ),
    # rand(3, 4): both ints become the size; then a float in their place is an error
    "varargs_size": lambda t: (t.zeros(3, 4).shape, t.zeros(3, 4.0)),
    # the values are still checked on a remembered parse: an int beyond int64 in a size
    "size_overflow": lambda t: (t.zeros(2, 3).shape, t.zeros(2, 1 << 63)),
    "size_tuple_overflow": lambda t: (t.zeros((2, 3)).shape, t.zeros((-(1 << 63) - 1, 2))),
    "size_tuple_then_bad": lambda t: (t.zeros((2, 3)).shape, t.zeros((2, "3"))),
    # NumPy's keyword names read into the parameter they stand for, each call its own values
    "numpy_names": lambda t: (
        t.arange(6.0).reshape(2, 3).sum(axis=0),
        t.arange(6.0).reshape(2, 3).sum(axis=1, keepdims=True),
        t.arange(6.0).reshape(2, 3).sum(dim=1),
    ),
    "keywords_in_any_order": lambda t: (
        t.full((2,), 3.0, dtype=t.float64),
        t.full(fill_value=4, size=(1,)),
        t.full((2,), 5, dtype=None),
    ),
    "none_where_not_allowed": lambda t: (t.ones(2).add(t.ones(2)), t.ones(2).add(None)),
    "dtype_as_python_type": lambda t: (
        t.ones(2, dtype=float),
        t.ones(2, dtype=int),
        t.ones(2, dtype=str),
    ),
    # view(16) is remembered (an int is never a dtype); a NumPy dtype equals int but is no
    # Python scalar type, so view(dtype) refuses it after the remembered view(16) too
    "int_where_a_dtype_is_allowed": lambda t: (
        t.ones(16).view(16),
        t.ones(16).view(t.int32),
        t.ones(16).view(np.dtype("int32")),
    ),
    "missing_then_given": lambda t: (t.ones(2).clamp(), t.ones(2).clamp(0)),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_second_run_matches_first(name: str) -> None:
    program = PROGRAMS[name]
    first = outcome(program, tensortrace)
    assert outcome(program, tensortrace) == first
    if torch is not None:
        assert first == outcome(program, torch)


def test_a_parse_of_values_is_not_remembered() -> None:
    from tensortrace.csrc.generated.python_torch_functions_0 import parser_arange

    tensortrace.arange(tensortrace.tensor(3))  # a 0-dim tensor as `end`: its value decided
    assert (tensortrace.Tensor,) not in parser_arange.parsed
    tensortrace.arange(3)
    assert (int,) in parser_arange.parsed


def test_a_deprecated_signature_warns_on_every_call() -> None:
    x, y = tensortrace.ones(2), tensortrace.ones(2)
    for _ in range(2):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            x.add(2, y)
        assert any("deprecated" in str(w.message) for w in seen)


def test_a_parse_is_remembered_past_a_signature_that_did_not_match() -> None:
    from tensortrace.csrc.generated.python_variable_methods import parser_sum

    # sum(*, dtype) takes no positional argument: decided by the count, so sum(dim) that
    # matches next is remembered
    tensortrace.ones(2, 3).sum(0)
    assert (int,) in parser_sum.parsed


def test_an_int_where_a_dtype_is_allowed_is_decided_by_type() -> None:
    from tensortrace.csrc.generated.python_variable_methods import parser_view

    tensortrace.ones(4).view(4)  # view(dtype) is tried and refused by type: int is no dtype
    assert (int,) in parser_view.parsed
