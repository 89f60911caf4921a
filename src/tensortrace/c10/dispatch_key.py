"""DispatchKey and DispatchKeySet: which kernel of an operator runs, decided by priority.

Mirrors `c10/core/DispatchKey.h` and `c10/core/DispatchKeySet.h`. Keys are ordered by priority
(a higher value is tried first), in the same relative order as PyTorch's. Only the keys this
runtime uses are modelled: the CPU and CUDA backends (and Meta), BackendSelect, Conjugate,
Negative, FuncTorchBatched and FuncTorchVmapMode (torch.func.vmap), ADInplaceOrView, the
autograd keys and the autocast keys (AutocastCPU, AutocastCUDA: above autograd, so autocast casts
before autograd records), plus the alias keys that
native_functions.yaml may register kernels under.
The per-backend keys keep BackendComponent's order (CPUBit < CUDABit < MetaBit), so a set holding
CPU and CUDA picks CUDA, as c10 does.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from enum import IntEnum


class DispatchKey(IntEnum):
    Undefined = 0
    # backend keys (lowest priority: the kernel that touches data)
    CPU = 1
    CUDA = 2
    Meta = 3
    # functionality keys, in PyTorch's order
    BackendSelect = 4
    Conjugate = 5  # the conj bit: a tensor whose values read as their conjugates
    Negative = 6  # the neg bit: values read negated (the imag of a conjugate view)
    # vmap's BatchedTensorImpl: below autograd here, above it in PyTorch (Note [vmap below
    # autograd] in aten/functorch/batched_tensor_impl.py)
    FuncTorchBatched = 7
    ADInplaceOrView = 8
    AutogradOther = 9
    AutogradCPU = 10
    AutogradCUDA = 11
    AutogradMeta = 12
    AutocastCPU = 13  # after Tracer in PyTorch's order, which this runtime does not model
    AutocastCUDA = 14
    # in the thread-local included set while a vmap runs: random ops see their randomness mode
    FuncTorchVmapMode = 15
    # alias keys: registration targets that fill several runtime keys (not runtime keys)
    Autograd = 100
    CompositeImplicitAutograd = 101
    CompositeExplicitAutograd = 102
    CompositeExplicitAutogradNonFunctional = 103

    def __str__(self) -> str:
        return self.name

    def is_alias(self) -> bool:
        return self >= DispatchKey.Autograd


RUNTIME_KEYS: tuple[DispatchKey, ...] = tuple(
    k for k in DispatchKey if 0 < k < DispatchKey.Autograd
)
# DispatchKey(n) goes through EnumMeta.__call__ (~1 us); the dispatcher asks on every call.
_KEY_BY_INDEX: dict[int, DispatchKey] = {k.value: k for k in DispatchKey}
# str(key) goes through Enum.name (two Python calls); the trace asks for it on every dispatch.
KEY_NAMES: dict[DispatchKey, str] = {k: k.name for k in DispatchKey}


def key_at_index(index: int) -> DispatchKey:
    """DispatchKey(index) for a bit index of a key set, by table lookup."""
    return _KEY_BY_INDEX[index]


class DispatchKeySet:
    """A set of runtime dispatch keys, stored as a bitmask like c10::DispatchKeySet."""

    __slots__ = ("repr_",)

    def __init__(self, keys: Iterable[DispatchKey] | DispatchKey | int = 0) -> None:
        if type(keys) is int:  # a raw mask (what the set operators pass): the hot path
            self.repr_ = keys
        elif isinstance(keys, DispatchKey):
            self.repr_ = 1 << keys
        elif isinstance(keys, int):
            self.repr_ = keys
        else:
            mask = 0
            for k in keys:
                mask |= 1 << k
            self.repr_ = mask

    def has(self, k: DispatchKey) -> bool:
        return bool(self.repr_ & (1 << k))

    def add(self, k: DispatchKey) -> DispatchKeySet:
        mask = self.repr_ | (1 << k)
        return _INTERNED.get(mask) or interned_keyset(mask)

    def remove(self, k: DispatchKey) -> DispatchKeySet:
        mask = self.repr_ & ~(1 << k)
        return _INTERNED.get(mask) or interned_keyset(mask)

    def __or__(self, other: DispatchKeySet) -> DispatchKeySet:
        mask = self.repr_ | other.repr_
        return _INTERNED.get(mask) or interned_keyset(mask)

    def __and__(self, other: DispatchKeySet) -> DispatchKeySet:
        mask = self.repr_ & other.repr_
        return _INTERNED.get(mask) or interned_keyset(mask)

    def __sub__(self, other: DispatchKeySet) -> DispatchKeySet:
        mask = self.repr_ & ~other.repr_
        return _INTERNED.get(mask) or interned_keyset(mask)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DispatchKeySet) and self.repr_ == other.repr_

    def __hash__(self) -> int:
        return self.repr_

    def empty(self) -> bool:
        return self.repr_ == 0

    def highestPriorityTypeId(self) -> DispatchKey:
        if self.repr_ == 0:
            return DispatchKey.Undefined
        return _KEY_BY_INDEX[self.repr_.bit_length() - 1]

    def __iter__(self) -> Iterator[DispatchKey]:
        """Keys from the highest priority down, the order the dispatcher tries them."""
        return iter([k for k in reversed(RUNTIME_KEYS) if self.has(k)])

    def __repr__(self) -> str:
        text = KEYSET_REPRS.get(self.repr_)
        if text is None:  # a set is immutable: its text is made once per mask
            text = KEYSET_REPRS[self.repr_] = (
                "DispatchKeySet(" + ", ".join(str(k) for k in reversed(list(self))) + ")"
            )
        return text

    def _trace_summary(self) -> str:
        return KEYSET_REPRS.get(self.repr_) or repr(self)


# Note [Interned key sets]
# A DispatchKeySet is immutable and there are only a few dozen masks in use, so the sets the
# dispatcher and the set operators make are interned: one object per mask, made once, as cheap
# to hand out as the uint64 c10 passes around. `DispatchKeySet(...)` still makes a new one.
_INTERNED: dict[int, DispatchKeySet] = {}
KEYSET_REPRS: dict[int, str] = {}  # repr() of each mask's set, made once (the trace's text)


def interned_keyset(mask: int) -> DispatchKeySet:
    """The one shared DispatchKeySet of `mask` (hot callers try `_INTERNED.get` first)."""
    ks = _INTERNED.get(mask)
    if ks is None:
        ks = _INTERNED[mask] = DispatchKeySet(mask)
    return ks


# DispatchKeySet(key) for each single key, interned: BackendSelect redispatches every factory
# call to the one backend key it computed
SINGLE_KEY_SETS: dict[DispatchKey, DispatchKeySet] = {
    k: interned_keyset(1 << k) for k in DispatchKey
}


def _below(key: DispatchKey) -> DispatchKeySet:
    return DispatchKeySet((1 << key) - 1)


autograd_dispatch_keyset = DispatchKeySet(
    [
        DispatchKey.AutogradCPU,
        DispatchKey.AutogradCUDA,
        DispatchKey.AutogradMeta,
        DispatchKey.AutogradOther,
    ]
)
# What is left for a kernel to redispatch to once autograd (or ADInplaceOrView) has had its turn.
after_autograd_keyset = _below(DispatchKey.AutogradOther)
after_ADInplaceOrView_keyset = _below(DispatchKey.ADInplaceOrView)
# BackendSelect and ADInplaceOrView are always candidates; their fallthroughs skip them.
default_included_set = DispatchKeySet([DispatchKey.BackendSelect, DispatchKey.ADInplaceOrView])
autograd_related_keys = autograd_dispatch_keyset.add(DispatchKey.ADInplaceOrView)


# Note [Autocast keys in the local include set]
# In PyTorch every TensorImpl carries its backend's autocast key
# (getAutocastRelatedKeySetFromBackend), the thread-local *excluded* set holds all the autocast
# keys by default (default_excluded_set), and set_autocast_enabled(device, True) takes that
# device's key out of it. Here tensors carry no autocast key and set_autocast_enabled puts the
# key into the thread-local *included* set instead (aten/autocast_mode.py). The key sets a
# dispatch computes are the same while autocast is off (no autocast key: the hot path does the
# same mask arithmetic as before and no trace changes) and the same kernels run while it is on,
# with one difference: an op on CUDA tensors inside autocast("cpu") also visits the
# AutocastCPU kernel, which casts nothing that is not on the CPU (is_autocast_eligible).
autocast_dispatch_keyset = DispatchKeySet([DispatchKey.AutocastCPU, DispatchKey.AutocastCUDA])


_AUTOGRAD_KEY_OF_BACKEND = {
    DispatchKey.CPU: DispatchKey.AutogradCPU,
    DispatchKey.CUDA: DispatchKey.AutogradCUDA,
    DispatchKey.Meta: DispatchKey.AutogradMeta,
}
# The backend keys a tensor's key set can carry (BackendComponent), lowest priority first.
BACKEND_KEYS: tuple[DispatchKey, ...] = (DispatchKey.CPU, DispatchKey.CUDA, DispatchKey.Meta)


def getAutogradKeyFromBackend(k: DispatchKey) -> DispatchKey:
    return _AUTOGRAD_KEY_OF_BACKEND.get(k, DispatchKey.AutogradOther)


# Every TensorImpl asks for this; a DispatchKeySet is immutable, so one per backend is shared.
_AUTOGRAD_RELATED_KEYSETS = {
    k: DispatchKeySet([DispatchKey.ADInplaceOrView, getAutogradKeyFromBackend(k)])
    for k in DispatchKey
}


def getAutogradRelatedKeySetFromBackend(k: DispatchKey) -> DispatchKeySet:
    return _AUTOGRAD_RELATED_KEYSETS[k]  # every DispatchKey has its entry
