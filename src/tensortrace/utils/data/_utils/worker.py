"""The loop each DataLoader worker process runs, and get_worker_info() for code inside it.

Mirrors `torch/utils/data/_utils/worker.py`. A worker seeds Python's, tensortrace's and NumPy's
generators from the iterator's base seed and its id (so a worker's random numbers are torch's),
runs worker_init_fn, then answers each (task index, sampler index) from its index queue with
(task index, collated batch) on the one result queue, or with an ExceptionWrapper of what the
dataset raised. The batch travels as shared memory (multiprocessing/reductions.py).

Note [Workers are not traced]
A worker forked while the main process records inherits the recorder; it stops it first thing,
as torch.profiler sees only its own process. The main process's trace shows the batch arrive
(the rebuild of its shared storage), not how a worker made it.
"""

from __future__ import annotations

import os
import queue
import random
from dataclasses import dataclass
from typing import Any

import tensortrace as torch
from tensortrace._utils import ExceptionWrapper
from tensortrace.trace import recorder
from tensortrace.utils.data._utils import HAS_NUMPY, MP_STATUS_CHECK_INTERVAL, signal_handling


class ManagerWatchdog:
    """Whether the process that started this worker still lives (else the worker is orphaned,
    and its parent pid changes)."""

    def __init__(self) -> None:
        self.manager_pid = os.getppid()
        self.manager_dead = False

    def is_alive(self) -> bool:
        if not self.manager_dead:
            self.manager_dead = os.getppid() != self.manager_pid
        return not self.manager_dead


_worker_info: WorkerInfo | None = None


@dataclass(frozen=True, slots=True)
class WorkerInfo:
    """Information about the current DataLoader worker process or thread.

    Attributes:
        id: The current worker id (0 to num_workers - 1)
        num_workers: Total number of workers
        seed: Random seed set for this worker
        dataset: Copy of the dataset object in this worker
        rng: Optional RNG state container (thread workers). Defaults to None.
        worker_method: "multiprocessing" or "thread". Defaults to "multiprocessing".
    """

    id: int
    num_workers: int
    seed: int
    dataset: Any
    rng: Any = None
    worker_method: str | None = "multiprocessing"


def get_worker_info() -> WorkerInfo | None:
    """In a DataLoader worker: its id, num_workers, seed and its copy of the dataset (to shard
    an IterableDataset, or seed other libraries in worker_init_fn). None in the main process."""
    return _worker_info


@dataclass(frozen=True)
class _IterableDatasetStopIteration:
    """What a worker whose IterableDataset ran out sends, instead of a batch."""

    worker_id: int


@dataclass(frozen=True)
class _ResumeIteration:
    """Sent to persistent workers at the start of a new epoch: make the fetcher again."""

    seed: int | None = None


def _generate_state(base_seed: int, worker_id: int) -> list[int]:
    """Four 32-bit words to seed NumPy with, from the base seed and the worker id: torch's port
    of numpy.random.SeedSequence's hashing (MIT licensed, (c) 2015 Melissa E. O'Neill, (c) 2019
    NumPy Developers), so NumPy's and Python's generators differ even from one seed."""
    INIT_A, MULT_A = 0x43B0D7E5, 0x931E8875
    INIT_B, MULT_B = 0x8B51F9DD, 0x58F38DED
    MIX_MULT_L, MIX_MULT_R = 0xCA01F9DD, 0x4973F715
    XSHIFT = 4 * 8 // 2
    MASK32 = 0xFFFFFFFF

    entropy = [worker_id, base_seed & MASK32, base_seed >> 32, 0]
    pool = [0] * 4
    hash_const_A = INIT_A

    def hash(value: int) -> int:
        nonlocal hash_const_A
        value = (value ^ hash_const_A) & MASK32
        hash_const_A = (hash_const_A * MULT_A) & MASK32
        value = (value * hash_const_A) & MASK32
        return (value ^ (value >> XSHIFT)) & MASK32

    def mix(x: int, y: int) -> int:
        result = ((MIX_MULT_L * x) & MASK32) - ((MIX_MULT_R * y) & MASK32)
        result &= MASK32
        return (result ^ (result >> XSHIFT)) & MASK32

    for i in range(len(pool)):  # the entropy into the pool
        pool[i] = hash(entropy[i])
    for i_src in range(len(pool)):  # every bit of it into every word
        for i_dst in range(len(pool)):
            if i_src != i_dst:
                pool[i_dst] = mix(pool[i_dst], hash(pool[i_src]))
    hash_const_B = INIT_B
    state = []
    for i_dst in range(4):
        data_val = pool[i_dst]
        data_val = (data_val ^ hash_const_B) & MASK32
        hash_const_B = (hash_const_B * MULT_B) & MASK32
        data_val = (data_val * hash_const_B) & MASK32
        state.append((data_val ^ (data_val >> XSHIFT)) & MASK32)
    return state


def _worker_loop(
    dataset_kind: int,
    dataset: Any,
    index_queue: Any,
    data_queue: Any,
    done_event: Any,
    auto_collation: bool,
    collate_fn: Any,
    drop_last: bool,
    base_seed: int,
    init_fn: Any,
    worker_id: int,
    num_workers: int,
    persistent_workers: bool,
    shared_seed: int | None,
) -> None:
    # See NOTE [ Data Loader Multiprocessing Shutdown Logic ] in torch's dataloader.py
    try:
        if recorder.current is not None:  # Note [Workers are not traced]
            recorder.stop(recorder.current)
        signal_handling._set_worker_signal_handlers()
        torch.multiprocessing._set_thread_name("pt_data_worker")
        torch.set_num_threads(1)
        seed = base_seed + worker_id
        random.seed(seed)
        torch.manual_seed(seed)
        if HAS_NUMPY:
            import numpy as np

            np.random.seed(_generate_state(base_seed, worker_id))

        global _worker_info
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)

        from tensortrace.utils.data.dataloader import _DatasetKind

        init_exception = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = _DatasetKind.create_fetcher(
                dataset_kind, dataset, auto_collation, collate_fn, drop_last
            )
        except Exception:
            init_exception = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")

        # An IterableDataset replica may end before the others: the worker then sends
        # _IterableDatasetStopIteration once, and waits (iteration_end) for the final None.
        iteration_end = False
        watchdog = ManagerWatchdog()
        while watchdog.is_alive():
            try:
                r = index_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                continue
            if isinstance(r, _ResumeIteration):
                data_queue.put((r, None))  # acknowledge the main process
                iteration_end = False
                fetcher = _DatasetKind.create_fetcher(
                    dataset_kind, dataset, auto_collation, collate_fn, drop_last
                )
                continue
            if r is None:  # the final signal
                if not done_event.is_set() and not iteration_end:
                    raise AssertionError(
                        "Received final signal but neither done_event nor iteration_end is set"
                    )
                break
            if done_event.is_set() or iteration_end:
                continue  # skip the work until the final signal comes
            idx, index = r
            data: Any
            if init_exception is not None:
                data = init_exception
                init_exception = None
            else:
                try:
                    data = fetcher.fetch(index)
                except Exception as e:
                    if isinstance(e, StopIteration) and dataset_kind == _DatasetKind.Iterable:
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                    else:
                        data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
            data_queue.put((idx, data))
            del data, idx, index, r  # save memory
    except KeyboardInterrupt:
        pass  # the main process raises KeyboardInterrupt anyway
    if done_event.is_set():
        data_queue.cancel_join_thread()
        data_queue.close()
