"""The trace's event model: frames (a call with a beginning and an end) and instants.

Mirrors the records that `aten/src/ATen/record_function.h` and the profiler's collection
(`torch/csrc/profiler/collection.h`) keep: a frame is a RecordFunction scope, an instant is a
memory report or a refcount change. Everything here is plain data (str, int, float, dict, list)
so that a Trace saves to JSON and loads back unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# The layers a frame can belong to, from the outside in (see DESIGN.md, "The trace").
LAYERS: tuple[str, ...] = (
    "python",
    "dispatch",
    "autograd",
    "native",
    "kernel",
    "allocator",
    "refcount",
)

BEGIN = "B"
END = "E"
INSTANT = "i"


@dataclass(frozen=True, slots=True)
class FrameSite:
    """The static description of a traced function: who it is in tensortrace and in PyTorch.

    `source` is the file in PyTorch's tree and `symbol` the C++ symbol it models; `legacy` is the
    name the July 2019 call stack (seed 000) gives the same step, when it differs.
    """

    layer: str
    name: str
    source: str
    symbol: str
    legacy: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "layer": self.layer,
            "name": self.name,
            "source": self.source,
            "symbol": self.symbol,
            "legacy": self.legacy,
        }


@dataclass(slots=True)
class Event:
    """One step of the timeline.

    `ph` is BEGIN, END or INSTANT (Chrome's phase letters). Frames carry `site`; instants carry a
    `kind` ("alloc", "free", "incref", "decref", "release", "make_intrusive", "handle_new",
    "handle_del") and their facts in `args`. `depth` is the call depth at the event, on its own
    thread. `tid` is 0 for the thread that opened the trace, else the native id of the thread
    that ran the event (torch.profiler's events carry their thread's id too).

    The CUDA caching allocator adds to "alloc" / "free" the device's `total_reserved`,
    `device_type` 1, `device_id`, the block's `segment`, `stream`, `requested` bytes and
    `from_cache` (alloc) or `deferred` (free), and records "segment_alloc" / "segment_free"
    (cudaMalloc / cudaFree: addr, bytes, device, pool, stream, total_reserved), "split" (addr,
    bytes, remainder_addr, remainder_bytes, segment), "free_completed" (addr, bytes, device) and
    "oom" (bytes, device, device_free, total_allocated, total_reserved).
    """

    ph: str
    name: str
    layer: str
    ts_ns: int
    depth: int
    site: int = -1  # index into Trace.sites, for frames
    kind: str = ""
    args: dict[str, Any] = field(default_factory=dict)
    tid: int = 0

    def to_json(self) -> list[Any]:
        row = [self.ph, self.name, self.layer, self.ts_ns, self.depth, self.site, self.kind,
               self.args]
        if self.tid:  # only events of other threads carry a ninth column
            row.append(self.tid)
        return row

    @classmethod
    def from_json(cls, row: list[Any]) -> Event:
        ph, name, layer, ts_ns, depth, site, kind, args, *rest = row
        return cls(ph, name, layer, ts_ns, depth, site, kind, args, rest[0] if rest else 0)
