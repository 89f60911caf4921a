"""Reductions on random shapes, dims, keepdim and non-contiguous layouts, against NumPy.

Inputs are made non-contiguous with as_strided over a larger buffer (transposed or strided
views), so the TensorIterator reduction sees permuted, gapped and broadcast-free layouts.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import tensortrace as torch


@st.composite
def layouts(draw: Any) -> tuple[Any, np.ndarray]:
    """A tensor (possibly a permuted / strided view) and the NumPy array of its values."""
    ndim = draw(st.integers(0, 4))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=ndim, max_size=ndim)))
    steps = [draw(st.integers(1, 2)) for _ in shape]
    order = draw(st.permutations(list(range(ndim))))
    # a contiguous buffer big enough for the strided view; strides follow `order`
    strides = [0] * ndim
    running = 1
    for d in reversed(order):
        strides[d] = running * steps[d]
        running *= shape[d] * steps[d]
    base = torch.rand(max(running, 1))
    dtype = draw(st.sampled_from([torch.float32, torch.float64, torch.int64]))
    if dtype == torch.int64:
        base = (base * 20 - 10).to(torch.int64)
    elif dtype == torch.float64:
        base = base.to(torch.float64)
    t = base.as_strided(shape, strides)
    return t, t.cdata.numpy_view().copy()


def _dims(draw: Any, ndim: int) -> list[int]:
    if ndim == 0:
        return []
    dims = draw(st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim))
    # negative spellings of the same dims must wrap
    return [d - ndim if draw(st.booleans()) else d for d in dims]


def _values(t: Any) -> np.ndarray:
    return t.cdata.numpy_view()


@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_sum_mean_prod(data: Any) -> None:
    t, a = data.draw(layouts())
    dims = _dims(data.draw, t.dim())
    keepdim = data.draw(st.booleans())
    axis = tuple(dims) if dims else None
    s = t.sum(dims, keepdim=keepdim)
    expected_dtype = np.int64 if a.dtype == np.int64 else a.dtype
    want = np.sum(a, axis=axis, keepdims=keepdim, dtype=expected_dtype)
    assert s.shape == want.shape and _values(s).dtype == expected_dtype
    np.testing.assert_allclose(_values(s), want, rtol=1e-5, atol=1e-5)
    if a.dtype != np.int64:
        m = t.mean(dims, keepdim=keepdim)
        np.testing.assert_allclose(
            _values(m), np.mean(a, axis=axis, keepdims=keepdim), rtol=1e-5, atol=1e-6
        )
    if t.dim() > 0:
        dim = data.draw(st.integers(-t.dim(), t.dim() - 1))
        p = t.prod(dim, keepdim=keepdim)
        np.testing.assert_allclose(
            _values(p), np.prod(a, axis=dim, keepdims=keepdim, dtype=expected_dtype), rtol=1e-5
        )


@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_max_min_argmax(data: Any) -> None:
    t, a = data.draw(layouts())
    assert _values(t.max()).item() == a.max() and _values(t.min()).item() == a.min()
    assert _values(t.argmax()).item() == int(np.argmax(a))
    if t.dim() == 0:
        return
    dim = data.draw(st.integers(-t.dim(), t.dim() - 1))
    keepdim = data.draw(st.booleans())
    values, indices = t.max(dim, keepdim=keepdim)
    np.testing.assert_array_equal(_values(values), np.max(a, axis=dim, keepdims=keepdim))
    np.testing.assert_array_equal(_values(indices), np.argmax(a, axis=dim, keepdims=keepdim))
    values, indices = t.min(dim, keepdim)
    np.testing.assert_array_equal(_values(values), np.min(a, axis=dim, keepdims=keepdim))
    np.testing.assert_array_equal(_values(indices), np.argmin(a, axis=dim, keepdims=keepdim))
    np.testing.assert_array_equal(
        _values(t.argmin(dim, keepdim)), np.argmin(a, axis=dim, keepdims=keepdim)
    )


@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_var_std_cumsum_all_any(data: Any) -> None:
    t, a = data.draw(layouts())
    dims = _dims(data.draw, t.dim())
    keepdim = data.draw(st.booleans())
    axis = tuple(dims) if dims else None
    if a.dtype != np.int64:
        correction = data.draw(st.sampled_from([0, 1]))
        n = a.size if axis is None else int(np.prod([a.shape[d] for d in axis]))
        if n - correction > 0:
            v = t.var(dims, correction=correction, keepdim=keepdim)
            np.testing.assert_allclose(
                _values(v),
                np.var(a.astype(np.float64), axis=axis, ddof=correction, keepdims=keepdim),
                rtol=1e-5,
                atol=1e-7,
            )
            sd = t.std(dims, correction=correction, keepdim=keepdim)
            np.testing.assert_allclose(
                _values(sd),
                np.std(a.astype(np.float64), axis=axis, ddof=correction, keepdims=keepdim),
                rtol=1e-5,
                atol=1e-7,
            )
    if t.dim() > 0:
        dim = data.draw(st.integers(-t.dim(), t.dim() - 1))
        c = t.cumsum(dim)
        np.testing.assert_allclose(_values(c), np.cumsum(a, axis=dim), rtol=1e-5, atol=1e-6)
    b = t > 0.5 if a.dtype != np.int64 else t > 0
    ab = a > 0.5 if a.dtype != np.int64 else a > 0
    # all/any take dim=[] literally (allow_empty_dims): nothing is reduced, unlike sum([])
    np.testing.assert_array_equal(
        _values(b.all(dims, keepdim=keepdim)),
        np.all(ab, axis=axis, keepdims=keepdim) if dims else ab,
    )
    np.testing.assert_array_equal(
        _values(b.any(dims, keepdim=keepdim)),
        np.any(ab, axis=axis, keepdims=keepdim) if dims else ab,
    )


@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_matmul_ranks(data: Any) -> None:
    """Every rank pair 1..4, with broadcast batch dims, against np.matmul."""
    n, k, m = (data.draw(st.integers(1, 4)) for _ in range(3))
    rank1, rank2 = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    batch = data.draw(st.lists(st.integers(1, 3), min_size=2, max_size=2))
    shape1 = [k] if rank1 == 1 else [*(batch[-(rank1 - 2) :] if rank1 > 2 else []), n, k]
    shape2 = [k] if rank2 == 1 else [*(batch[-(rank2 - 2) :] if rank2 > 2 else []), k, m]
    if rank2 > 2 and data.draw(st.booleans()):
        shape2[0] = 1  # a size-1 batch dim broadcasts
    x, y = torch.rand(shape1), torch.rand(shape2)
    r = x @ y
    want = np.matmul(_values(x), _values(y))
    assert tuple(r.shape) == want.shape
    np.testing.assert_allclose(_values(r), want, rtol=1e-5, atol=1e-6)
