"""Intrusive reference counting: the count lives in the object, the pointer bumps it.

Mirrors `c10/util/intrusive_ptr.h`. A TensorImpl and a StorageImpl each inherit
intrusive_ptr_target; every owning pointer to them is an intrusive_ptr. Copying a pointer
retains (refcount + 1); destroying or resetting one releases (refcount - 1); at zero the target's
`release_resources()` runs, which is where a TensorImpl lets go of its storage and a StorageImpl
returns its memory to the allocator.

Note [Python drives the refcounts]
In C++ an intrusive_ptr dies when its scope ends. Here an intrusive_ptr is a Python object, so
Python's own refcounting decides when it dies (`__del__` calls `reset_()`), which in CPython is
as deterministic as a C++ destructor. A plain Python reference to a pointer is a borrow, like a
C++ `const intrusive_ptr&`; only `intrusive_ptr.copy()` (a C++ copy) bumps the count.
"""

from __future__ import annotations

import _thread
import itertools
from typing import Any, Generic, TypeVar

from tensortrace.trace import recorder
from tensortrace.trace.schema import DECREF, DELETE, INCREF, MAKE_INTRUSIVE

# every intrusive_ptr_target's number ("TensorImpl#7"), in order of construction
object_ids = itertools.count(1)


class intrusive_ptr_target:  # PyTorch's name
    """The base of every refcounted object: the counts live here, inside the object."""

    __slots__ = ("refcount_", "weakcount_", "_id", "trace_name", "__weakref__")
    # whether a recording tracks objects of this class for the values capture: only a
    # TensorImpl's values are read (Note [Values beside the events], Note [Only TensorImpls
    # tracked])
    values_tracked_ = False

    def __init__(self) -> None:
        # Both start at 0; make_intrusive sets them to 1 (weakcount_ is 1 while refcount_ > 0).
        self.refcount_ = 0
        self.weakcount_ = 0
        self._id = next(object_ids)
        # the name the trace gives it ("TensorImpl#7"), read for every event that names it:
        # made once, spelled as schema.object_ref spells it (written out: no call per object)
        self.trace_name: str = f"{type(self).__name__}#{self._id}"

    def release_resources(self) -> None:
        """Called when the last strong reference goes; subclasses free what they hold."""

    def _trace_info(self) -> dict[str, object]:
        """Facts the trace records when the object is made (sizes, storage, bytes...)."""
        return {}

    def use_count(self) -> int:
        return self.refcount_


T = TypeVar("T", bound=intrusive_ptr_target)

# Note [Only TensorImpls tracked]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# While recording, make() and copy() add their target to `rec.tracked`, the WeakSet of objects
# the values capture may read (_trace_values.py). Only TensorImpls are read there, so only
# they are added (`values_tracked_`): a StorageImpl's weak reference, and the callback that
# removed it when the storage died, were work for nothing in every op.

# Note [Pointers made in C]
# make() and copy() run for every tensor, view and storage; `intrusive_ptr(target)` would run
# __init__ as a Python call each time. They make the object with object.__new__ (C) and set its
# one field, which is all __init__ does.
_new_pointer = object.__new__


class intrusive_ptr(Generic[T]):
    """An owning pointer to an intrusive_ptr_target. See Note [Python drives the refcounts]."""

    __slots__ = ("target_",)

    def __init__(self, target: T | None) -> None:
        # Adopts a reference that is already counted (intrusive_ptr::reclaim); use copy() to share.
        self.target_ = target

    @staticmethod
    def make(target: T) -> intrusive_ptr[T]:
        target.refcount_ = 1
        target.weakcount_ = 1
        if recorder.current is not None:
            rec = recorder.current
            name = target.trace_name
            rec.instant(
                MAKE_INTRUSIVE,
                "refcount",
                name,
                {
                    "object": name,
                    "refcount": 1,
                    "type": type(target).__name__,
                    **target._trace_info(),
                },
            )
            if target.values_tracked_:  # Note [Only TensorImpls tracked]
                rec.tracked.add(target)  # Note [Values beside the events]
            rec.changed.add(target)  # Note [What a step may have changed]
        ptr = _new_pointer(intrusive_ptr)  # intrusive_ptr(target): Note [Pointers made in C]
        ptr.target_ = target
        return ptr

    def get(self) -> T:
        target = self.target_
        if target is None:
            raise RuntimeError("intrusive_ptr is null")
        return target

    def defined(self) -> bool:
        return self.target_ is not None

    def copy(self) -> intrusive_ptr[T]:
        """The copy constructor: a second owner, so the count goes up (retain_)."""
        target = self.target_
        if target is not None:
            target.refcount_ += 1
            if recorder.current is not None:
                rec = recorder.current
                name = target.trace_name
                rec.instant(
                    INCREF, "refcount", name, {"object": name, "refcount": target.refcount_}
                )
                if target.values_tracked_:  # made before the trace, maybe
                    rec.tracked.add(target)  # Note [Only TensorImpls tracked]
                rec.changed.add(target)
        ptr = _new_pointer(intrusive_ptr)  # intrusive_ptr(target): Note [Pointers made in C]
        ptr.target_ = target
        return ptr

    def reset_(self) -> None:
        """Drop this owner; at zero, release the target's resources (intrusive_ptr::reset_)."""
        target = self.target_
        if target is None:
            return
        self.target_ = None
        refcount = target.refcount_ = target.refcount_ - 1
        rec = recorder.current
        if rec is not None:
            name = target.trace_name
            rec.instant(DECREF, "refcount", name, {"object": name, "refcount": refcount})
        if refcount == 0:
            target.weakcount_ -= 1
            target.release_resources()
            if rec is not None:
                rec.instant(DELETE, "refcount", name, {"object": name})

    reset = reset_

    def __del__(self) -> None:
        # At interpreter shutdown module globals may already be gone; nothing to report then.
        target = self.target_
        if target is None:  # a null or already reset pointer: nothing to release
            return
        try:
            # reset_(), written out: every handle's death runs this (one call fewer each)
            self.target_ = None
            refcount = target.refcount_ = target.refcount_ - 1
            rec = recorder.current
            if rec is not None:
                name = target.trace_name
                rec.instant(DECREF, "refcount", name, {"object": name, "refcount": refcount})
            if refcount == 0:
                target.weakcount_ -= 1
                target.release_resources()
                if rec is not None:
                    rec.instant(DELETE, "refcount", name, {"object": name})
        except KeyboardInterrupt:
            # Python prints and drops whatever __del__ raises: re-deliver Ctrl-C to the main
            # thread so that it still stops the program
            _thread.interrupt_main()
        except Exception:  # pragma: no cover - only during interpreter teardown
            pass

    def __repr__(self) -> str:
        target = self.target_
        return f"intrusive_ptr({target.trace_name if target else 'null'})"


def make_intrusive(cls: type[T], *args: Any, **kwargs: Any) -> intrusive_ptr[T]:
    """c10::make_intrusive<T>(args...): construct T and hand back its first owner."""
    return intrusive_ptr.make(cls(*args, **kwargs))
