"""Elementwise ops against a NumPy oracle, on random shapes, dtypes and non-contiguous layouts.

Each operand is a view made with as_strided over a flat buffer: contiguous, permuted, sliced
with steps, or expanded (stride 0), so TensorIterator's broadcasting, dimension reordering and
coalescing all run. The oracle computes the same op with NumPy in the dtype torch promotes to.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import tensortrace as torch
from tensortrace.c10.scalar_type import ScalarType, numpy_dtype

DTYPES = [
    torch.bool,
    torch.uint8,
    torch.int8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.float16,
    torch.bfloat16,
    torch.float32,
    torch.float64,
]
INTS = {torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64}
FLOATS = [torch.float16, torch.bfloat16, torch.float32, torch.float64]


def expected_dtype(a: Any, b: Any) -> Any:
    """torch.promote_types, restated as the categories it encodes (bool < int < float)."""
    if a == b:
        return a
    if a == torch.bool:
        return b
    if b == torch.bool:
        return a
    if a in FLOATS and b in FLOATS:
        if {a, b} == {torch.float16, torch.bfloat16}:
            return torch.float32
        return a if FLOATS.index(a) > FLOATS.index(b) else b
    if a in FLOATS or b in FLOATS:
        return a if a in FLOATS else b
    promoted = np.promote_types(numpy_dtype(a.scalar_type), numpy_dtype(b.scalar_type))
    return next(d for d in INTS if numpy_dtype(d.scalar_type) == promoted)


@st.composite
def layouts(draw: Any, shape: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """(strides, storage_offset, buffer size) of a view of `shape` in one of four layouts."""
    kind = draw(st.sampled_from(["contiguous", "permuted", "stepped", "expanded"]))
    ndim = len(shape)
    order = list(range(ndim))
    if kind == "permuted":
        order = draw(st.permutations(order))
    step = 2 if kind == "stepped" else 1
    strides = [0] * ndim
    running = step
    for d in reversed(order):  # the last dim of `order` moves fastest
        strides[d] = running
        running *= max(shape[d], 1)
    if kind == "expanded" and ndim:
        strides[draw(st.integers(0, ndim - 1))] = 0
    offset = draw(st.integers(0, 2))
    size = offset + sum((s - 1) * st_ for s, st_ in zip(shape, strides)) + 1
    return tuple(strides), offset, size


def values(draw: Any, dtype: Any, n: int) -> np.ndarray:
    if dtype == torch.bool:
        return np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=np.bool_)
    if dtype in INTS:
        lo = 0 if dtype == torch.uint8 else -60
        return np.array(draw(st.lists(st.integers(lo, 60), min_size=n, max_size=n)))
    return np.array(draw(st.lists(st.floats(-3, 3, width=16), min_size=n, max_size=n)))


@st.composite
def operands(draw: Any, shape: tuple[int, ...], dtype: Any) -> tuple[Any, np.ndarray]:
    """A tensortrace view and the NumPy array with the same elements."""
    strides, offset, size = draw(layouts(shape))
    np_dtype = numpy_dtype(dtype.scalar_type)
    flat = values(draw, dtype, size).astype(np_dtype)
    buffer = torch.empty(size, dtype=dtype)
    buffer.cdata.numpy_view()[...] = flat
    view = buffer.as_strided(shape, strides, offset)
    itemsize = np_dtype.itemsize
    expected = np.lib.stride_tricks.as_strided(
        flat[offset:], shape, tuple(s * itemsize for s in strides)
    )
    return view, expected.copy()


shapes = st.lists(st.integers(1, 4), min_size=0, max_size=3).map(tuple)


def as_numpy(t: Any) -> np.ndarray:
    arr = np.asarray(t.cdata.numpy_view())
    return arr.astype(np.float64) if arr.dtype.kind == "V" or arr.dtype.name == "bfloat16" else arr


def check_close(result: Any, expected: np.ndarray, dtype: Any) -> None:
    assert result.dtype == dtype
    assert tuple(result.shape) == expected.shape
    got = as_numpy(result)
    if dtype in FLOATS:
        rtol = {torch.float16: 1e-3, torch.bfloat16: 8e-3}.get(dtype, 1e-6)
        np.testing.assert_allclose(got, expected.astype(np.float64), rtol=rtol, atol=rtol)
    else:
        np.testing.assert_array_equal(got, expected)


BINARY = {
    "add": (lambda a, b: a + b, np.add),
    "sub": (lambda a, b: a - b, np.subtract),
    "mul": (lambda a, b: a * b, np.multiply),
    "maximum": (torch.maximum, np.maximum),
    "minimum": (torch.minimum, np.minimum),
}


@settings(max_examples=50, deadline=None)
@given(
    data=st.data(),
    shape=shapes,
    op=st.sampled_from(sorted(BINARY)),
    dtypes=st.tuples(st.sampled_from(DTYPES), st.sampled_from(DTYPES)),
)
def test_binary_ops_match_numpy(
    data: Any, shape: tuple[int, ...], op: str, dtypes: tuple[Any, Any]
) -> None:
    da, db = dtypes
    if op == "sub" and torch.bool in dtypes:
        da = db = torch.int16  # bool subtraction is an error (tested in conformance)
    if op in ("add", "sub", "mul") and da == db == torch.bool:
        da = db = torch.int8
    # broadcast: the second operand may drop leading dims or have size-1 dims
    # (a 0-dim second operand would follow the category rule of result_type, which
    # promote_types does not model; the conformance tests cover that case against torch)
    b_shape = data.draw(
        st.sampled_from([shape, shape[1:] if len(shape) > 1 else shape, tuple(1 for _ in shape)])
    )
    a, a_np = data.draw(operands(shape, da))
    b, b_np = data.draw(operands(b_shape, db))
    dtype = expected_dtype(da, db)
    fn, np_fn = BINARY[op]
    result = fn(a, b)
    compute = numpy_dtype(dtype.scalar_type)
    if dtype in FLOATS:
        compute = np.dtype(np.float64)  # the oracle rounds once, at the end
    with np.errstate(all="ignore"):
        expected = np_fn(a_np.astype(compute), b_np.astype(compute))
    check_close(result, expected, dtype)


@settings(max_examples=50, deadline=None)
@given(
    data=st.data(),
    shape=shapes,
    dtype=st.sampled_from(DTYPES),
    op=st.sampled_from(["eq", "lt", "ge"]),
)
def test_comparisons_match_numpy(data: Any, shape: tuple[int, ...], dtype: Any, op: str) -> None:
    a, a_np = data.draw(operands(shape, dtype))
    b, b_np = data.draw(operands(shape, dtype))
    result = getattr(a, op)(b)
    np_fn = {"eq": np.equal, "lt": np.less, "ge": np.greater_equal}[op]
    check_close(result, np_fn(a_np, b_np), torch.bool)


@settings(max_examples=50, deadline=None)
@given(
    data=st.data(),
    shape=shapes,
    dtype=st.sampled_from(DTYPES),
    op=st.sampled_from(["neg", "abs", "exp", "sqrt", "sigmoid", "relu"]),
)
def test_unary_ops_match_numpy(data: Any, shape: tuple[int, ...], dtype: Any, op: str) -> None:
    if dtype == torch.bool and op in ("neg", "abs", "relu"):
        dtype = torch.int32  # errors for bool are covered by the conformance tests
    a, a_np = data.draw(operands(shape, dtype))
    float_op = op in ("exp", "sqrt", "sigmoid")
    out_dtype = torch.float32 if float_op and dtype not in FLOATS else dtype
    compute = np.float64 if (float_op or dtype in FLOATS) else numpy_dtype(dtype.scalar_type)
    x = a_np.astype(compute)
    with np.errstate(all="ignore"):
        expected = {
            "neg": np.negative,
            "abs": np.abs,
            "exp": np.exp,
            "sqrt": np.sqrt,
            "sigmoid": lambda v: 1 / (1 + np.exp(-v)),
            "relu": lambda v: np.maximum(v, 0),
        }[op](x)
    check_close(getattr(a, op)(), expected, out_dtype)


@settings(max_examples=50, deadline=None)
@given(data=st.data(), shape=shapes, dtype=st.sampled_from(DTYPES))
def test_where_and_masked_fill_match_numpy(data: Any, shape: tuple[int, ...], dtype: Any) -> None:
    cond, cond_np = data.draw(operands(shape, torch.bool))
    a, a_np = data.draw(operands(shape, dtype))
    b, b_np = data.draw(operands(shape, dtype))
    check_close(torch.where(cond, a, b), np.where(cond_np, a_np, b_np), dtype)
    filled = a.masked_fill(cond, 1)
    check_close(filled, np.where(cond_np, np.ones_like(a_np), a_np), dtype)


def test_scalar_type_names_cover_every_dtype() -> None:
    assert {d.scalar_type for d in DTYPES} <= set(ScalarType)
