"""A persistent map from small non-negative ints to values: the replay's checkpoints share it.

No PyTorch counterpart. The Timeline keeps a snapshot of its tables every K events; copying the
whole state each time grows as (live objects) x (events / K), quadratic when live tensors keep
growing. Here a table is a 32-way trie keyed by the display id (ids are dense: 1, 2, 3, ...), and
a snapshot is its root: an edit copies only the path to the key it changes, and only once per
`Editor` (a transient, as Clojure's persistent vectors do), so consecutive snapshots share every
node the events between them did not touch.

`None` means "absent": the values stored are rows (dicts), tuples or True, never None.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

BITS = 5
WIDTH = 1 << BITS
MASK = WIDTH - 1

# A node is a list of WIDTH + 1 slots: slot 0 is the Editor that owns it (may edit it in place),
# slots 1..WIDTH its children (inner nodes) or values (leaves).
Node = list[Any]


def _node(owner: object) -> Node:
    node: Node = [None] * (WIDTH + 1)
    node[0] = owner
    return node


class PMap:
    """An immutable snapshot: `get`, `items` (in key order), `len`. Edit through `Editor`."""

    __slots__ = ("root", "shift", "count")

    def __init__(self, root: Node | None = None, shift: int = 0, count: int = 0) -> None:
        self.root = root
        self.shift = shift  # the root's level: keys below 1 << (shift + BITS) fit
        self.count = count

    def get(self, key: int) -> Any:
        node = self.root
        if node is None or key >> (self.shift + BITS):
            return None
        shift = self.shift
        while shift:
            node = node[((key >> shift) & MASK) + 1]
            if node is None:
                return None
            shift -= BITS
        return node[(key & MASK) + 1]

    def __len__(self) -> int:
        return self.count

    def items(self) -> Iterator[tuple[int, Any]]:
        """(key, value) in increasing key order; empty subtrees are pruned, never walked."""
        if self.root is None:
            return
        stack: list[tuple[Node, int, int]] = [(self.root, self.shift, 0)]
        while stack:
            node, shift, base = stack.pop()
            if shift == 0:
                for i in range(1, WIDTH + 1):
                    value = node[i]
                    if value is not None:
                        yield base + i - 1, value
                continue
            for i in range(WIDTH, 0, -1):  # pushed in reverse so they pop in order
                child = node[i]
                if child is not None:
                    stack.append((child, shift - BITS, base + ((i - 1) << shift)))

    def keys(self) -> Iterator[int]:
        return (key for key, _ in self.items())

    def edit(self) -> Editor:
        return Editor(self)


class Editor:
    """A transient over a PMap: edits copy a node the first time they touch it, then write it
    in place. `snapshot()` hands back a PMap and starts copying afresh, so the snapshot never
    changes afterwards."""

    __slots__ = ("root", "shift", "count", "token")

    def __init__(self, base: PMap) -> None:
        self.root = base.root
        self.shift = base.shift
        self.count = base.count
        self.token = object()  # the nodes this editor made, and may write in place

    def snapshot(self) -> PMap:
        frozen = PMap(self.root, self.shift, self.count)
        self.token = object()  # from now on the snapshot's nodes are copied before a write
        return frozen

    def get(self, key: int) -> Any:
        return PMap(self.root, self.shift, self.count).get(key)

    def set(self, key: int, value: Any) -> None:
        """Store `value` (None deletes) under `key`."""
        if value is None:
            self.delete(key)
            return
        token = self.token
        if self.root is None:
            self.root = _node(token)
            self.shift = 0
        while key >> (self.shift + BITS):  # grow: the old root becomes child 0
            root = _node(token)
            root[1] = self.root
            self.root = root
            self.shift += BITS
        node = self.root = self._owned(self.root, token)
        shift = self.shift
        while shift:
            slot = ((key >> shift) & MASK) + 1
            child = node[slot]
            child = _node(token) if child is None else self._owned(child, token)
            node[slot] = child
            node = child
            shift -= BITS
        slot = (key & MASK) + 1
        if node[slot] is None:
            self.count += 1
        node[slot] = value

    def delete(self, key: int) -> None:
        if self.root is None or key >> (self.shift + BITS) or self.get(key) is None:
            return
        token = self.token
        path: list[tuple[Node, int]] = []
        node = self.root = self._owned(self.root, token)
        shift = self.shift
        while shift:
            slot = ((key >> shift) & MASK) + 1
            child = node[slot] = self._owned(node[slot], token)
            path.append((node, slot))
            node = child
            shift -= BITS
        node[(key & MASK) + 1] = None
        self.count -= 1
        # prune emptied nodes so that iteration never walks dead subtrees
        while path and not any(node[1:]):
            parent, slot = path.pop()
            parent[slot] = None
            node = parent
        if not any(self.root[1:]):
            self.root, self.shift = None, 0

    @staticmethod
    def _owned(node: Node, token: object) -> Node:
        if node[0] is token:
            return node
        copy = node[:]
        copy[0] = token
        return copy
