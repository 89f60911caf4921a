"""The state at one step, as objects a reader (or a test) can ask questions of.

`State` is what the Timeline hands back for a step: the open call stack with each frame's
arguments and PyTorch counterpart, the live Python handles, TensorImpls and StorageImpls (with
refcounts, as in seed 001's Tensor -> TensorImpl -> StorageImpl -> DataPtr picture) and the
allocator's blocks. No PyTorch counterpart: PyTorch keeps this state, it does not replay it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, overload

from tensortrace.replay.allocator_blocks import Block, Segment
from tensortrace.replay.persistent import PMap

V = TypeVar("V")

MAX_TEXT = 120
MAX_DIMS = 8


def shorten(text: str, limit: int = MAX_TEXT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def dims(values: list[int], limit: int = MAX_DIMS) -> str:
    """`[3, 4]`; a long shape is summarized, never printed whole."""
    if len(values) <= limit:
        return "[" + ", ".join(str(v) for v in values) + "]"
    head = ", ".join(str(v) for v in values[: limit - 2])
    return f"[{head}, …, {values[-1]}] ({len(values)} dims)"


@dataclass(frozen=True)
class StackFrame:
    """An open frame: who it is here and in PyTorch, and what it was called with."""

    begin: int  # the BEGIN event's index
    name: str
    layer: str
    args: dict[str, str]
    source: str
    symbol: str
    legacy: str | None
    details: dict[str, str] = field(default_factory=dict)  # dispatch key set, kernel

    def args_text(self) -> str:
        return shorten(", ".join(f"{k}={v}" for k, v in self.args.items()))


@dataclass(frozen=True)
class HandleInfo:
    """A live Python tensor handle (a THPVariable) and the TensorImpl it owns."""

    id: int
    name: str
    impl: int | None

    @property
    def label(self) -> str:
        return self.name


@dataclass(frozen=True)
class TensorImplInfo:
    id: int
    sizes: list[int]
    strides: list[int]
    offset: int
    dtype: str
    itemsize: int
    storage: int | None
    refcount: int
    is_view: bool
    view_of: int | None

    @property
    def label(self) -> str:
        return f"TensorImpl#{self.id}"

    def describe(self) -> str:
        view = f", view of TensorImpl#{self.view_of}" if self.view_of is not None else ""
        return (
            f"sizes={dims(self.sizes)} strides={dims(self.strides)} offset={self.offset} "
            f"{self.dtype}{view}"
        )


@dataclass(frozen=True)
class StorageImplInfo:
    id: int
    nbytes: int
    addr: int
    device: str
    refcount: int
    tensors: tuple[int, ...]  # the live TensorImpls that share it

    @property
    def label(self) -> str:
        return f"StorageImpl#{self.id}"


@dataclass(frozen=True)
class BlockInfo:
    """An allocator block as seen at the step: live, or freed earlier."""

    addr: int
    bytes: int
    device: str
    alloc_step: int
    free_step: int | None
    storage: int | None
    live: bool

    @classmethod
    def of(cls, block: Block, step: int) -> BlockInfo:
        return cls(
            block.addr,
            block.bytes,
            block.device,
            block.alloc_step,
            block.free_step if block.free_step is not None and block.free_step <= step else None,
            block.storage,
            block.live_at(step),
        )


@dataclass(frozen=True)
class SegmentBlockInfo:
    """A block of a caching allocator's segment at the step, by its offset in the segment.

    `state` is "allocated" (a tensor holds it), "pending" (freed, but waiting on another
    stream's work: torch's active_pending_free) or "cached" (free, kept for reuse: inactive).
    A cached block is the free space between held blocks: try_merge_blocks keeps free neighbours
    merged, so each gap is one block. `split_remainder` marks a cached block of a split segment.
    """

    offset: int
    bytes: int
    state: str
    storage: int | None = None
    from_cache: bool | None = None  # for a held block: was the request served from the cache
    alloc_step: int | None = None

    @property
    def split_remainder(self) -> bool:
        return self.state == "cached"


@dataclass(frozen=True)
class SegmentInfo:
    """A segment (one cudaMalloc) at the step, with its blocks in address order."""

    addr: int
    bytes: int
    device: str
    pool: str
    alloc_step: int
    blocks: list[SegmentBlockInfo]

    @property
    def allocated(self) -> int:
        return sum(b.bytes for b in self.blocks if b.state == "allocated")

    @property
    def split(self) -> bool:
        return len(self.blocks) > 1

    @classmethod
    def at(cls, segment: Segment, blocks: list[Block], step: int) -> SegmentInfo:
        end = segment.addr + segment.bytes
        held = sorted(
            (
                b
                for b in blocks
                if segment.addr <= b.addr < end and b.device == segment.device and b.holds_at(step)
            ),
            key=lambda b: b.addr,
        )
        out: list[SegmentBlockInfo] = []
        cursor = segment.addr
        for b in held:
            if b.addr > cursor:
                out.append(SegmentBlockInfo(cursor - segment.addr, b.addr - cursor, "cached"))
            out.append(
                SegmentBlockInfo(
                    b.addr - segment.addr,
                    b.bytes,
                    "allocated" if b.live_at(step) else "pending",
                    b.storage,
                    b.from_cache,
                    b.alloc_step,
                )
            )
            cursor = b.addr + b.bytes
        if cursor < end:
            out.append(SegmentBlockInfo(cursor - segment.addr, end - cursor, "cached"))
        return cls(
            segment.addr, segment.bytes, segment.device, segment.pool, segment.alloc_step, out
        )


class RowMap(Mapping[int, V]):
    """A read-only mapping over one persistent table: an info object is made when it is read,
    so a seek costs nothing per live object (Note [A seek does not grow with the trace])."""

    __slots__ = ("_rows", "_make")

    def __init__(self, rows: PMap, make: Callable[[int, dict[str, Any]], V]) -> None:
        self._rows = rows
        self._make = make

    def __getitem__(self, key: object) -> V:
        row = self._rows.get(key) if type(key) is int and key >= 0 else None
        if row is None:
            raise KeyError(key)
        return self._make(key, row)  # type: ignore[arg-type]

    def __iter__(self) -> Iterator[int]:
        return self._rows.keys()

    def __len__(self) -> int:
        return len(self._rows)

    def items(self) -> Iterator[tuple[int, V]]:  # type: ignore[override]
        make = self._make
        return ((k, make(k, row)) for k, row in self._rows.items())

    def values(self) -> Iterator[V]:  # type: ignore[override]
        make = self._make
        return (make(k, row) for k, row in self._rows.items())

    def __repr__(self) -> str:
        return repr(dict(self.items()))


class BlockList(Sequence[BlockInfo]):
    """Every block allocated up to a step (a prefix of `Compiled.blocks`), read lazily; `live`
    lists the blocks allocated at the step from the seek's table, without walking the rest."""

    __slots__ = ("_blocks", "_count", "_step", "_live")

    def __init__(self, blocks: list[Block], count: int, step: int, live: PMap) -> None:
        self._blocks, self._count, self._step, self._live = blocks, count, step, live

    @overload
    def __getitem__(self, index: int) -> BlockInfo: ...
    @overload
    def __getitem__(self, index: slice) -> list[BlockInfo]: ...
    def __getitem__(self, index: int | slice) -> BlockInfo | list[BlockInfo]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._count))]
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError("block index out of range")
        return BlockInfo.of(self._blocks[index], self._step)

    def __len__(self) -> int:
        return self._count

    @property
    def live(self) -> list[BlockInfo]:
        return [BlockInfo.of(self._blocks[i], self._step) for i in self._live.keys()]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(list(self))


@dataclass(frozen=True)
class State:
    """Everything alive at `step` (after the event at `step` has happened)."""

    step: int
    event: str  # one line describing the event at `step`
    stack: list[StackFrame]
    handles: Mapping[int, HandleInfo]
    tensors: Mapping[int, TensorImplInfo]
    storages: Mapping[int, StorageImplInfo]
    blocks: Sequence[BlockInfo]  # every block allocated so far, live or freed
    allocated: int  # the allocator's total, bytes
    # the caching allocator's segments alive at the step, and per CUDA device its totals:
    # {"cuda:0": {"allocated": bytes, "reserved": bytes}}
    segments: list[SegmentInfo] = field(default_factory=list)
    devices: dict[str, dict[str, int]] = field(default_factory=dict)

    def object(self, label: str) -> Any:
        """Look an object up by its display label: `TensorImpl#1`, `StorageImpl#2`, `_t1`."""
        kind, _, number = label.partition("#")
        if kind == "TensorImpl":
            return self.tensors.get(int(number))
        if kind == "StorageImpl":
            return self.storages.get(int(number))
        for handle in self.handles.values():
            if handle.name == label:
                return handle
        return None

    @property
    def live_blocks(self) -> list[BlockInfo]:
        if isinstance(self.blocks, BlockList):
            return self.blocks.live
        return [b for b in self.blocks if b.live]

    def block_of(self, storage: int) -> BlockInfo | None:
        info = self.storages.get(storage)
        if info is None:
            return None
        for block in reversed(self.live_blocks):
            if block.live and block.addr == info.addr:
                return block
        return None
