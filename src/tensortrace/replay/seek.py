"""Seeking: the state at any step from the nearest checkpoint plus at most K events of deltas.

No PyTorch counterpart (see state.py). The checkpoints are snapshots of persistent maps
(`persistent.py`): a checkpoint costs what the K events before it changed, not the whole state,
so memory stays linear in the trace even when live tensors keep growing, and a seek costs K
events of path copies whatever the trace's length. Besides the delta tables the player also
has (h, t, s, g), two tables are kept for the Python side only, so that a seek never walks the
whole trace: the allocator blocks live at the step (by index into `Compiled.blocks`) and, per
StorageImpl, the live TensorImpls that share it.
"""

from __future__ import annotations

from bisect import insort
from dataclasses import dataclass

from tensortrace.replay.deltas import DROP, NEW, TABLES, TENSORS, Delta, Tables
from tensortrace.replay.persistent import Editor, PMap
from tensortrace.replay.state import Compiled

LIVE_BLOCKS = "blocks"  # block index -> True while the block is allocated
SHARES = "shares"  # storage display id -> sorted tuple of the live TensorImpls using it
_ALL = (*TABLES, LIVE_BLOCKS, SHARES)


@dataclass(frozen=True)
class Snapshot:
    """The persistent tables after one step; nothing in it is ever mutated."""

    maps: dict[str, PMap]

    def tables(self) -> Tables:
        """As plain dicts (what the payload's decoder computes), for tests and callers of
        `Timeline.tables_at`."""
        return {table: {k: dict(row) for k, row in self.maps[table].items()} for table in TABLES}


class _Replayer:
    """Editors over every table, applying one event's deltas and block changes at a time."""

    def __init__(self, base: Snapshot | None) -> None:
        self.editors: dict[str, Editor] = {
            name: (base.maps[name] if base else PMap()).edit() for name in _ALL
        }

    def apply(self, deltas: tuple[Delta, ...], blocks: list[tuple[int, bool]] | None) -> None:
        for op, table, key, fields in deltas:
            editor = self.editors[table]
            old = editor.get(key)
            if op == NEW:
                row = dict(fields)
            elif op == DROP:
                row = None
            else:  # UPDATE: a new row, since a snapshot may share the old one
                row = dict(old) if old is not None else {}
                row.update(fields)
            editor.set(key, row)
            if table == TENSORS:
                self._share(key, old, row)
        if blocks:
            live = self.editors[LIVE_BLOCKS]
            for index, alive in blocks:
                live.set(index, True if alive else None)

    def _share(self, tensor: int, old: dict | None, new: dict | None) -> None:
        before = old.get("storage") if old is not None else None
        after = new.get("storage") if new is not None else None
        if before == after and (old is None) == (new is None):
            return
        shares = self.editors[SHARES]
        if old is not None and before is not None:
            users = tuple(t for t in shares.get(before) or () if t != tensor)
            shares.set(before, users or None)
        if new is not None and after is not None:
            users_list = list(shares.get(after) or ())
            if tensor not in users_list:
                insort(users_list, tensor)
            shares.set(after, tuple(users_list))

    def snapshot(self) -> Snapshot:
        return Snapshot({name: editor.snapshot() for name, editor in self.editors.items()})


class Checkpoints:
    """A snapshot before every K-th event; `at(step)` replays the rest (fewer than K events)."""

    def __init__(self, compiled: Compiled, every: int) -> None:
        self.compiled = compiled
        self.every = every
        # per step, the blocks it allocates (True) or frees (False)
        self.block_changes: dict[int, list[tuple[int, bool]]] = {}
        for index, block in enumerate(compiled.blocks):
            self.block_changes.setdefault(block.alloc_step, []).append((index, True))
            if block.free_step is not None:
                self.block_changes.setdefault(block.free_step, []).append((index, False))
        replayer = _Replayer(None)
        self.snapshots = [replayer.snapshot()]  # snapshots[j]: before event j * K
        changes = self.block_changes
        for index, deltas in enumerate(compiled.deltas):
            if deltas or index in changes:
                replayer.apply(deltas, changes.get(index))
            if (index + 1) % every == 0:
                self.snapshots.append(replayer.snapshot())

    def __len__(self) -> int:
        return len(self.snapshots)

    def at(self, step: int) -> Snapshot:
        """The tables after `step` (0 <= step < number of events)."""
        j = (step + 1) // self.every
        start = j * self.every
        if start == step + 1:
            return self.snapshots[j]
        replayer = _Replayer(self.snapshots[j])
        deltas, changes = self.compiled.deltas, self.block_changes
        for index in range(start, step + 1):
            replayer.apply(deltas[index], changes.get(index))
        return replayer.snapshot()
