"""Loading in worker processes: _MultiProcessingDataLoaderIter.

Mirrors `_MultiProcessingDataLoaderIter` of `torch/utils/data/dataloader.py` (without its
pin_memory thread: Note [No pinned memory]). Each worker has an index queue; all send to one
result queue. The iterator keeps prefetch_factor tasks per worker outstanding, handing the
sampler's indices round-robin to the workers that still have data, and yields batches in task
order (or as they come, with in_order=False), keeping early arrivals in _task_info.

Note [Worker shutdown]
The workers go when the pass ends (unless persistent), when the iterator is deleted, or when
the DataLoader is: `_workers_done_event` is set, each worker gets None on its index queue and
is joined (terminated if it does not end within MP_STATUS_CHECK_INTERVAL). They are daemonic,
so they also die with the main process, and each watches its parent's pid in case the main
process is killed. No zombie is left: join reaps each.

Note [An iterator in cyclic garbage]
An iterator is often cyclic garbage (a persistent loader's, one a traceback holds, one in an
object that refers to itself). The cyclic GC runs the weakref callbacks of the garbage before
any __del__, and a multiprocessing Queue's callback stops its feeder thread: the final None put
by __del__ would never reach the workers, and each would be joined for MP_STATUS_CHECK_INTERVAL
and then terminated (torch waits those 5 s per worker). `_live_queues` holds the queues of
every iterator not yet shut down, so they are never in that garbage: __del__ finds them
working, and drops them when the workers are gone.
"""

from __future__ import annotations

import itertools
import queue
import warnings
from typing import Any

import tensortrace.multiprocessing as multiprocessing
from tensortrace._utils import ExceptionWrapper
from tensortrace.utils.data import _utils
from tensortrace.utils.data._dataloader_iter import _BaseDataLoaderIter
from tensortrace.utils.data._utils import signal_handling, worker
from tensortrace.utils.data.dataloader import DataLoader, _DatasetKind

# Note [An iterator in cyclic garbage]: the queues and event of each live iterator, by its id()
_live_queues: dict[int, tuple[Any, ...]] = {}


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        self._prefetch_factor: int = loader.prefetch_factor  # type: ignore[assignment]
        self._in_order = loader.in_order
        if self._num_workers <= 0:
            raise AssertionError(
                "num_workers must be greater than 0 for MultiProcessingDataLoaderIter"
            )
        if self._prefetch_factor <= 0:
            raise AssertionError(
                "prefetch_factor must be greater than 0 for MultiProcessingDataLoaderIter"
            )
        context: Any = loader.multiprocessing_context
        if context is None:
            context = multiprocessing
        self._worker_init_fn = loader.worker_init_fn
        self._worker_result_queue = context.Queue()
        self._worker_pids_set = False
        self._shutdown = False
        self._workers_done_event = context.Event()
        self._index_queues: list[Any] = []
        self._workers: list[Any] = []
        _live_queues[id(self)] = (
            self._worker_result_queue,
            self._workers_done_event,
            self._index_queues,  # filled below
        )
        for i in range(self._num_workers):
            index_queue = context.Queue()
            # the main process must not wait at exit to flush indices no worker will read
            index_queue.cancel_join_thread()
            w = context.Process(
                target=worker._worker_loop,
                args=(
                    self._dataset_kind,
                    self._dataset,
                    index_queue,
                    self._worker_result_queue,
                    self._workers_done_event,
                    self._auto_collation,
                    self._collate_fn,
                    self._drop_last,
                    self._base_seed,
                    self._worker_init_fn,
                    i,
                    self._num_workers,
                    self._persistent_workers,
                    self._shared_seed,
                ),
            )
            w.daemon = True
            # a worker is listed once started, so that shutdown never joins an unstarted one
            from pickle import PicklingError

            try:
                w.start()
            except (TypeError, AttributeError, PicklingError):
                warnings.warn(
                    "Got pickle error when attempting to start a worker Process. This might be "
                    "because the worker Process arguments are not picklable. Python 3.14+ "
                    "changed the multiprocessing start method in non-Mac POSIX platforms to "
                    "'forkserver', which requires the worker Process arguments to be picklable. "
                    "You can also try multiprocessing.set_start_method('fork').",
                    stacklevel=2,
                )
                raise
            self._index_queues.append(index_queue)
            self._workers.append(w)
        self._data_queue = self._worker_result_queue
        signal_handling._set_worker_pids(id(self), tuple(w.pid for w in self._workers))
        signal_handling._set_SIGCHLD_handler()
        self._worker_pids_set = True
        self._reset(loader, first_iter=True)

    def _reset(self, loader: DataLoader, first_iter: bool = False) -> None:
        super()._reset(loader, first_iter)
        self._send_idx = 0  # idx of the next task to be sent to workers
        self._rcvd_idx = 0  # idx of the next task to be returned in __next__
        # tasks in [rcvd_idx, send_idx): idx -> (worker_id,) while outstanding,
        # (worker_id, data) once arrived out of order
        self._task_info: dict[int, tuple[Any, ...]] = {}
        self._tasks_outstanding = 0
        # whether each worker still has data this epoch (False once its IterableDataset ended)
        self._workers_status = [True for _ in range(self._num_workers)]
        self._workers_num_tasks = [0 for _ in range(self._num_workers)]
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:  # persistent workers: make their fetchers again, and wait for it
            for idx in range(self._num_workers):
                self._index_queues[idx].put(worker._ResumeIteration(self._shared_seed))
            resume_iteration_cnt = self._num_workers
            while resume_iteration_cnt > 0:
                return_idx, return_data = self._get_data()
                if isinstance(return_idx, worker._ResumeIteration):
                    if return_data is not None:
                        raise AssertionError(
                            "Expected return_data to be None when resuming iteration"
                        )
                    resume_iteration_cnt -= 1
        for _ in range(self._prefetch_factor * self._num_workers):  # prime the prefetch loop
            self._try_put_index()

    def _try_get_data(self, timeout: float = _utils.MP_STATUS_CHECK_INTERVAL) -> tuple[bool, Any]:
        """(True, data) from the result queue within `timeout`, else (False, None); raises if a
        worker died meanwhile."""
        try:
            data = self._data_queue.get(timeout=timeout)
            return (True, data)
        except Exception as e:
            failed_workers = []
            for worker_id, w in enumerate(self._workers):
                if self._workers_status[worker_id] and not w.is_alive():
                    failed_workers.append(w)
                    self._mark_worker_as_unavailable(worker_id)
            if len(failed_workers) > 0:
                pids_str = ", ".join(str(w.pid) for w in failed_workers)
                raise RuntimeError(
                    f"DataLoader worker (pid(s) {pids_str}) exited unexpectedly"
                ) from e
            if isinstance(e, queue.Empty):
                return (False, None)
            raise

    def _get_data(self) -> Any:
        if self._timeout > 0:
            success, data = self._try_get_data(self._timeout)
            if success:
                return data
            raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
        while True:
            success, data = self._try_get_data()
            if success:
                return data

    def _next_data(self) -> Any:
        while True:
            # skip the tasks of workers whose IterableDataset ended before fulfilling them
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx, None)
                if info:
                    worker_id = info[0]
                    if len(info) == 2 or self._workers_status[worker_id]:
                        break  # has data or is still active
                    del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            if len(self._task_info[self._rcvd_idx]) == 2:  # arrived already
                worker_id, data = self._task_info.pop(self._rcvd_idx)
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)
            if self._shutdown or self._tasks_outstanding <= 0:
                raise AssertionError(
                    "Invalid iterator state: shutdown or no outstanding tasks when fetching "
                    "next data"
                )
            idx, data = self._get_data()
            self._tasks_outstanding -= 1
            if self._dataset_kind == _DatasetKind.Iterable:
                if isinstance(data, worker._IterableDatasetStopIteration):
                    if self._persistent_workers:
                        self._workers_status[data.worker_id] = False
                    else:
                        self._mark_worker_as_unavailable(data.worker_id)
                    self._try_put_index()
                    continue
            if idx != self._rcvd_idx:
                if not self._in_order:
                    worker_id = self._task_info.pop(idx)[0]
                    return self._process_data(data, worker_id)
                self._task_info[idx] += (data,)  # keep it until its turn
            else:
                worker_id = self._task_info.pop(idx)[0]
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)

    def _try_put_index(self) -> None:
        max_tasks = self._prefetch_factor * self._num_workers
        if self._tasks_outstanding >= max_tasks:
            raise AssertionError("Number of outstanding tasks exceeded maximum allowed tasks")
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):  # find the next active worker, if any
            worker_queue_idx = next(self._worker_queue_idx_cycle)
            if self._workers_status[worker_queue_idx]:
                if self._in_order:
                    break
                if self._workers_num_tasks[worker_queue_idx] < max_tasks // sum(
                    self._workers_status
                ):
                    break  # out of order: only to a worker with capacity
        else:
            return  # not found
        self._index_queues[worker_queue_idx].put((self._send_idx, index))
        self._task_info[self._send_idx] = (worker_queue_idx,)
        self._workers_num_tasks[worker_queue_idx] += 1
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _process_data(self, data: Any, worker_idx: int) -> Any:
        self._workers_num_tasks[worker_idx] -= 1
        self._try_put_index()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        return data

    def _mark_worker_as_unavailable(self, worker_id: int, shutdown: bool = False) -> None:
        """Tell a worker whose work is done (or all, at shutdown) to exit: None on its queue.
        It is joined in _shutdown_workers."""
        if not self._workers_status[worker_id] and not self._persistent_workers and not shutdown:
            raise AssertionError("Worker status inconsistent when marking worker as unavailable")
        self._index_queues[worker_id].put(None)
        self._workers_status[worker_id] = False
        if self._workers_done_event.is_set() != shutdown:
            raise AssertionError("_workers_done_event state does not match shutdown flag")

    def _shutdown_workers(self) -> None:
        """Note [Worker shutdown]."""
        if _utils is None or _utils.python_exit_status is True or _utils.python_exit_status is None:
            return  # Python is shutting down
        if self._shutdown:
            return
        self._shutdown = True
        try:
            self._workers_done_event.set()
            for worker_id in range(len(self._workers)):
                if self._persistent_workers or self._workers_status[worker_id]:
                    self._mark_worker_as_unavailable(worker_id, shutdown=True)
            for w in self._workers:
                w.join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)
            for q in self._index_queues:
                q.cancel_join_thread()
                q.close()
        finally:
            _live_queues.pop(id(self), None)
            if self._worker_pids_set:
                signal_handling._remove_worker_pids(id(self))
                self._worker_pids_set = False
            for w in self._workers:
                if w.is_alive():  # did not exit peacefully in time
                    w.terminate()
                    w.join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)

    def __del__(self) -> None:
        if getattr(self, "_workers", None) is not None and hasattr(self, "_shutdown"):
            self._shutdown_workers()
