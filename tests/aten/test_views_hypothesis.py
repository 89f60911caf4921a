"""Random chains of views give the same values as the same chain of NumPy views.

Each step (permute, slice with a step, expand, transpose, select, unsqueeze) is applied to a
tensortrace tensor and to a NumPy array over the same values; after every step the shapes, the
values, and the fact that the result still views the original storage must agree.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import tensortrace as torch


@st.composite
def chains(draw: Any) -> tuple[list[int], list[tuple[Any, ...]]]:
    shape = draw(st.lists(st.integers(1, 4), min_size=1, max_size=4))
    steps: list[tuple[Any, ...]] = []
    cur = list(shape)
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(
            st.sampled_from(["permute", "slice", "expand", "transpose", "select", "unsqueeze"])
        )
        ndim = len(cur)
        if kind == "permute" and ndim > 0:
            perm = draw(st.permutations(range(ndim)))
            steps.append(("permute", tuple(perm)))
            cur = [cur[p] for p in perm]
        elif kind == "slice" and ndim > 0:
            d = draw(st.integers(0, ndim - 1))
            start = draw(st.integers(-cur[d] - 1, cur[d] + 1))
            stop = draw(st.integers(-cur[d] - 1, cur[d] + 1))
            step = draw(st.integers(1, 3))
            steps.append(("slice", d, start, stop, step))
            cur[d] = len(range(*slice(start, stop, step).indices(cur[d])))
        elif kind == "expand" and ndim > 0:
            new = [draw(st.integers(1, 3)) if s == 1 else s for s in cur]
            lead = draw(st.lists(st.integers(1, 2), max_size=1))
            steps.append(("expand", tuple(lead + new)))
            cur = lead + new
        elif kind == "transpose" and ndim > 0:
            a, b = draw(st.integers(0, ndim - 1)), draw(st.integers(0, ndim - 1))
            steps.append(("transpose", a, b))
            cur[a], cur[b] = cur[b], cur[a]
        elif kind == "select" and ndim > 0 and all(s > 0 for s in cur):
            d = draw(st.integers(0, ndim - 1))
            i = draw(st.integers(-cur[d], cur[d] - 1))
            steps.append(("select", d, i))
            del cur[d]
        elif kind == "unsqueeze":
            d = draw(st.integers(0, ndim))
            steps.append(("unsqueeze", d))
            cur.insert(d, 1)
    return shape, steps


def apply(t: Any, a: np.ndarray, step: tuple[Any, ...]) -> tuple[Any, np.ndarray]:
    kind = step[0]
    if kind == "permute":
        return t.permute(*step[1]), a.transpose(step[1])
    if kind == "slice":
        _, d, start, stop, s = step
        index = (slice(None),) * d + (slice(start, stop, s),)
        return t[index], a[index]
    if kind == "expand":
        return t.expand(*step[1]), np.broadcast_to(a, step[1])
    if kind == "transpose":
        return t.transpose(step[1], step[2]), np.swapaxes(a, step[1], step[2])
    if kind == "select":
        return t.select(step[1], step[2]), np.take(a, step[2], axis=step[1])
    return t.unsqueeze(step[1]), np.expand_dims(a, step[1])


@settings(max_examples=50, deadline=None)
@given(chains())
def test_view_chain_matches_numpy(case: tuple[list[int], list[tuple[Any, ...]]]) -> None:
    shape, steps = case
    base = torch.rand(*shape)
    t, a = base, base.cdata.numpy_view().copy()
    impl = base.cdata.unsafeGetTensorImpl().storage_.unsafeGetStorageImpl()
    for step in steps:
        t, a = apply(t, a, step)
        assert tuple(t.shape) == a.shape, step
        np.testing.assert_array_equal(t.cdata.numpy_view(), a)
        assert t.cdata.unsafeGetTensorImpl().storage_.unsafeGetStorageImpl() is impl
