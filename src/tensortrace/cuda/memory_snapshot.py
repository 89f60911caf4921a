"""The allocator's snapshot as the dicts torch.cuda._memory_viz and pytorch.org/memory_viz read.

Mirrors `torch/csrc/cuda/memory_snapshot.cpp` (`_memory_snapshot_pickled`): each SegmentInfo
with its blocks and their states, each TraceEntry of the history, and the allocator's settings.
memory.py's `_snapshot` puts them together.
"""

from __future__ import annotations

from typing import Any

from tensortrace.c10.cuda.cuda_allocator_config import CUDAAllocatorConfig
from tensortrace.c10.cuda.cuda_caching_allocator import (
    BlockInfo,
    SegmentInfo,
    TraceEntry,
    _as_int64,
)


def _frames(frames: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    return [dict(f) for f in frames] if frames else []


def _segment_dict(seg: SegmentInfo) -> dict[str, Any]:
    blocks = []
    address = seg.address
    for b in seg.blocks:
        blocks.append(_block_dict(b, address))
        address += b.size
    return {
        "device": seg.device,
        "address": seg.address,
        "total_size": seg.total_size,
        "allocated_size": seg.allocated_size,
        "active_size": seg.active_size,
        "requested_size": seg.requested_size,
        "stream": seg.stream,
        "segment_type": "large" if seg.is_large else "small",
        "segment_pool_id": (0, 0),
        "is_expandable": False,
        "frames": _frames(seg.frames),
        "blocks": blocks,
    }


def _block_dict(b: BlockInfo, address: int) -> dict[str, Any]:
    state = "active_allocated" if b.allocated else "active_pending_free" if b.active else "inactive"
    return {
        "address": address,
        "size": b.size,
        "requested_size": b.requested_size,
        "state": state,
        "frames": _frames(b.frames),
    }


def _trace_entry_dict(te: TraceEntry) -> dict[str, Any]:
    out: dict[str, Any] = {"action": te.action}
    out["device_free" if te.action == "oom" else "addr"] = te.addr
    out.update(
        {"size": te.size, "stream": te.stream, "time_us": te.time_us, "frames": _frames(te.frames)}
    )
    return out


def _allocator_settings() -> dict[str, Any]:
    config = CUDAAllocatorConfig.instance()
    roundup: dict[str, int] = {}
    key = 1
    for v in config.roundup_power2_divisions_:
        roundup[str(key)] = v
        key *= 2
    return {
        "PYTORCH_CUDA_ALLOC_CONF": config.last_allocator_settings,
        "max_split_size": _as_int64(config.max_split_size),
        "garbage_collection_threshold": config.garbage_collection_threshold,
        "expandable_segments": config.expandable_segments,
        "pinned_num_register_threads": config.pinned_num_register_threads,
        "release_lock_on_cudamalloc": config.release_lock_on_cudamalloc,
        "pinned_use_cuda_host_register": config.pinned_use_cuda_host_register,
        "roundup_power2_divisions": roundup,
    }
