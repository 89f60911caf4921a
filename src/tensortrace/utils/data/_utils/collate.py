"""default_collate and default_convert: samples into a batch, NumPy into tensors.

Mirrors `torch/utils/data/_utils/collate.py`: a batch of tensors is torch.stack'ed, of numbers
becomes one tensor (float64 for Python floats, int64 for ints), and tuples, lists, dicts and
namedtuples are collated field by field.
"""

from __future__ import annotations

import collections.abc
import copy
import re
from collections.abc import Callable
from typing import Any

import numpy as np

import tensortrace as torch
from tensortrace.utils.data._utils.worker import get_worker_info

np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)

CollateMap = dict[Any, Callable[..., Any]]


def default_convert(data: Any) -> Any:
    """Each NumPy array or scalar inside `data` as a tensor; the rest as it is (what a
    DataLoader with batch_size=None applies to each sample)."""
    elem_type = type(data)
    if isinstance(data, torch.Tensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if elem_type.__name__ == "ndarray" and np_str_obj_array_pattern.search(data.dtype.str):
            return data  # an array of strings or objects
        return torch.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _mapping_like(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # a namedtuple
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]  # a list, as torch (backwards compatibility)
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _sequence_like(data, [default_convert(d) for d in data])
    return data


def collate(batch: Any, *, collate_fn_map: CollateMap | None = None) -> Any:
    """Collate a list of samples by the type of the first: `collate_fn_map` first, then
    mappings, namedtuples and sequences field by field."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        return _mapping_like(
            elem,
            {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem},
        )
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a namedtuple
        return elem_type(
            *(collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch))
        )
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        collated = [collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)]
        if isinstance(elem, tuple):
            return collated  # a list, as torch (backwards compatibility)
        return _sequence_like(elem, collated)
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def _mapping_like(like: Any, items: dict[Any, Any]) -> Any:
    """`items` in a mapping of `like`'s type where that can be made, else a dict."""
    try:
        if isinstance(like, collections.abc.MutableMapping):
            clone = copy.copy(like)  # keeps the mapping type's own attributes
            clone.update(items)
            return clone
        return type(like)(items)
    except TypeError:
        return items


def _sequence_like(like: Any, items: list[Any]) -> Any:
    """`items` in a sequence of `like`'s type where that can be made, else a list."""
    try:
        if isinstance(like, collections.abc.MutableSequence):
            clone = copy.copy(like)
            for i, item in enumerate(items):
                clone[i] = item
            return clone
        return type(like)(items)
    except TypeError:
        return items


def collate_tensor_fn(batch: Any, *, collate_fn_map: CollateMap | None = None) -> Any:
    elem = batch[0]
    out = None
    if get_worker_info() is not None:
        # in a worker process: stack straight into shared memory, which is how the batch goes
        # to the main process (multiprocessing/reductions.py), saving a copy. torch writes
        # elem.new(storage).resize_(...); tensortrace's Tensor has no `new`, and set_ with the
        # sizes makes the same tensor
        numel = sum(x.numel() for x in batch)
        storage = elem._typed_storage()._new_shared(numel, device=elem.device)
        out = torch.empty((0,), dtype=elem.dtype, device=elem.device).set_(
            storage._untyped_storage, 0, [len(batch), *elem.size()], []
        )
    return torch.stack(batch, 0, out=out)


def collate_numpy_array_fn(batch: Any, *, collate_fn_map: CollateMap | None = None) -> Any:
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([torch.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch: Any, *, collate_fn_map: CollateMap | None = None) -> Any:
    return torch.as_tensor(batch)


def collate_float_fn(batch: Any, *, collate_fn_map: CollateMap | None = None) -> Any:
    return torch.tensor(batch, dtype=torch.float64)


def collate_int_fn(batch: Any, *, collate_fn_map: CollateMap | None = None) -> Any:
    return torch.tensor(batch)


def collate_str_fn(batch: Any, *, collate_fn_map: CollateMap | None = None) -> Any:
    return batch


default_collate_fn_map: CollateMap = {
    torch.Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch: Any) -> Any:
    """A list of samples into a batch: tensors stacked along a new dimension 0."""
    return collate(batch, collate_fn_map=default_collate_fn_map)
