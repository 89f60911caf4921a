"""Full garbage collections deferred while a trace records.

Note [Full collections deferred while recording]
A recording makes several small containers per event (the Event tuple, its args dict, a
tensor's summary dict and sizes list), and they outlive many collections, so CPython promotes
them to its oldest generation. Every time enough objects have been promoted there, a full
collection walks every tracked object of the process: the runtime's ~100,000 (its functions,
schemas, dispatch tables) and every event recorded so far. Measured on the seed expression,
one such pass every few hundred recordings cost as much as 20% of the traced time; in a
10,000-event recording, three passes cost more than recording itself.

So while a trace records, the oldest generation's threshold is set out of reach and restored
when the recording stops: the young collections still run and free the cyclic garbage a
program makes (most of it dies young); cycles that survive two of them wait for the first full
collection after the recording. The runtime's own structures hold no cycles that matter here
(refcounts free its tensors, as PyTorch's intrusive pointers do). trace/format.py pauses the
collector outright while it builds a million acyclic objects, for the same reason.
CPython 3.14's incremental collector ignores the third threshold, so there this changes nothing.
"""

from __future__ import annotations

import gc

# a count of young collections the oldest generation waits for: never reached in a recording
_OUT_OF_REACH = 2**30

# the thresholds in force when the recording started, and the ones set for it
_saved: tuple[int, ...] | None = None
_deferred: tuple[int, ...] | None = None


def defer_full_collections() -> None:
    """Called as a recording starts (recorder.start)."""
    global _saved, _deferred
    thresholds = gc.get_threshold()
    if len(thresholds) != 3 or thresholds[2] == 0:
        return
    _saved, _deferred = thresholds, (thresholds[0], thresholds[1], _OUT_OF_REACH)
    gc.set_threshold(*_deferred)


def restore_full_collections() -> None:
    """Called as the recording stops: the thresholds it found, unless the program set its own
    while it ran (then those stay)."""
    global _saved, _deferred
    if _saved is not None and gc.get_threshold() == _deferred:
        gc.set_threshold(*_saved)
    _saved = _deferred = None
