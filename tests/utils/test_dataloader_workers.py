"""Multi-process data loading beyond what torch can be compared with: no worker outlives its
iterator (no zombie either), a dead worker is reported, a trace recorded in the main process
shows a worker-loaded batch arrive as a shared-memory mapping (and nothing a worker ran), the
allocator's accounting comes back to where it was, pin_memory's warnings, and the spawn start
method. The conformance of the batches themselves is tests/conformance/test_data_workers.py."""

from __future__ import annotations

import gc
import multiprocessing
import os
import subprocess
import sys
import warnings
from typing import Any

import pytest

import tensortrace as torch
from tensortrace.replay.timeline import Timeline

data = torch.utils.data
SRC = os.path.dirname(os.path.dirname(torch.__file__))


def _reaped(pid: int) -> bool:
    """The process is gone and was waited for: no /proc entry, not even a zombie's."""
    return not os.path.exists(f"/proc/{pid}")


def _pids(it: Any) -> list[int]:
    return [w.pid for w in it._workers]


def _dataset() -> Any:
    return data.TensorDataset(torch.arange(12.0).reshape(6, 2))


def test_workers_end_with_the_pass() -> None:
    it = iter(data.DataLoader(_dataset(), batch_size=2, num_workers=2))
    pids = _pids(it)
    assert len(list(it)) == 3
    assert all(_reaped(pid) for pid in pids)


def test_deleting_an_iterator_mid_pass_shuts_its_workers_down() -> None:
    it = iter(data.DataLoader(_dataset(), batch_size=2, num_workers=2))
    next(it)
    pids = _pids(it)
    for pid in pids:  # torch's name for a worker's thread, as `ps -L` shows it
        with open(f"/proc/{pid}/comm") as comm:
            assert comm.read() == "pt_data_worker\n"
    del it
    assert all(_reaped(pid) for pid in pids)
    assert multiprocessing.active_children() == []


def test_persistent_workers_serve_every_pass_and_go_with_the_loader() -> None:
    loader = data.DataLoader(_dataset(), batch_size=3, num_workers=2, persistent_workers=True)
    first = [b[0].tolist() for b in loader]
    pids = _pids(loader._iterator)
    second = [b[0].tolist() for b in loader]
    assert first == second and _pids(loader._iterator) == pids
    assert all(os.path.exists(f"/proc/{pid}") for pid in pids)  # alive between passes
    del loader
    assert all(_reaped(pid) for pid in pids)


class _Holder:
    """An object that refers to itself: what it holds is freed by the cyclic GC only."""

    def __init__(self, loader: Any) -> None:
        self.me, self.loader = self, loader


def test_an_iterator_in_cyclic_garbage_lets_its_workers_exit() -> None:
    holder = _Holder(data.DataLoader(_dataset(), num_workers=2, persistent_workers=True))
    list(holder.loader)
    workers = list(holder.loader._iterator._workers)
    del holder
    gc.collect()
    # each worker got its final None and exited by itself (terminate() would make this -15):
    # Note [An iterator in cyclic garbage]
    assert [w.exitcode for w in workers] == [0, 0]
    assert all(_reaped(w.pid) for w in workers)


class _Dies(data.Dataset):
    def __len__(self) -> int:
        return 4

    def __getitem__(self, i: int) -> Any:
        if i == 1:
            os._exit(3)  # a crash that leaves no exception to send back
        # a tensor: collated into shared memory by this thread, so the exit cannot come while
        # the queue's feeder thread moves a batch into a new shm object (it would leave its name)
        return torch.tensor(float(i))


def test_a_worker_that_dies_is_reported_and_reaped() -> None:
    it = iter(data.DataLoader(_Dies(), num_workers=1, timeout=5))
    pids = _pids(it)
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid"):
        list(it)
    del it
    assert all(_reaped(pid) for pid in pids)


def test_a_traced_batch_arrives_as_a_mapping_and_nothing_a_worker_ran() -> None:
    it = iter(data.DataLoader(data.TensorDataset(torch.arange(6.0)), batch_size=3, num_workers=1))
    with torch.record() as trace:
        (batch,) = next(it)
    assert batch.tolist() == [0.0, 1.0, 2.0] and batch.is_shared()
    names = {node.name for node in trace.frames()}
    assert "at::MapAllocator::MapAllocator" in names  # the receiver maps the worker's batch
    assert "THPVariable_stack" not in names  # default_collate ran in the worker
    assert "THPVariable_getitem" not in names
    allocs = [e for e in trace.memory_events() if e.args.get("bytes") == 12]
    assert allocs, "the mapping is reported as an allocation of the batch's 12 bytes"
    loaded = torch.Trace.loads(trace.dumps())  # still plain data, and it replays
    timeline = Timeline(loaded)
    for step in range(len(loaded.events)):
        timeline.state_at(step)
    del it


def test_loading_frees_everything_and_leaves_cuda_stats_alone() -> None:
    cpu_before = torch.memory_allocated("cpu")
    cuda_before = torch.cuda.memory_allocated()
    dataset = _dataset()
    batches = list(data.DataLoader(dataset, batch_size=4, num_workers=2))
    assert torch.memory_allocated("cpu") > cpu_before
    assert torch.cuda.memory_allocated() == cuda_before
    del batches, dataset
    gc.collect()
    assert torch.memory_allocated("cpu") == cpu_before
    assert torch.cuda.memory_allocated() == cuda_before


class _Raises(data.Dataset):
    def __len__(self) -> int:
        return 6

    def __getitem__(self, i: int) -> Any:
        if i == 3:
            raise ValueError("no sample 3")
        return torch.full((2,), float(i))


def test_nothing_leaks_after_a_worker_error() -> None:
    before = torch.memory_allocated("cpu")
    it = iter(data.DataLoader(_Raises(), batch_size=2, num_workers=2))
    pids = _pids(it)
    with pytest.raises(ValueError, match="Caught ValueError in DataLoader worker process 1") as e:
        list(it)
    del e, it  # the exception's traceback held the iterator: with it goes the iterator
    assert all(_reaped(pid) for pid in pids)  # at once: Note [Raising without a reference cycle]
    assert torch.memory_allocated("cpu") == before


def test_an_iterator_alive_at_exit_ends_quietly() -> None:
    # its workers are terminated by multiprocessing at exit: no failure to report then
    code = (
        "import tensortrace as torch; data = torch.utils.data\n"
        "it = iter(data.DataLoader(data.TensorDataset(torch.arange(4.)), num_workers=2))\n"
        "print(next(it)[0].tolist())"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONPATH": SRC},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and done.stdout == "[0.0]\n" and done.stderr == "", done.stderr


def test_pin_memory_warns_as_torch_without_an_accelerator(monkeypatch: Any) -> None:
    monkeypatch.setattr(torch.accelerator, "is_available", lambda: False)
    loader = data.DataLoader(_dataset(), batch_size=3, pin_memory=True, pin_memory_device="x")
    with pytest.warns(UserWarning) as record:
        batches = list(loader)
    messages = [str(w.message) for w in record]
    assert (
        "'pin_memory' argument is set as true but no accelerator is found, then device "
        in (messages[1])
    )
    assert messages[0].startswith("pin_memory_device is deprecated")
    assert batches[0][0].tolist() == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]


def test_worker_info_is_none_in_the_main_process() -> None:
    assert data.get_worker_info() is None


def test_spawn_start_method() -> None:
    # spawn starts a fresh interpreter: the dataset and its tensors are pickled to it
    loader = data.DataLoader(
        _dataset(), batch_size=4, num_workers=1, multiprocessing_context="spawn"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        batches = [b[0].tolist() for b in loader]
    assert batches == [[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0]], [[8.0, 9.0], [10.0, 11.0]]]
