"""viz: the pictures of a trace, drawn as plain SVG by the project itself.

- `object_graph(trace_or_timeline, step)`: Python handle -> TensorImpl -> StorageImpl -> DataPtr
  at a step, with refcounts, shared storages and a view's hold on its base (seed 001's diagram,
  live).
- `storage_strip(t, index)` / `StorageStrip(sizes, strides, offset, storage_len)`: a layout over
  its storage, the element an index reaches highlighted (seed 003).
- `autograd_graph(trace_or_timeline, step)`: the Backward nodes a trace recorded, their edges down
  to the leaves' AccumulateGrad, what each saved, and the order backward() evaluated them.
- `memory_map(trace_or_timeline, step)`: the allocator's blocks by address over the trace's
  steps.

Both read the replay's Timeline (`tensortrace.replay.timeline`), the one replay of a trace: a
Trace is replayed by a Timeline built on the spot, so pass the Timeline to draw many steps.

Each returns an `SvgPicture`: Jupyter shows it (`_repr_svg_`), `str()` is the SVG text,
`save(path)` writes a file. No PyTorch counterpart: PyTorch draws nothing of this.
"""

from __future__ import annotations

from tensortrace.viz.autograd_graph import AutogradGraph, autograd_graph
from tensortrace.viz.memory_map import Block, MemoryMap, blocks_of, memory_map
from tensortrace.viz.object_graph import ObjectGraph, object_graph
from tensortrace.viz.state import ObjectState, state_from_timeline
from tensortrace.viz.storage_strip import (
    StorageStrip,
    required_storage,
    storage_index,
    storage_strip,
)
from tensortrace.viz.svg import SvgPicture

__all__ = [
    "AutogradGraph",
    "Block",
    "MemoryMap",
    "ObjectGraph",
    "ObjectState",
    "StorageStrip",
    "SvgPicture",
    "autograd_graph",
    "blocks_of",
    "memory_map",
    "object_graph",
    "required_storage",
    "state_from_timeline",
    "storage_index",
    "storage_strip",
]
