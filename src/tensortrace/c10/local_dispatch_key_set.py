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
    DispatchKey,
    DispatchKeySet,
    autograd_dispatch_keyset,
    autograd_related_keys,
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
        self.saved = _tls.excluded_
        _tls.excluded_ = self.saved | self.keys

    def __exit__(self, *exc: Any) -> None:
        _tls.excluded_ = self.saved


def AutoDispatchBelowAutograd() -> ExcludeDispatchKeyGuard:
    return ExcludeDispatchKeyGuard(autograd_dispatch_keyset)


def AutoDispatchBelowADInplaceOrView() -> ExcludeDispatchKeyGuard:
    return ExcludeDispatchKeyGuard(autograd_related_keys)  # autograd keys + ADInplaceOrView
