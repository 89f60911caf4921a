"""at::parallel_for, parallel_reduce, and the kernels that run through them.

The chunking follows invoke_parallel (one chunk per thread, at most one per GRAIN_SIZE
iterations); the results of a kernel must not depend on the thread count, nor on whether the
chunks ran concurrently (Note [Chunks run concurrently only when it pays]).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tensortrace as torch
from tensortrace.aten import parallel
from tensortrace.aten.tensor_iterator import range_blocks

N = 5 * 19663  # 3 grains and a bit; halves of it cut rows of 5 in two


@pytest.fixture
def threads() -> Iterator[None]:
    saved = torch.get_num_threads()
    yield
    torch.set_num_threads(saved)


def run_every_chunk_on_its_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """However small the chunks, and however busy the machine's cores."""
    monkeypatch.setattr(parallel, "MIN_CONCURRENT_WORK", 0)
    monkeypatch.setattr(parallel, "free_cores", lambda: 64)


@pytest.fixture
def always_concurrent(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run every chunk of a parallel region on its own thread."""
    run_every_chunk_on_its_thread(monkeypatch)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=0, max_size=4), st.data())
def test_range_blocks_cover_the_range_once_in_order(shape: list[int], data: st.DataObject) -> None:
    numel = int(np.prod(shape))
    begin = data.draw(st.integers(0, numel))
    end = data.draw(st.integers(begin, numel))
    linear = np.arange(numel).reshape(shape)
    blocks = range_blocks(shape, begin, end)
    visited = [linear[block].reshape(-1) for block in blocks]
    covered = np.concatenate(visited) if visited else np.array([], dtype=int)
    assert covered.tolist() == list(range(begin, end))
    assert all(linear[block].ndim == len(shape) for block in blocks)


def test_chunks_split_like_invoke_parallel() -> None:
    assert parallel.chunks(0, 100_000, 32768, 2) == [(0, 50_000), (50_000, 100_000)]
    # at most one chunk per grain: 40000 iterations on 4 threads make 2 chunks
    assert parallel.chunks(0, 40_000, 32768, 4) == [(0, 20_000), (20_000, 40_000)]
    assert parallel.chunks(0, 7, 1, 2) == [(0, 4), (4, 7)]
    assert parallel.chunks(10, 11, 0, 8) == [(10, 11)]


@pytest.mark.usefixtures("threads")
@pytest.mark.parametrize("concurrent", [False, True])
def test_parallel_for_gives_each_thread_its_chunk(
    concurrent: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if concurrent:
        run_every_chunk_on_its_thread(monkeypatch)
    torch.set_num_threads(2)
    seen: list[tuple[int, int, int, bool, int]] = []
    second_started = threading.Event()

    def f(begin: int, end: int) -> None:
        seen.append(
            (
                parallel.get_thread_num(),
                begin,
                end,
                parallel.in_parallel_region(),
                threading.get_ident(),
            )
        )
        if parallel.get_thread_num() == 1:
            second_started.set()
        elif concurrent:  # the caller waits for the pool thread, so it does not take chunk 1
            second_started.wait(timeout=10)

    parallel.parallel_for(0, 100, 10, f)
    assert sorted(s[:4] for s in seen) == [(0, 0, 50, True), (1, 50, 100, True)]
    on_caller = {tid: ident == threading.get_ident() for tid, *_, ident in seen}
    assert on_caller == {0: True, 1: not concurrent}
    assert not parallel.in_parallel_region() and parallel.get_thread_num() == 0


@pytest.mark.usefixtures("threads", "always_concurrent")
def test_a_chunk_no_pool_thread_started_runs_on_the_caller() -> None:
    """Note [A chunk no pool thread has started runs on the caller]: same chunk, same tid."""
    torch.set_num_threads(2)
    parallel.parallel_for(0, 100, 10, lambda b, e: None)  # the pool exists
    release = threading.Event()
    blocker = parallel._workers(2).submit(release.wait, 10)  # its only thread is busy
    seen: list[tuple[int, int, int, bool, bool]] = []

    def f(begin: int, end: int) -> None:
        seen.append(
            (
                parallel.get_thread_num(),
                begin,
                end,
                parallel.in_parallel_region(),
                threading.current_thread() is threading.main_thread(),
            )
        )

    try:
        parallel.parallel_for(0, 100, 10, f)
    finally:
        release.set()
        blocker.result()
    assert seen == [(0, 0, 50, True, True), (1, 50, 100, True, True)]
    assert not parallel.in_parallel_region() and parallel.get_thread_num() == 0


@pytest.mark.usefixtures("threads")
@pytest.mark.parametrize(("free", "on_pool_threads"), [(0, []), (-3, []), (1, [1]), (2, [1, 2])])
def test_chunks_go_to_pool_threads_only_for_free_cores(
    free: int, on_pool_threads: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Note [A pool thread is woken only for a free core]: same chunks, same thread numbers."""
    monkeypatch.setattr(parallel, "MIN_CONCURRENT_WORK", 0)
    monkeypatch.setattr(parallel, "free_cores", lambda: free)
    torch.set_num_threads(4)
    started = threading.Barrier(1 + len(on_pool_threads), timeout=10)
    seen: list[tuple[int, int, int, bool]] = []

    def f(begin: int, end: int) -> None:
        tid = parallel.get_thread_num()
        on_caller = threading.current_thread() is threading.main_thread()
        seen.append((tid, begin, end, on_caller))
        if tid == 0 or not on_caller:  # the caller waits until the pool threads have theirs
            started.wait()

    parallel.parallel_for(0, 400, 10, f)
    assert sorted(s[:3] for s in seen) == [(0, 0, 100), (1, 100, 200), (2, 200, 300), (3, 300, 400)]
    assert sorted(tid for tid, *_, on_caller in seen if not on_caller) == on_pool_threads


@pytest.mark.parametrize(("load", "free"), [(0.0, 2), (0.95, 1), (1.89, 1), (1.9, 0), (7.4, -5)])
def test_free_cores_is_the_cores_less_the_load(
    load: float, free: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """gomp_dynamic_max_threads' arithmetic: the load rounded down after adding 0.1."""
    monkeypatch.setattr(parallel, "_CORES", 2)
    monkeypatch.setattr(parallel.os, "getloadavg", lambda: (load, 0.0, 0.0))
    assert parallel.free_cores() == free


@pytest.mark.usefixtures("threads")
def test_parallel_for_stays_serial_below_the_grain_and_when_nested() -> None:
    torch.set_num_threads(2)
    calls: list[tuple[int, int]] = []
    parallel.parallel_for(0, 100, 100, lambda b, e: calls.append((b, e)))
    assert calls == [(0, 100)]

    inner: list[tuple[int, int]] = []
    parallel.parallel_for(
        0, 4, 1, lambda b, e: parallel.parallel_for(0, 10, 1, lambda ib, ie: inner.append((ib, ie)))
    )
    assert inner == [(0, 10), (0, 10)]  # no nested parallelism: each inner loop is one chunk


@pytest.mark.usefixtures("threads", "always_concurrent")
def test_an_exception_in_a_chunk_is_rethrown_after_every_chunk_ran() -> None:
    torch.set_num_threads(2)
    ran: list[int] = []

    def f(begin: int, end: int) -> None:
        ran.append(begin)
        if begin > 0:
            raise ValueError(f"chunk at {begin}")

    with pytest.raises(ValueError, match="chunk at 50"):
        parallel.parallel_for(0, 100, 1, f)
    assert sorted(ran) == [0, 50]


@pytest.mark.usefixtures("threads")
def test_parallel_reduce_folds_the_threads_results() -> None:
    torch.set_num_threads(2)
    values = np.arange(N, dtype=np.int64)
    total = parallel.parallel_reduce(
        0,
        N,
        parallel.GRAIN_SIZE,
        0,
        lambda b, e, ident: ident + int(values[b:e].sum()),
        lambda a, b: a + b,
    )
    assert total == int(values.sum())


@pytest.mark.usefixtures("threads")
def test_set_num_threads_checks_its_argument() -> None:
    for bad, message in [
        (0, "expects a positive integer"),
        (-1, "expects a positive integer"),
        (2.0, "expects an int, but got float"),
        (True, "expects an int, but got bool"),
    ]:
        with pytest.raises(RuntimeError, match=message):
            torch.set_num_threads(bad)
    torch.set_num_threads(3)
    assert torch.get_num_threads() == 3


@pytest.mark.parametrize(
    ("omp", "mkl", "expected"),
    [
        ("3", None, 3),
        ("3", "5", 5),
        (None, "4", 4),
        ("0", None, None),
        ("two", None, None),
        ("3", "-1", 3),
    ],
)
def test_default_thread_count_follows_the_environment(
    monkeypatch: pytest.MonkeyPatch, omp: str | None, mkl: str | None, expected: int | None
) -> None:
    """intraop_default_num_threads: MKL_NUM_THREADS over OMP_NUM_THREADS; bad values warn."""
    for name, value in (("OMP_NUM_THREADS", omp), ("MKL_NUM_THREADS", mkl)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    bad = [v for v in (omp, mkl) if v is not None and not (v.isdigit() and int(v) > 0)]
    if bad:
        with pytest.warns(UserWarning, match=f"variable value, .*{bad[0]!r}"):
            nthreads = parallel.intraop_default_num_threads()
    else:
        nthreads = parallel.intraop_default_num_threads()
    if expected is None:  # the fallback: the cores this process may run on
        monkeypatch.delenv("OMP_NUM_THREADS")
        assert nthreads == parallel.intraop_default_num_threads()
    else:
        assert nthreads == expected


PROGRAMS = {
    "add": lambda x, y: x + y,
    "mul_scalar": lambda x, y: x * 3,
    "neg_strided": lambda x, y: -x[::2],
    "eq": lambda x, y: x == y,
    "where": lambda x, y: torch.where(x > 0.5, x, y),
    "clone_t": lambda x, y: x.view(-1, 5).t().contiguous(),
    "sum": lambda x, y: x.sum(),
    "sum_int": lambda x, y: (x * 100).to(torch.int32).sum(),
    "prod_bool": lambda x, y: (x > 0.0001).prod(),
    "sum_dim": lambda x, y: x.view(-1, 5).sum(1),
    "sum_dim0": lambda x, y: x.view(-1, 5).sum(0),
    "mean": lambda x, y: x.mean(),
    "max": lambda x, y: x.max(),
    "min_int": lambda x, y: (x * 1000).to(torch.int64).min(),
    "argmax": lambda x, y: x.argmax(),
    "argmax_dim": lambda x, y: x.view(-1, 5).argmax(1),
    "var_dim": lambda x, y: x.view(-1, 5).var(1),
    "all": lambda x, y: (x >= 0).all(),
    "index": lambda x, y: x[torch.arange(0, N, 2)],
    "masked_fill": lambda x, y: x.masked_fill(x > 0.5, 0.0),
}


@pytest.mark.usefixtures("threads")
@pytest.mark.parametrize("name", sorted(PROGRAMS))
@pytest.mark.parametrize("concurrent", [False, True])
def test_results_do_not_depend_on_the_threads(
    name: str, concurrent: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if concurrent:
        run_every_chunk_on_its_thread(monkeypatch)
    torch.manual_seed(0)
    x = torch.rand(N)
    y = torch.rand(N)
    torch.set_num_threads(1)
    serial = PROGRAMS[name](x, y).numpy().copy()
    torch.set_num_threads(2)
    parallel_result = PROGRAMS[name](x, y).numpy()
    if serial.dtype.kind == "f":
        np.testing.assert_allclose(parallel_result, serial, rtol=1e-5)
    else:
        np.testing.assert_array_equal(parallel_result, serial)


@pytest.mark.usefixtures("threads", "always_concurrent")
def test_a_failing_parallel_op_leaks_nothing() -> None:
    torch.set_num_threads(2)
    x = torch.rand(N)
    start = torch.memory_allocated("cpu")
    with pytest.raises(IndexError, match="out of bounds"):
        x[torch.tensor([0, N])]
    assert torch.memory_allocated("cpu") == start


@pytest.mark.usefixtures("threads")
def test_the_trace_shows_the_parallel_region_only_above_the_grain() -> None:
    torch.set_num_threads(2)
    small, large = torch.rand(100), torch.rand(N)
    with torch.record() as t:
        small + small
    assert "at::internal::invoke_parallel" not in {e.name for e in t.frames()}
    with torch.record() as t:
        large + large
    assert "at::internal::invoke_parallel" in {e.name for e in t.frames()}
