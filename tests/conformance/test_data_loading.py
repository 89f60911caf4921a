"""Conformance of torch.utils.data against torch 2.13: a shuffled DataLoader yields torch's
batches after the same manual_seed (and leaves the generator where torch's leaves it), and the
samplers, collation, random_split and every argument check match, errors and messages too."""

from __future__ import annotations

import pytest

from .harness import check

PRE = (
    "data = torch.utils.data\n"
    "X = torch.arange(20.).reshape(10, 2); Y = torch.arange(10)\n"
    "ds = data.TensorDataset(X, Y)\n"
)

PROGRAMS = {
    "sequential_batches": "out = list(data.DataLoader(ds, batch_size=4))",
    "sequential_drop_last": "dl = data.DataLoader(ds, batch_size=4, drop_last=True); "
    "out = (list(dl), len(dl))",
    "len_without_drop_last": "out = len(data.DataLoader(ds, batch_size=3))",
    "shuffled_batches": "out = [list(data.DataLoader(ds, batch_size=3, shuffle=True)) "
    "for _ in range(2)]",
    "shuffle_leaves_generator_as_torch": "list(data.DataLoader(ds, batch_size=4, shuffle=True)); "
    "out = torch.rand(3)",
    "shuffle_with_generator": "g = torch.Generator().manual_seed(7); "
    "out = (list(data.DataLoader(ds, batch_size=5, shuffle=True, generator=g)), "
    "torch.rand(2))",
    "batch_size_none": "out = list(data.DataLoader(ds, batch_size=None))[:3]",
    "quickstart_loop": "torch.manual_seed(1); m = torch.nn.Linear(2, 3); "
    "opt = torch.optim.SGD(m.parameters(), lr=0.01); losses = []\n"
    "for epoch in range(2):\n"
    "    for xb, yb in data.DataLoader(ds, batch_size=4, shuffle=True):\n"
    "        loss = torch.nn.functional.cross_entropy(m(xb), yb % 3)\n"
    "        loss.backward(); opt.step(); opt.zero_grad(); losses.append(loss.detach())\n"
    "out = torch.stack(losses)",
    "random_sampler_replacement": "s = data.RandomSampler(ds, replacement=True, num_samples=40); "
    "out = (list(s), len(s))",
    "random_sampler_more_samples": "out = list(data.RandomSampler(range(4), num_samples=10))",
    "subset_random_sampler": "g = torch.Generator().manual_seed(3); "
    "out = list(data.SubsetRandomSampler([5, 6, 7, 8], generator=g))",
    "batch_sampler": "out = [list(data.BatchSampler(data.SequentialSampler(range(10)), 3, d)) "
    "for d in (False, True)]",
    "batch_sampler_in_loader": "bs = data.BatchSampler(range(10), 4, False); "
    "out = list(data.DataLoader(ds, batch_sampler=bs))",
    "random_split_lengths": "a, b = data.random_split(ds, [7, 3]); "
    "out = (a.indices, b.indices, a[0], len(b))",
    "random_split_fractions": "parts = data.random_split(range(11), [0.5, 0.3, 0.2], "
    "generator=torch.Generator().manual_seed(0)); out = [list(p) for p in parts]",
    "subset_and_concat": "s = data.Subset(ds, [9, 0]); c = s + data.Subset(ds, [4]); "
    "out = (s[0], len(c), c[2], c[-1], list(data.DataLoader(c, batch_size=2)))",
    "collate_numbers": "out = [data.default_collate([1, 2]), data.default_collate([1.5, 2.0]), "
    "data.default_collate([True, False])]",
    "collate_nested": "import collections\nP = collections.namedtuple('P', 'x y')\n"
    "out = data.default_collate([{'a': (torch.ones(2), 1), 'b': P(1.0, 'u')}, "
    "{'a': (torch.zeros(2), 2), 'b': P(2.0, 'v')}])",
    "collate_numpy": "import numpy as np\n"
    "out = (data.default_collate([np.ones(2, np.float32), np.zeros(2, np.float32)]), "
    "data.default_collate([np.int64(3), np.int64(4)]), data.default_convert((np.ones(2), 'x')))",
    "dict_dataset_loop": "class D(data.Dataset):\n"
    "    def __len__(self): return 5\n"
    "    def __getitem__(self, i): return {'x': torch.full((2,), float(i)), 'y': i}\n"
    "out = list(data.DataLoader(D(), batch_size=2, shuffle=True))",
    "iterable_dataset": "class It(data.IterableDataset):\n"
    "    def __iter__(self): return iter(range(7))\n"
    "out = (list(data.DataLoader(It(), batch_size=3)), "
    "list(data.DataLoader(It(), batch_size=3, drop_last=True)), "
    "list(data.DataLoader(It(), batch_size=None)))",
}

ERRORS = {
    "tensor_dataset_mismatch": "data.TensorDataset(torch.ones(3), torch.ones(4))",
    "sampler_and_shuffle": "data.DataLoader(ds, sampler=range(10), shuffle=True)",
    "batch_sampler_and_batch_size": "data.DataLoader(ds, batch_sampler=[[0]], batch_size=2)",
    "batch_size_none_drop_last": "data.DataLoader(ds, batch_size=None, drop_last=True)",
    "bad_batch_size": "data.DataLoader(ds, batch_size=0)",
    "bad_drop_last": "data.BatchSampler(range(3), 2, drop_last=1)",
    "negative_workers": "data.DataLoader(ds, num_workers=-1)",
    "negative_timeout": "data.DataLoader(ds, timeout=-1)",
    "persistent_without_workers": "data.DataLoader(ds, persistent_workers=True)",
    "prefetch_without_workers": "data.DataLoader(ds, prefetch_factor=2)",
    "iterable_with_shuffle": "class It(data.IterableDataset):\n"
    "    def __iter__(self): return iter(range(3))\n"
    "data.DataLoader(It(), shuffle=True)",
    "set_batch_size_after_init": "dl = data.DataLoader(ds); dl.batch_size = 3",
    "sampler_num_samples": "data.RandomSampler(ds, num_samples=0)",
    "sampler_replacement_type": "data.RandomSampler(ds, replacement=1)",
    "collate_unequal_sizes": "data.default_collate([(1, 2), (3,)])",
    "collate_objects": "data.default_collate([object(), object()])",
    "random_split_sum": "data.random_split(ds, [3, 3])",
    "random_split_fraction": "data.random_split(ds, [1.5, -0.5])",
    "concat_empty": "data.ConcatDataset([])",
    "concat_index": "(data.Subset(ds, [1]) + data.Subset(ds, [2]))[-3]",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_programs(name: str) -> None:
    check(PRE + PROGRAMS[name], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name: str) -> None:
    check(PRE + ERRORS[name] + "\nout = None")
