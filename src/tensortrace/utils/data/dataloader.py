"""DataLoader: batches of a dataset, in a sampler's order, collated into tensors.

Mirrors `torch/utils/data/dataloader.py` and `_utils/fetch.py` for loading in the main process
(num_workers=0, torch's default): the same argument checks, the same default samplers, and the
same draws from the generator (each pass first draws a base seed, as torch's iterator does, so
the random numbers after a loop match torch's too).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import tensortrace as torch
from tensortrace.utils.data._utils.collate import default_collate, default_convert
from tensortrace.utils.data.dataset import Dataset, IterableDataset
from tensortrace.utils.data.sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

_FIXED_AFTER_INIT = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset")


class _InfiniteConstantSampler(Sampler[None]):
    """An IterableDataset's sampler: None forever (the dataset decides when to stop)."""

    def __iter__(self) -> Iterator[None]:
        while True:
            yield None


class DataLoader:
    """Iterate over `dataset` in batches of `batch_size` (None: one sample at a time)."""

    def __init__(
        self,
        dataset: Dataset[Any],
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler: Sampler[Any] | Iterable[Any] | None = None,
        batch_sampler: Sampler[Any] | Iterable[Any] | None = None,
        num_workers: int = 0,
        collate_fn: Callable[[Any], Any] | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Callable[[int], None] | None = None,
        multiprocessing_context: Any = None,
        generator: Any = None,
        *,
        prefetch_factor: int | None = None,
        persistent_workers: bool = False,
        pin_memory_device: str = "",
        in_order: bool = True,
    ) -> None:
        self._initialized = False
        if num_workers < 0:
            raise ValueError(
                "num_workers option should be non-negative; "
                "use num_workers=0 to disable multiprocessing."
            )
        if num_workers > 0:
            # torch forks worker processes here; their ops would be missing from the trace
            raise NotImplementedError(
                "tensortrace's DataLoader loads in the main process only: use num_workers=0"
            )
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing."
                "let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor "
                "to None."
            )
        if persistent_workers:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if multiprocessing_context is not None:
            raise ValueError(
                "multiprocessing_context can only be used with multi-process loading "
                f"(num_workers > 0), but got num_workers={num_workers}"
            )
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory  # a transfer hint: batches are the same either way
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order
        self.persistent_workers = persistent_workers

        self._is_iterable = isinstance(dataset, IterableDataset)
        if self._is_iterable:
            if shuffle not in {False, None}:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified shuffle option, "
                    f"but got shuffle={shuffle}"
                )
            if sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified sampler option, "
                    f"but got sampler={sampler}"
                )
            if batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified batch_sampler "
                    f"option, but got batch_sampler={batch_sampler}"
                )
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, "
                    "sampler, and drop_last"
                )
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive "
                "with drop_last"
            )
        if sampler is None:
            if self._is_iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)  # type: ignore[arg-type]
            else:
                sampler = SequentialSampler(dataset)  # type: ignore[arg-type]
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self._IterableDataset_len_called: int | None = None
        self._initialized = True

    def __setattr__(self, attr: str, val: Any) -> None:
        if getattr(self, "_initialized", False) and attr in _FIXED_AFTER_INIT:
            raise ValueError(
                f"{attr} attribute should not be set after {type(self).__name__} is initialized"
            )
        super().__setattr__(attr, val)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self) -> Any:
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self) -> _SingleProcessDataLoaderIter:
        return _SingleProcessDataLoaderIter(self)

    def __len__(self) -> int:
        if self._is_iterable:
            length = self._IterableDataset_len_called = len(self.dataset)  # type: ignore[arg-type]
            if self.batch_size is not None:
                if self.drop_last:
                    return length // self.batch_size
                return math.ceil(length / self.batch_size)
            return length
        return len(self._index_sampler)


class _SingleProcessDataLoaderIter:
    """One pass over the loader: next index (or batch of indices), fetch, collate."""

    def __init__(self, loader: DataLoader) -> None:
        self._loader = loader
        self._dataset = loader.dataset
        self._is_iterable = loader._is_iterable
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._collate_fn = loader.collate_fn
        self._index_sampler = loader._index_sampler
        self._sampler_iter = iter(self._index_sampler)
        # what torch seeds its workers from: drawn on every pass, workers or not
        self._base_seed = torch.empty((), dtype=torch.int64).random_(generator=loader.generator)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._dataset_iter = iter(self._dataset) if self._is_iterable else None  # type: ignore[call-overload]
        self._ended = False

    def __iter__(self) -> _SingleProcessDataLoaderIter:
        return self

    def __len__(self) -> int:
        return len(self._index_sampler)

    def __next__(self) -> Any:
        index = next(self._sampler_iter)  # may raise StopIteration
        data = self._fetch_iterable(index) if self._is_iterable else self._fetch_map(index)
        self._num_yielded += 1
        if (
            self._is_iterable
            and self._IterableDataset_len_called is not None
            and self._num_yielded > self._IterableDataset_len_called
        ):
            warnings.warn(
                f"Length of IterableDataset {self._dataset} was reported to be "
                f"{self._IterableDataset_len_called}(when accessing len(dataloader)), but "
                f"{self._num_yielded} samples have been fetched. ",
                stacklevel=2,
            )
        return data

    def _fetch_map(self, index: Any) -> Any:
        """_MapDatasetFetcher.fetch: the dataset's samples at the index (or indices)."""
        dataset: Any = self._dataset
        if not self._auto_collation:
            return self._collate_fn(dataset[index])
        fetch_many = getattr(dataset, "__getitems__", None)
        if fetch_many:
            data = fetch_many(index)
        else:
            data = [dataset[i] for i in index]
        return self._collate_fn(data)

    def _fetch_iterable(self, index: Any) -> Any:
        """_IterableDatasetFetcher.fetch: the next sample, or the next batch's worth."""
        assert self._dataset_iter is not None
        if self._ended:
            raise StopIteration
        if not self._auto_collation:
            return self._collate_fn(next(self._dataset_iter))
        data = []
        for _ in index:
            try:
                data.append(next(self._dataset_iter))
            except StopIteration:
                self._ended = True
                break
        if len(data) == 0 or (self._drop_last and len(data) < len(index)):
            raise StopIteration
        return self._collate_fn(data)
