"""torch.utils.data: datasets, samplers and the DataLoader that batches them.

Mirrors `torch/utils/data/__init__.py`. Plain Python in PyTorch too: everything here is built on
the public tensor API (torch.stack, torch.randperm, Tensor.random_), so a trace of a training
loop shows the batching as the ops it runs.
"""

from tensortrace.utils.data._utils.collate import default_collate, default_convert
from tensortrace.utils.data._utils.worker import get_worker_info
from tensortrace.utils.data.dataloader import DataLoader
from tensortrace.utils.data.dataset import (
    ConcatDataset,
    Dataset,
    IterableDataset,
    Subset,
    TensorDataset,
    random_split,
)
from tensortrace.utils.data.sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "BatchSampler",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WeightedRandomSampler",
    "default_collate",
    "default_convert",
    "get_worker_info",
    "random_split",
]
