"""Intra-op parallelism: at::parallel_for, at::parallel_reduce and the thread count.

Mirrors `aten/src/ATen/Parallel.h`, `Parallel-inl.h`, `ParallelOpenMP.h` (invoke_parallel) and
`ParallelCommon.cpp` (the default thread count: OMP_NUM_THREADS, MKL_NUM_THREADS, the cores).
A loop over [begin, end) runs on one thread unless it has more than `grain_size` iterations;
then the range is cut into one chunk per thread (at most one per `grain_size` iterations) and
thread `tid` runs `f(begin + tid * chunk_size, ...)`. The calling thread is thread 0, as the
master thread of an OpenMP team is.

Note [What runs on the worker threads]
A chunk function given to parallel_for must only run NumPy code over arrays that already exist:
no tensor op, no allocation, no trace event. C++ can run tensor code on any thread because c10's
refcounts are atomic; ours are plain Python integers (Note [Python drives the refcounts]), so
all TensorImpl and StorageImpl work stays on the calling thread. PyTorch's kernels keep to the
same rule in practice: inside parallel_for they walk raw pointers, and torch.profiler does not
see the OpenMP workers either. NumPy releases the GIL inside its loops, so the chunks really
run at the same time.

Note [A pool thread is woken only for a free core]
libgomp can size a team by the machine's load (OMP_DYNAMIC: gomp_dynamic_max_threads gives a
region its cores minus the load average, rounded with a 0.1 bias). PyTorch leaves that off and
so does this emulation: the split, each chunk's thread number, the results and the trace are
those of the full team. Only where a chunk runs follows the load: a pool thread woken while
every core is busy waits a whole scheduling round for one (several ms on a shared machine,
against under a ms of work in a 4M-element reduction's chunk), and the caller, done with its
own chunk, sleeps until it finishes and waits another round to run again (with a load of 9 on
2 cores, a 4M float32 sum took a median 9.0 ms that way and 3.1 ms with both chunks on the
caller; `bench/bench_reductions.py --pool` times both ways). So invoke_parallel hands chunks
to pool threads only for the cores the 1-minute load average leaves free (free_cores(); the
busy caller is part of that load), and runs the others itself.
"""

from __future__ import annotations

import os
import threading
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from tensortrace.aten.fp_errors import IGNORE_ALL, NUMPY_ERROR_STATE
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.trace import traced

if TYPE_CHECKING:  # the pool is made on first use: concurrent.futures stays off the import path
    from concurrent.futures import Future, ThreadPoolExecutor

SOURCE = "aten/src/ATen/Parallel-inl.h"

GRAIN_SIZE = 32768  # at::internal::GRAIN_SIZE: below this many iterations a loop stays serial
# the least work (elements) per chunk worth a pool thread (Note [Chunks run concurrently ...])
MIN_CONCURRENT_WORK = 1 << 18

T = TypeVar("T")


def _env_num_threads(var_name: str, default: int) -> int:
    """get_env_num_threads: a positive integer from the environment, else `default`."""
    value = os.environ.get(var_name)
    if value is None:
        return default
    try:
        nthreads = int(value)
    except ValueError:
        nthreads = 0
    if nthreads > 0:
        return nthreads
    warnings.warn(
        f"Invalid {var_name} variable value, expected a positive integer, got {value!r}",
        UserWarning,
        stacklevel=2,
    )
    return default


def _cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def intraop_default_num_threads() -> int:
    """OMP_NUM_THREADS, overridden by MKL_NUM_THREADS; else one per core we may run on."""
    nthreads = _env_num_threads("MKL_NUM_THREADS", _env_num_threads("OMP_NUM_THREADS", 0))
    return nthreads if nthreads != 0 else _cores()


_CORES = _cores()


def free_cores() -> int:
    """Cores the load leaves for more threads (Note [A pool thread is woken only for a free core]).

    gomp_dynamic_max_threads' arithmetic, on the 1-minute load average (libgomp reads the
    15-minute one): the cores minus the load, the load rounded down after adding 0.1. The
    calling thread, busy, is part of the load, so the answer is the room left beside it."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # no load average on this platform: assume it is idle
        return _CORES
    return _CORES - int(load + 0.1)


class _ThreadState(threading.local):
    thread_num = 0  # at::get_thread_num(): 0 outside a parallel region
    in_parallel_region = False


_num_threads = intraop_default_num_threads()
_state = _ThreadState()
_pool: ThreadPoolExecutor | None = None


def get_num_threads() -> int:
    """at::get_num_threads() (torch.get_num_threads)."""
    return _num_threads


def set_num_threads(nthreads: int) -> None:
    """at::set_num_threads(); torch.set_num_threads checks its argument first (csrc/module.py)."""
    global _num_threads, _pool
    TORCH_CHECK(nthreads > 0, "Expected positive number of threads")
    if nthreads != _num_threads and _pool is not None:
        _pool.shutdown(wait=True)
        _pool = None
    _num_threads = nthreads


def get_thread_num() -> int:
    """at::get_thread_num(): this thread's index in the current parallel region."""
    return _state.thread_num


def in_parallel_region() -> bool:
    """at::in_parallel_region(): true inside a chunk of parallel_for (no nested parallelism)."""
    return _state.in_parallel_region


def divup(x: int, y: int) -> int:
    return -(-x // y)


def chunks(begin: int, end: int, grain_size: int, num_threads: int) -> list[tuple[int, int]]:
    """invoke_parallel's split: the [begin, end) of each thread that gets work, by tid."""
    if grain_size > 0:
        num_threads = min(num_threads, divup(end - begin, grain_size))
    chunk_size = divup(end - begin, num_threads)
    return [(b, min(end, b + chunk_size)) for b in range(begin, end, chunk_size)]


def _run_chunk(tid: int, f: Callable[[int, int], None], begin: int, end: int) -> None:
    """One thread's share: ThreadIdGuard and the parallel-region flag, then f(begin, end)."""
    saved = _state.thread_num, _state.in_parallel_region
    _state.thread_num, _state.in_parallel_region = tid, True
    try:
        # with np.errstate(all="ignore"): each thread has its own NumPy error state
        token = NUMPY_ERROR_STATE.set(IGNORE_ALL)  # Note [The error state set directly]
        try:
            f(begin, end)
        finally:
            NUMPY_ERROR_STATE.reset(token)
    finally:
        _state.thread_num, _state.in_parallel_region = saved


def _workers(num_threads: int) -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        from concurrent.futures import ThreadPoolExecutor

        _pool = ThreadPoolExecutor(
            max_workers=num_threads - 1, thread_name_prefix="tensortrace-intraop"
        )
    return _pool


@traced("kernel", "at::internal::invoke_parallel", "aten/src/ATen/ParallelOpenMP.h")
def invoke_parallel(
    begin: int,
    end: int,
    grain_size: int,
    f: Callable[[int, int], None],
    work_per_iteration: int = 1,
) -> None:
    """`#pragma omp parallel`: thread 0 is the caller; threads 1.. come from the pool.

    Every chunk runs to the end before an exception is rethrown (the first one, by tid).
    Note [Chunks run concurrently only when it pays]: waking a pool thread costs ~50-80 us
    here (nanoseconds for an OpenMP team), so chunks smaller than MIN_CONCURRENT_WORK run one
    after another on the calling thread, as do those no core is free for (Note [A pool thread
    is woken only for a free core]). The split, each chunk's thread number, the results and
    the trace are the same either way; only the wall time differs."""
    ranges = chunks(begin, end, grain_size, _num_threads)
    first_begin, first_end = ranges[0]
    pool_chunks = 0  # chunks 1..pool_chunks go to pool threads; the caller runs the rest
    if (first_end - first_begin) * work_per_iteration >= MIN_CONCURRENT_WORK:
        pool_chunks = max(0, min(len(ranges) - 1, free_cores()))
    futures: list[Future[None] | None] = [None] * len(ranges)
    if pool_chunks:
        pool = _workers(_num_threads)
        for tid in range(1, 1 + pool_chunks):
            b, e = ranges[tid]
            futures[tid] = pool.submit(_run_chunk, tid, f, b, e)
    errors: list[BaseException] = []
    for tid, (b, e) in enumerate(ranges):
        # Note [A chunk no pool thread has started runs on the caller]: on a busy machine a
        # pool thread can wait for a core longer than the whole chunk takes; a chunk still
        # queued when the caller is done with its own is taken back (Future.cancel succeeds
        # only before it starts) and run here, under its own thread number, so the split,
        # the results and the trace stay the same.
        future = futures[tid]
        if future is not None and not future.cancel():
            exc = future.exception()  # started: wait for the pool thread to finish it
            if exc is not None:
                errors.append(exc)
            continue
        try:
            _run_chunk(tid, f, b, e)
        except BaseException as error:  # noqa: BLE001 - rethrown below, once the team is done
            errors.append(error)
    if errors:
        raise errors[0]


def parallel_for(
    begin: int,
    end: int,
    grain_size: int,
    f: Callable[[int, int], None],
    work_per_iteration: int = 1,
) -> None:
    """at::parallel_for: f over chunks of [begin, end) on up to get_num_threads() threads.

    `work_per_iteration` (elements per iteration; not in PyTorch) only tells invoke_parallel
    whether waking the pool pays (Note [Chunks run concurrently only when it pays])."""
    if begin >= end:
        return
    numiter = end - begin
    use_parallel = (
        numiter > grain_size and numiter > 1 and not in_parallel_region() and _num_threads > 1
    )
    if not use_parallel:
        _run_serial(f, begin, end)
        return
    invoke_parallel(begin, end, grain_size, f, work_per_iteration)


def _run_serial(f: Callable[[int, int], None], begin: int, end: int) -> None:
    saved = _state.thread_num
    _state.thread_num = 0  # ThreadIdGuard tid_guard(0)
    try:
        f(begin, end)
    finally:
        _state.thread_num = saved


def parallel_reduce(
    begin: int,
    end: int,
    grain_size: int,
    ident: T,
    f: Callable[[int, int, T], T],
    sf: Callable[[T, T], T],
) -> T:
    """at::parallel_reduce: f(chunk_begin, chunk_end, ident) per thread, folded with sf."""
    if begin >= end:
        return ident
    use_parallel = end - begin > grain_size and not in_parallel_region() and _num_threads > 1
    if not use_parallel:
        return f(begin, end, ident)
    results = [ident] * _num_threads

    def chunk(my_begin: int, my_end: int) -> None:
        results[get_thread_num()] = f(my_begin, my_end, ident)

    invoke_parallel(begin, end, grain_size, chunk)
    result = ident
    for partial in results:
        result = sf(result, partial)
    return result
