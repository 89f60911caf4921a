"""std::nth_element, std::sort and std::partial_sort as libstdc++ writes them.

topk_impl_loop (aten/src/ATen/native/TopKImpl.h) orders (value, index) pairs with these
unstable algorithms; which of several equal values come first, and the order of an unsorted
topk, are whatever they leave behind. To give the same indices as torch, this module follows
libstdc++'s bits/stl_algo.h and bits/stl_heap.h step by step (introselect, introsort with
median-of-three pivots, final insertion sort, heap select), on a Python list.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Less = Callable[[Any, Any], bool]
THRESHOLD = 16  # _S_threshold


def _lg(n: int) -> int:
    return n.bit_length() - 1


def _move_median_to_first(q: list[Any], result: int, a: int, b: int, c: int, comp: Less) -> None:
    if comp(q[a], q[b]):
        if comp(q[b], q[c]):
            q[result], q[b] = q[b], q[result]
        elif comp(q[a], q[c]):
            q[result], q[c] = q[c], q[result]
        else:
            q[result], q[a] = q[a], q[result]
    elif comp(q[a], q[c]):
        q[result], q[a] = q[a], q[result]
    elif comp(q[b], q[c]):
        q[result], q[c] = q[c], q[result]
    else:
        q[result], q[b] = q[b], q[result]


def _unguarded_partition(q: list[Any], first: int, last: int, pivot: int, comp: Less) -> int:
    while True:
        while comp(q[first], q[pivot]):
            first += 1
        last -= 1
        while comp(q[pivot], q[last]):
            last -= 1
        if not first < last:
            return first
        q[first], q[last] = q[last], q[first]
        first += 1


def _unguarded_partition_pivot(q: list[Any], first: int, last: int, comp: Less) -> int:
    mid = first + (last - first) // 2
    _move_median_to_first(q, first, first + 1, mid, last - 1, comp)
    return _unguarded_partition(q, first + 1, last, first, comp)


def _unguarded_linear_insert(q: list[Any], last: int, comp: Less) -> None:
    val = q[last]
    nxt = last - 1
    while comp(val, q[nxt]):
        q[last] = q[nxt]
        last = nxt
        nxt -= 1
    q[last] = val


def _insertion_sort(q: list[Any], first: int, last: int, comp: Less) -> None:
    if first == last:
        return
    for i in range(first + 1, last):
        if comp(q[i], q[first]):
            val = q[i]
            q[first + 1 : i + 1] = q[first:i]
            q[first] = val
        else:
            _unguarded_linear_insert(q, i, comp)


# ---- heaps (bits/stl_heap.h) ---------------------------------------------------------------------
def _push_heap(q: list[Any], first: int, hole: int, top: int, value: Any, comp: Less) -> None:
    parent = (hole - 1) // 2
    while hole > top and comp(q[first + parent], value):
        q[first + hole] = q[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    q[first + hole] = value


def _adjust_heap(q: list[Any], first: int, hole: int, length: int, value: Any, comp: Less) -> None:
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if comp(q[first + child], q[first + child - 1]):
            child -= 1
        q[first + hole] = q[first + child]
        hole = child
    if (length & 1) == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        q[first + hole] = q[first + child - 1]
        hole = child - 1
    _push_heap(q, first, hole, top, value, comp)


def _make_heap(q: list[Any], first: int, last: int, comp: Less) -> None:
    length = last - first
    if length < 2:
        return
    parent = (length - 2) // 2
    while True:
        _adjust_heap(q, first, parent, length, q[first + parent], comp)
        if parent == 0:
            return
        parent -= 1


def _pop_heap(q: list[Any], first: int, last: int, result: int, comp: Less) -> None:
    value = q[result]
    q[result] = q[first]
    _adjust_heap(q, first, 0, last - first, value, comp)


def _heap_select(q: list[Any], first: int, middle: int, last: int, comp: Less) -> None:
    _make_heap(q, first, middle, comp)
    for i in range(middle, last):
        if comp(q[i], q[first]):
            _pop_heap(q, first, middle, i, comp)


def _sort_heap(q: list[Any], first: int, last: int, comp: Less) -> None:
    while last - first > 1:
        last -= 1
        _pop_heap(q, first, last, last, comp)


def partial_sort(q: list[Any], first: int, middle: int, last: int, comp: Less) -> None:
    _heap_select(q, first, middle, last, comp)
    _sort_heap(q, first, middle, comp)


# ---- sort and nth_element ------------------------------------------------------------------------
def _introsort_loop(q: list[Any], first: int, last: int, depth_limit: int, comp: Less) -> None:
    while last - first > THRESHOLD:
        if depth_limit == 0:
            partial_sort(q, first, last, last, comp)
            return
        depth_limit -= 1
        cut = _unguarded_partition_pivot(q, first, last, comp)
        _introsort_loop(q, cut, last, depth_limit, comp)
        last = cut


def sort(q: list[Any], first: int, last: int, comp: Less) -> None:
    if first == last:
        return
    _introsort_loop(q, first, last, _lg(last - first) * 2, comp)
    if last - first > THRESHOLD:
        _insertion_sort(q, first, first + THRESHOLD, comp)
        for i in range(first + THRESHOLD, last):
            _unguarded_linear_insert(q, i, comp)
    else:
        _insertion_sort(q, first, last, comp)


def nth_element(q: list[Any], first: int, nth: int, last: int, comp: Less) -> None:
    if first == last or nth == last:
        return
    depth_limit = _lg(last - first) * 2
    while last - first > 3:
        if depth_limit == 0:
            _heap_select(q, first, nth + 1, last, comp)
            q[first], q[nth] = q[nth], q[first]
            return
        depth_limit -= 1
        cut = _unguarded_partition_pivot(q, first, last, comp)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(q, first, last, comp)
