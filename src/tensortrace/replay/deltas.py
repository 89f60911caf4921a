"""The replay's object tables and the deltas that change them, shared with the JavaScript player.

No PyTorch counterpart (see replay/state.py): the state at a step is four tables (Python
handles, TensorImpls, StorageImpls, a global row) and each event a tuple of small deltas on
them. The letters below are the payload's vocabulary too (payload.py, the player's JavaScript
applies the same deltas), so both replays stay equal.
"""

from __future__ import annotations

from typing import Any

# Table letters, shared with the JavaScript player: h = Python handles, t = TensorImpls,
# s = StorageImpls, g = globals (key 0 holds {"allocated": bytes}).
HANDLES, TENSORS, STORAGES, GLOBALS = "h", "t", "s", "g"
TABLES = (HANDLES, TENSORS, STORAGES, GLOBALS)
# Delta ops: n = new row (full fields), u = update fields (creating the row if missing), d = drop.
NEW, UPDATE, DROP = "n", "u", "d"

Delta = tuple[str, str, int, dict[str, Any]]
Tables = dict[str, dict[int, dict[str, Any]]]


def empty_tables() -> Tables:
    return {table: {} for table in TABLES}


def apply_delta(tables: Tables, delta: Delta) -> None:
    op, table, key, fields = delta
    rows = tables[table]
    if op == NEW:
        rows[key] = dict(fields)
    elif op == UPDATE:
        row = rows.get(key)
        if row is None:
            rows[key] = dict(fields)
        else:
            row.update(fields)
    else:
        rows.pop(key, None)
