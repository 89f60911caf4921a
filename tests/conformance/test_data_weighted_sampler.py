"""Conformance of torch.utils.data.WeightedRandomSampler (one torch.multinomial per pass, so
seeded draws equal torch's), with SubsetRandomSampler and BatchSampler around it, against
torch 2.13: draws, lengths, DataLoader batches, and the argument errors."""

from __future__ import annotations

import pytest

from .harness import check

PRE = "D = torch.utils.data\nw = [0.1, 0.9, 0.4, 0.7, 3.0, 0.6]\n"

PROGRAMS = {
    "with_replacement": "s = D.WeightedRandomSampler(w, 10); out = (list(s), list(s), len(s))",
    "without_replacement": "out = list(D.WeightedRandomSampler(w, 5, replacement=False))",
    "tensor_weights": "s = D.WeightedRandomSampler(torch.tensor([1., 0., 2.]), 6)\n"
    "out = (list(s), s.weights.dtype)",
    "generator": "g = torch.Generator().manual_seed(7)\n"
    "out = list(D.WeightedRandomSampler(w, 8, generator=g))",
    "batch_sampler": "b = D.BatchSampler(D.WeightedRandomSampler(w, 7), 3, drop_last=False)\n"
    "out = (list(b), len(b))",
    "subset_random": "out = (list(D.SubsetRandomSampler([10, 11, 12, 13])), "
    "len(D.SubsetRandomSampler(range(3))))",
    "dataloader": "ds = D.TensorDataset(torch.arange(6.).view(6, 1))\n"
    "dl = D.DataLoader(ds, batch_size=2, sampler=D.WeightedRandomSampler(w, 5))\n"
    "out = [b[0].view(-1).tolist() for b in dl]",
    # ---- errors ----
    "err_num_samples": "out = D.WeightedRandomSampler(w, 0)",
    "err_num_samples_bool": "out = D.WeightedRandomSampler(w, True)",
    "err_replacement": "out = D.WeightedRandomSampler(w, 2, replacement=1)",
    "err_weights_2d": "out = D.WeightedRandomSampler([[1., 2.]], 2)",
    "err_too_many_without_replacement": "out = list(D.WeightedRandomSampler([1., 1.], 3, "
    "replacement=False))",
    "err_negative_weight": "out = list(D.WeightedRandomSampler([1., -1.], 3))",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_weighted_sampler(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name])
