"""Thread-local included/excluded dispatch keys and the guards that change them.

Mirrors `c10/core/impl/LocalDispatchKeySet.h` and the guards in `c10/core/InferenceMode.h` /
`aten/src/ATen/core/LegacyTypeDispatch.h` (AutoDispatchBelowAutograd,
AutoDispatchBelowADInplaceOrView). An autograd kernel excludes the autograd keys while it calls
down, so the ops it calls inside go straight to the backend, as in PyTorch.
"""

from __future__ import annotations

import threading
from typing import Any

from tensortrace.c10.dispatch_key import (
    _INTERNED,
    DispatchKey,
    DispatchKeySet,
    autograd_dispatch_keyset,
    autograd_related_keys,
    interned_keyset,
)


class _LocalDispatchKeySet(threading.local):
    def __init__(self) -> None:
        self.included_ = DispatchKeySet()
        self.excluded_ = DispatchKeySet()


_tls = _LocalDispatchKeySet()


def tls_local_dispatch_key_set() -> _LocalDispatchKeySet:
    return _tls


class ExcludeDispatchKeyGuard:
    """Exclude `keys` for the duration of a `with` block (c10::impl::ExcludeDispatchKeyGuard)."""

    __slots__ = ("keys", "saved")

    def __init__(self, keys: DispatchKeySet | DispatchKey) -> None:
        self.keys = keys if isinstance(keys, DispatchKeySet) else DispatchKeySet(keys)

    def __enter__(self) -> None:
        self.saved = saved = _tls.excluded_
        mask = saved.repr_ | self.keys.repr_  # saved | keys, with no operator call
        _tls.excluded_ = _INTERNED.get(mask) or interned_keyset(mask)

    def __exit__(self, *exc: Any) -> None:
        _tls.excluded_ = self.saved


# The two guards every autograd kernel and factory binding enters: their keys are class
# attributes and their constructor object's own, so `with AutoDispatchBelowAutograd():` makes
# no Python call besides __enter__ and __exit__ (as the C++ guards are inlined).
class AutoDispatchBelowAutograd(ExcludeDispatchKeyGuard):
    __slots__ = ()
    __init__ = object.__init__  # type: ignore[assignment]
    keys = autograd_dispatch_keyset  # type: ignore[misc]


class AutoDispatchBelowADInplaceOrView(ExcludeDispatchKeyGuard):
    __slots__ = ()
    __init__ = object.__init__  # type: ignore[assignment]
    keys = autograd_related_keys  # type: ignore[misc]  # autograd keys + ADInplaceOrView
