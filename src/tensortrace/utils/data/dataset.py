"""Datasets: what a DataLoader indexes (map-style) or iterates (IterableDataset).

Mirrors `torch/utils/data/dataset.py`: Dataset, IterableDataset, TensorDataset, ConcatDataset,
Subset and random_split, with torch's checks and messages.
"""

from __future__ import annotations

import bisect
import itertools
import math
import warnings
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar

import tensortrace as torch

T_co = TypeVar("T_co", covariant=True)
T = TypeVar("T")


class Dataset(Generic[T_co]):
    """A map from keys (usually 0..len-1) to samples: subclasses define __getitem__ (and
    usually __len__, which the default samplers need)."""

    def __getitem__(self, index: Any) -> T_co:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Dataset[T_co]) -> ConcatDataset[T_co]:
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co]):
    """A stream of samples: subclasses define __iter__; the DataLoader takes no sampler."""

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")


class TensorDataset(Dataset[tuple[Any, ...]]):
    """Sample i is (t[i] for each tensor): the tensors share their first dimension."""

    def __init__(self, *tensors: Any) -> None:
        if any(tensors[0].size(0) != tensor.size(0) for tensor in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple[Any, ...]:
        return tuple(tensor[index] for tensor in self.tensors)

    def __len__(self) -> int:
        return int(self.tensors[0].size(0))


class ConcatDataset(Dataset[T_co]):
    """Several map-style datasets one after the other."""

    @staticmethod
    def cumsum(sequence: Iterable[Any]) -> list[int]:
        sizes, total = [], 0
        for dataset in sequence:
            total += len(dataset)
            sizes.append(total)
        return sizes

    def __init__(self, datasets: Iterable[Dataset[Any]]) -> None:
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int) -> T_co:
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        dataset_idx = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[dataset_idx - 1] if dataset_idx else 0
        return self.datasets[dataset_idx][idx - start]  # type: ignore[no-any-return]


class Subset(Dataset[T_co]):
    """The samples of `dataset` at `indices`, in that order."""

    def __init__(self, dataset: Dataset[T_co], indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: list[int]) -> list[Any]:
        fetch_many = getattr(self.dataset, "__getitems__", None)
        if callable(fetch_many):  # the parent batches its own fetches
            return fetch_many([self.indices[i] for i in indices])  # type: ignore[no-any-return]
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(
    dataset: Dataset[T], lengths: Sequence[int | float], generator: Any = None
) -> list[Subset[T]]:
    """Split `dataset` into non-overlapping Subsets of the given lengths (or fractions that sum
    to 1), from one torch.randperm of the whole (torch's default generator unless given)."""
    if generator is None:
        generator = torch.default_generator
    n = len(dataset)  # type: ignore[arg-type]
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        subset_lengths: list[int] = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            subset_lengths.append(math.floor(n * frac))
        for i in range(n - sum(subset_lengths)):  # the remainder, one each in turn
            subset_lengths[i % len(subset_lengths)] += 1
        lengths = subset_lengths
        for i, length in enumerate(lengths):
            if length == 0:
                warnings.warn(
                    f"Length of split at index {i} is 0. This might result in an empty dataset.",
                    stacklevel=2,
                )
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    counts = [int(length) for length in lengths]
    indices = torch.randperm(sum(counts), generator=generator).tolist()
    return [
        Subset(dataset, indices[offset - length : offset])
        for offset, length in zip(itertools.accumulate(counts), counts)
    ]
