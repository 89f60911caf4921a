"""Conformance of multi-process data loading and torch.multiprocessing against torch 2.13.

A seeded, shuffled DataLoader with num_workers=2 yields torch's batches in torch's order, each
worker draws torch's random numbers (seeded from the same base seed) and sees torch's
get_worker_info(); an IterableDataset sharded by worker id, persistent workers, prefetch_factor
and in_order match; a tensor sent through a torch.multiprocessing queue arrives as a view of the
same shared memory; and the errors match: argument checks, a worker's exception re-raised in the
main process with its traceback, a timeout. Worker processes are forked (Linux's default), so the
programs' own classes need no pickling; datasets are tiny so that the programs stay fast.
"""

from __future__ import annotations

import pytest

from .harness import check, run

torch = pytest.importorskip("torch")

PRE = (
    "data = torch.utils.data\n"
    "mp = torch.multiprocessing\n"
    "X = torch.arange(20.).reshape(10, 2); Y = torch.arange(10)\n"
    "ds = data.TensorDataset(X, Y)\n"
    "class Seen(data.Dataset):\n"  # what each worker is, and what its generator draws
    "    offset = 0\n"
    "    def __len__(self): return 8\n"
    "    def __getitem__(self, i):\n"
    "        info = data.get_worker_info()\n"
    "        return (i + self.offset, info.id, info.num_workers, info.seed,\n"
    "                torch.randint(0, 1000, (2,)), float(np.random.rand()))\n"
    "def init_fn(worker_id):\n"
    "    data.get_worker_info().dataset.offset = 100 * (worker_id + 1)\n"
    "class Shard(data.IterableDataset):\n"  # torch's example: each worker takes its part
    "    def __init__(self, n): self.n = n\n"
    "    def __iter__(self):\n"
    "        info = data.get_worker_info()\n"
    "        return iter(range(info.id, self.n, info.num_workers))\n"
    # a raised error's traceback holds the iterator, and torch's ExceptionWrapper.reraise makes
    # it cyclic garbage: collected with its queues, its workers never get their final None and
    # each is joined for 5 s (Note [Raising without a reference cycle], which tensortrace
    # avoids). Raising without the traceback lets torch's iterator go at once too.
    "def consume(dl):\n"
    "    try:\n"
    "        return list(dl)\n"
    "    except Exception as e:\n"
    "        error = e.with_traceback(None)\n"
    "    raise error\n"
)

PROGRAMS = {
    "shuffled_with_worker_init_fn": "torch.manual_seed(3)\n"
    "dl = data.DataLoader(Seen(), batch_size=3, shuffle=True, num_workers=2, "
    "worker_init_fn=init_fn)\n"
    "out = (list(dl), torch.rand(2), data.get_worker_info())",
    "shuffled_tensor_dataset_two_epochs": "g = torch.Generator().manual_seed(5)\n"
    "dl = data.DataLoader(ds, batch_size=4, shuffle=True, num_workers=2, generator=g)\n"
    "out = (list(dl), list(dl), torch.rand(1))",
    "iterable_sharded_by_worker": "out = (list(data.DataLoader(Shard(7), batch_size=2, "
    "num_workers=2)), list(data.DataLoader(Shard(7), batch_size=2, num_workers=2, "
    "drop_last=True)), list(data.DataLoader(Shard(5), batch_size=None, num_workers=2)))",
    "iterable_uneven_shards": "out = list(data.DataLoader(Shard(3), batch_size=2, "
    "num_workers=3, prefetch_factor=1))",
    "persistent_workers": "dl = data.DataLoader(Seen(), batch_size=4, num_workers=2, "
    "persistent_workers=True, worker_init_fn=init_fn)\n"
    "first = list(dl); it = iter(dl); second = list(it)\n"
    "out = (first, second, dl._iterator is it, len(dl))\n"
    "del dl, it",  # not left to the cyclic GC: the namespace's functions make it a cycle
    "prefetch_factor_and_out_of_order": "dl = data.DataLoader(ds, batch_size=3, num_workers=2, "
    "prefetch_factor=1, in_order=False)\n"
    "out = (sorted(b[1].tolist() for b in dl), dl.prefetch_factor, "
    "data.DataLoader(ds, num_workers=1).prefetch_factor)",
    "batches_are_in_shared_memory": "b = next(iter(data.DataLoader(ds, batch_size=5, "
    "num_workers=1)))\n"
    "out = (b, [t.is_shared() for t in b], X.is_shared())",
    "sharing_strategies": "out = (mp.get_all_sharing_strategies(), mp.get_sharing_strategy(), "
    "mp.Queue is not None, 'get_context' in mp.__all__)",
    "queue_sends_a_view_of_shared_memory": "q = mp.Queue()\n"
    "a = torch.arange(12.).reshape(3, 4); v = a[1:, ::2]\n"
    "q.put(v); w = q.get(timeout=10); w[0, 0] = -1.0\n"
    "out = (w, a, a.is_shared(), w.is_shared(), w.storage_offset(), w.stride())",
    "queue_file_system_strategy": "mp.set_sharing_strategy('file_system')\n"
    "try:\n"
    "    q = mp.Queue(); a = torch.arange(6); q.put(a[2:]); w = q.get(timeout=10)\n"
    "    w.mul_(10); out = (a, w, mp.get_sharing_strategy())\n"
    "finally:\n"
    "    mp.set_sharing_strategy('file_descriptor')",
    "share_memory_keeps_values_and_views": "a = torch.arange(6.); v = a[2:]\n"
    "r = a.share_memory_()\n"
    "s = torch.UntypedStorage._new_shared(8)\n"
    "out = (r is a, a.is_shared(), v.is_shared(), v, torch.ones(2).is_shared(), "
    "s.is_shared(), s.nbytes(), torch.empty(0).share_memory_().is_shared())",
    "parameter_through_a_queue": "q = mp.Queue(); p = torch.nn.Parameter(torch.ones(2))\n"
    "q.put(p); r = q.get(timeout=10)\n"
    "out = (type(r).__name__, r.requires_grad, r, torch.ones(2).requires_grad_().is_leaf)",
}

ERRORS = {
    "bad_start_method": "data.DataLoader(ds, num_workers=2, multiprocessing_context='nope')",
    "bad_context_type": "data.DataLoader(ds, num_workers=2, multiprocessing_context=3)",
    "context_without_workers": "data.DataLoader(ds, multiprocessing_context='fork')",
    "negative_prefetch_factor": "data.DataLoader(ds, num_workers=2, prefetch_factor=-1)",
    "set_persistent_after_init": "dl = data.DataLoader(ds, num_workers=1); "
    "dl.persistent_workers = True",
    "bad_sharing_strategy": "mp.set_sharing_strategy('shared')",
    "non_leaf_through_a_queue": "from multiprocessing.reduction import ForkingPickler\n"
    "ForkingPickler.dumps(torch.ones(2, requires_grad=True) * 2)",
    "timeout": "import time\n"
    "class Slow(data.Dataset):\n"
    "    def __len__(self): return 2\n"
    "    def __getitem__(self, i): time.sleep(0.6); return i\n"
    "consume(data.DataLoader(Slow(), num_workers=1, timeout=0.1))",
    "iterable_with_sampler": "data.DataLoader(Shard(3), num_workers=2, sampler=[0])",
}

# a worker's exception: the same type, and a message that starts with torch's line and ends
# with the original error (the traceback between them names each library's own files)
WORKER_ERRORS = {
    "value_error": "class Bad(data.Dataset):\n"
    "    def __len__(self): return 4\n"
    "    def __getitem__(self, i):\n"
    "        if i == 2: raise ValueError(f'no sample {i}')\n"
    "        return i\n"
    "consume(data.DataLoader(Bad(), batch_size=1, num_workers=2))",
    "key_error": "class Bad(data.Dataset):\n"
    "    def __len__(self): return 2\n"
    "    def __getitem__(self, i): return {'a': 1}['b']\n"
    "consume(data.DataLoader(Bad(), num_workers=1))",
    "worker_init_fn_error": "def init(worker_id): raise RuntimeError(f'init {worker_id}')\n"
    "consume(data.DataLoader(ds, batch_size=4, num_workers=2, worker_init_fn=init))",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_programs(name: str) -> None:
    check(PRE + PROGRAMS[name])


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name: str) -> None:
    check(PRE + ERRORS[name] + "\nout = None")


@pytest.mark.parametrize("name", sorted(WORKER_ERRORS))
def test_worker_errors(name: str) -> None:
    import tensortrace

    ours, theirs = (run(m, PRE + WORKER_ERRORS[name]) for m in (tensortrace, torch))
    assert theirs.error is not None and ours.error is not None, (ours.error, theirs.error)
    assert type(ours.error) is type(theirs.error)
    a, b = str(ours.error).splitlines(), str(theirs.error).splitlines()
    assert a[:2] == b[:2]  # "Caught X in DataLoader worker process N.", "Original Traceback..."
    assert a[-1] == b[-1]  # the original exception
    assert any("in __getitem__" in line or "in init" in line for line in a)
