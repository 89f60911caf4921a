"""torch.cuda.memory: the caching allocator's statistics, summary, snapshots and history.

Mirrors `torch/cuda/memory.py` (memory_stats, memory_summary, memory_snapshot, _snapshot,
_dump_snapshot, _record_memory_history, empty_cache, set_per_process_memory_fraction,
mem_get_info, caching_allocator_alloc/delete) and the bindings behind it: THCPModule_memoryStats
in `torch/csrc/cuda/Module.cpp` and `_memory_snapshot_pickled` in
`torch/csrc/cuda/memory_snapshot.cpp`, which turn the allocator's SegmentInfo and TraceEntry
into the dicts that torch.cuda._memory_viz and pytorch.org/memory_viz read (memory_snapshot.py).
"""

from __future__ import annotations

import collections
import pickle
import sys
import warnings
from typing import Any

from tensortrace.c10.cuda import cuda_allocator_config
from tensortrace.c10.cuda.cuda_caching_allocator import (
    ACTIONS,
    RecordContext,
    allocator,
    cudaMemGetInfo,
)
from tensortrace.c10.device import Device
from tensortrace.c10.exception import OutOfMemoryError
from tensortrace.cuda.memory_snapshot import _allocator_settings, _segment_dict, _trace_entry_dict

__all__ = [
    "OutOfMemoryError",
    "caching_allocator_alloc",
    "caching_allocator_delete",
    "empty_cache",
    "get_per_process_memory_fraction",
    "max_memory_allocated",
    "max_memory_cached",
    "max_memory_reserved",
    "mem_get_info",
    "memory_allocated",
    "memory_cached",
    "memory_reserved",
    "reset_max_memory_allocated",
    "reset_max_memory_cached",
    "memory_snapshot",
    "memory_stats",
    "memory_stats_as_nested_dict",
    "memory_summary",
    "reset_accumulated_memory_stats",
    "reset_peak_memory_stats",
    "set_per_process_memory_fraction",
]


def _get_device_index(device: Any, optional: bool = True) -> int:
    """torch.cuda._utils._get_device_index: None or 'cuda' -> the current device."""
    if isinstance(device, bool):
        raise ValueError(f"Expected a cuda device, but got: {device}")
    if isinstance(device, int):
        return device
    if device is None:
        return allocator.current_device()
    if isinstance(device, str):
        device = Device(device)
    if isinstance(device, Device):
        if device.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {device}")
        if device.index is None:
            if not optional:
                raise ValueError(
                    "Expected a torch.device with a specified index or an "
                    f"integer, but got:{device}"
                )
            return allocator.current_device()
        return device.index
    index = getattr(device, "idx", None)  # a torch.cuda.device context manager
    if isinstance(index, int):
        return index
    raise ValueError(f"Expected a cuda device, but got: {device}")


def _device_allocator(device: Any) -> Any:
    return allocator.device_allocator_for(_get_device_index(device))


# ---- statistics ------------------------------------------------------------------------------
def memory_stats_as_nested_dict(device: Any = None) -> dict[str, Any]:
    """The statistics as torch._C._cuda_memoryStats nests them."""
    return _device_allocator(device).getStats().as_nested_dict()


def memory_stats(device: Any = None) -> dict[str, Any]:
    """Every statistic of the device's caching allocator, flattened and sorted by key."""
    result: list[tuple[str, Any]] = []

    def _format_key(key: Any) -> str:
        if isinstance(key, tuple):
            return "_".join(str(part) for part in key)
        return str(key)

    def _recurse_add_to_result(prefix: str, obj: Any) -> None:
        if isinstance(obj, dict):
            if len(prefix) > 0:
                prefix += "."
            for k, v in obj.items():
                _recurse_add_to_result(prefix + _format_key(k), v)
        else:
            result.append((prefix, obj))

    _recurse_add_to_result("", memory_stats_as_nested_dict(device))
    result.sort()
    return collections.OrderedDict(result)


def reset_accumulated_memory_stats(device: Any = None) -> None:
    _device_allocator(device).resetAccumulatedStats()


def reset_peak_memory_stats(device: Any = None) -> None:
    _device_allocator(device).resetPeakStats()


def memory_allocated(device: Any = None) -> int:
    """Bytes the device's tensors occupy (blocks handed out, rounded sizes)."""
    return memory_stats(device).get("allocated_bytes.all.current", 0)


def max_memory_allocated(device: Any = None) -> int:
    return memory_stats(device).get("allocated_bytes.all.peak", 0)


def memory_reserved(device: Any = None) -> int:
    """Bytes the caching allocator holds in segments: allocated plus cached."""
    return memory_stats(device).get("reserved_bytes.all.current", 0)


def max_memory_reserved(device: Any = None) -> int:
    return memory_stats(device).get("reserved_bytes.all.peak", 0)


def memory_cached(device: Any = None) -> int:
    """Deprecated; see memory_reserved."""
    warnings.warn(
        "`torch.cuda.memory_cached` has been renamed to `torch.cuda.memory_reserved`",
        FutureWarning,
        stacklevel=2,
    )
    return memory_reserved(device)


def max_memory_cached(device: Any = None) -> int:
    """Deprecated; see max_memory_reserved."""
    warnings.warn(
        "`torch.cuda.max_memory_cached` has been renamed to `torch.cuda.max_memory_reserved`",
        FutureWarning,
        stacklevel=2,
    )
    return max_memory_reserved(device)


def reset_max_memory_allocated(device: Any = None) -> None:
    warnings.warn(
        "torch.cuda.reset_max_memory_allocated now calls "
        "torch.cuda.reset_peak_memory_stats, which resets /all/ peak memory stats.",
        FutureWarning,
        stacklevel=2,
    )
    reset_peak_memory_stats(device)


def reset_max_memory_cached(device: Any = None) -> None:
    warnings.warn(
        "torch.cuda.reset_max_memory_cached now calls "
        "torch.cuda.reset_peak_memory_stats, which resets /all/ peak memory stats.",
        FutureWarning,
        stacklevel=2,
    )
    reset_peak_memory_stats(device)


# ---- control -----------------------------------------------------------------------------------
def empty_cache() -> None:
    """Give every cached, unsplit segment back to the device (cudaFree)."""
    allocator.emptyCache()


def set_per_process_memory_fraction(fraction: float, device: Any = None) -> None:
    """Let the caching allocator reserve at most fraction * total memory of the device."""
    index = _get_device_index(device)
    if not isinstance(fraction, float):
        raise TypeError("Invalid type for fraction argument, must be `float`")
    if fraction < 0 or fraction > 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    allocator.setMemoryFraction(fraction, index)


def get_per_process_memory_fraction(device: Any = None) -> float:
    return _device_allocator(device).getMemoryFraction()


def mem_get_info(device: Any = None) -> tuple[int, int]:
    """(free, total) bytes of the emulated device, as cudaMemGetInfo reports them."""
    return cudaMemGetInfo(_get_device_index(device))


def caching_allocator_alloc(size: int, device: Any = None, stream: Any = None) -> int:
    """Allocate `size` bytes from the caching allocator; returns the address."""
    index = _get_device_index(device)
    if stream is None:
        stream = allocator.current_stream(index)
    stream_id = getattr(stream, "cuda_stream", stream)
    if not isinstance(stream_id, int):
        raise TypeError(
            "Invalid type for stream argument, must be `torch.cuda.Stream` or "
            "`int` representing a pointer to an existing stream"
        )
    previous = allocator.current_device
    allocator.current_device = lambda: index
    try:
        return allocator.raw_alloc_with_stream(size, stream_id)
    finally:
        allocator.current_device = previous


def caching_allocator_delete(mem_ptr: int) -> None:
    allocator.raw_delete(mem_ptr)


def _set_allocator_settings(env: str) -> None:
    cuda_allocator_config.set_allocator_settings(env)


def get_allocator_backend() -> str:
    return "native"


# ---- the summary table -------------------------------------------------------------------------
def memory_summary(device: Any = None, abbreviated: bool = False) -> str:
    """torch.cuda.memory_summary's table, line for line."""
    device = _get_device_index(device)
    stats = memory_stats(device=device)

    def _format_size(sz: int, pref_sz: float) -> str:
        prefixes = ["B  ", "KiB", "MiB", "GiB", "TiB", "PiB"]
        prefix = prefixes[0]
        for new_prefix in prefixes[1:]:
            if pref_sz < 768 * 1024:
                break
            prefix = new_prefix
            sz //= 1024
            pref_sz /= 1024
        return f"{sz:6d} {prefix}"

    def _format_count(cnt: int, pref_cnt: float) -> str:
        prefixes = [" ", "K", "M"]
        prefix = prefixes[0]
        for new_prefix in prefixes[1:]:
            if pref_cnt < 750 * 1000:
                break
            prefix = new_prefix
            cnt //= 1000
            pref_cnt /= 1000
        return f"{cnt:7d} {prefix} "

    metrics_to_display = [
        ("allocated_bytes", "Allocated memory", _format_size),
        ("active_bytes", "Active memory", _format_size),
        ("requested_bytes", "Requested memory", _format_size),
        ("reserved_bytes", "GPU reserved memory", _format_size),
        ("inactive_split_bytes", "Non-releasable memory", _format_size),
        ("allocation", "Allocations", _format_count),
        ("active", "Active allocs", _format_count),
        ("segment", "GPU reserved segments", _format_count),
        ("inactive_split", "Non-releasable allocs", _format_count),
    ]
    lines = []
    lines.append("=" * 75)
    lines.append(" {_:16} PyTorch CUDA memory summary, device ID {device:<17d} ")
    lines.append("-" * 75)
    lines.append(
        "  {_:9} CUDA OOMs: {num_ooms:<12d} | {_:6} cudaMalloc retries: {num_alloc_retries:<8d}  "
    )
    lines.append("=" * 75)
    lines.append("        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  ")
    for metric_key, metric_name, formatter in metrics_to_display:
        lines.append("-" * 75)
        submetrics = [("all", metric_name)]
        if not abbreviated:
            submetrics.append(("large_pool", "      from large pool"))
            submetrics.append(("small_pool", "      from small pool"))
        # the "all" row's values choose the units of the pool rows below it
        prefvals: tuple[float, float, float, float] | None = None
        for submetric_key, submetric_name in submetrics:
            prefix = metric_key + "." + submetric_key + "."
            current = stats[prefix + "current"]
            peak = stats[prefix + "peak"]
            allocated = stats[prefix + "allocated"]
            freed = stats[prefix + "freed"]
            if prefvals is None:
                prefvals = (current, peak, allocated, freed)
            current_prefval, peak_prefval, allocated_prefval, freed_prefval = prefvals
            lines.append(
                f" {submetric_name:<21} | {formatter(current, current_prefval)} | "
                f"{formatter(peak, peak_prefval)} | "
                f"{formatter(allocated, allocated_prefval)} | "
                f"{formatter(freed, freed_prefval)} "
            )
    for metric_key, metric_name, formatter in [
        ("oversize_allocations", "Oversize allocations", _format_count),
        ("oversize_segments", "Oversize GPU segments", _format_count),
    ]:
        lines.append("-" * 75)
        prefix = metric_key + "."
        current = stats[prefix + "current"]
        peak = stats[prefix + "peak"]
        allocated = stats[prefix + "allocated"]
        freed = stats[prefix + "freed"]
        lines.append(
            f" {metric_name:<21} | {formatter(current, current)} | {formatter(peak, peak)} | "
            f"{formatter(allocated, allocated)} | {formatter(freed, freed)} "
        )
    lines.append("=" * 75)
    fmt_dict: dict[str, Any] = {"_": "", "device": device}
    for k, v in stats.items():
        fmt_dict[k.replace(".", "-")] = v
    return "|" + "|\n|".join(lines).format(**fmt_dict) + "|\n"


# ---- history and snapshots ---------------------------------------------------------------------
def _record_memory_history_legacy(
    enabled: bool,
    record_context: bool = True,
    trace_alloc_max_entries: int = 1,
    trace_alloc_record_context: bool = False,
    device: Any = None,
    record_context_cpp: bool = False,
    clear_history: bool = False,
    compile_context: bool = False,
    global_record_annotations: bool = False,
    skip_actions: list[str] | None = None,
) -> None:
    when = (
        RecordContext.ALLOC
        if trace_alloc_record_context
        else RecordContext.STATE
        if record_context
        else RecordContext.NEVER
    )
    allocator.recordHistory(
        enabled,
        when,
        trace_alloc_max_entries,
        "all" if record_context_cpp else "python",
        _checked_skip_actions(skip_actions),
        clear_history,
    )


def _checked_skip_actions(skip_actions: list[str] | None) -> frozenset[str]:
    for action in skip_actions or []:
        if action not in ACTIONS:
            raise RuntimeError(
                f"Invalid action type: {action}. Valid actions are: " + ", ".join(ACTIONS)
            )
    return frozenset(skip_actions or [])


def _record_memory_history(enabled: Any = "all", *args: Any, **kwargs: Any) -> None:
    """Record the allocator's history of allocs and frees, with the stacks that made them.

    enabled: None (stop), "state" (stacks of live blocks only) or "all" (also the history).
    context: None, "state", "alloc" or "all" (which steps keep a stack). stacks: "python" or
    "all" (the traced C++-named frames too). max_entries: the history's ring size.
    """
    if isinstance(enabled, bool):
        _record_memory_history_legacy(enabled, *args, **kwargs)
    else:
        _record_memory_history_impl(enabled, *args, **kwargs)


def _record_memory_history_impl(
    enabled: str | None = "all",
    context: str | None = "all",
    stacks: str = "all",
    max_entries: int = sys.maxsize,
    device: Any = None,
    clear_history: bool = False,
    compile_context: bool = False,
    global_record_annotations: bool = False,
    skip_actions: list[str] | None = None,
) -> None:
    if enabled is not None and enabled not in ("state", "all"):
        raise RuntimeError("expected state to be 'state', 'all', or None")
    if context is not None and context not in ("state", "alloc", "all"):
        raise RuntimeError("expected context to be 'state', 'alloc', 'all', or None")
    if stacks not in ("python", "all"):
        raise RuntimeError("expected stacks to be 'python', or 'all'")
    max_entries = max_entries if enabled == "all" else 1
    when = {
        None: RecordContext.NEVER,
        "state": RecordContext.STATE,
        "alloc": RecordContext.ALLOC,
        "all": RecordContext.ALL,
    }[context]
    allocator.recordHistory(
        enabled is not None,
        when,
        max_entries,
        stacks,
        _checked_skip_actions(skip_actions),
        clear_history,
    )


def _snapshot(device: Any = None, augment_with_fx_traces: bool = False) -> dict[str, Any]:
    """{"segments", "device_traces", "allocator_settings"}: the format memory_viz reads."""
    allocator.device_allocator_for(_get_device_index(device))
    segments, traces = allocator.snapshot()
    return {
        "segments": [_segment_dict(s) for s in segments],
        "device_traces": [[_trace_entry_dict(te) for te in trace] for trace in traces],
        "allocator_settings": _allocator_settings(),
    }


def memory_snapshot(mempool_id: Any = None, include_traces: bool = True) -> list[dict[str, Any]]:
    """The segments of every device, each with its blocks and their states."""
    return _snapshot()["segments"]


def _dump_snapshot(
    filename: str = "dump_snapshot.pickle", augment_with_fx_traces: bool = False
) -> None:
    """Pickle _snapshot() to `filename`, for pytorch.org/memory_viz or torch.cuda._memory_viz."""
    s = _snapshot(augment_with_fx_traces=augment_with_fx_traces)
    with open(filename, "wb") as f:
        pickle.dump(s, f)
