"""The stack of vmap levels: each running vmap's level, batch size and randomness.

Mirrors the vmap part of `aten/src/ATen/functorch/DynamicLayer.cpp` and `VmapInterpreter.h`
(_vmap_increment_nesting / _vmap_decrement_nesting). Only vmap pushes a level here: grad is
plain autograd (Note [vmap below autograd] in batched_tensor_impl.py). While any vmap runs, the
thread-local included set holds FuncTorchVmapMode, whose kernels (vmap_mode.py) give random
operators their randomness mode; torch includes it through the DynamicLayerFrontMode key.
"""

from __future__ import annotations

import itertools

from tensortrace.c10.dispatch_key import DispatchKey
from tensortrace.c10.frozen import Frozen
from tensortrace.c10.local_dispatch_key_set import _tls


class VmapInterpreter(Frozen):
    # Note [Records written out, not made by dataclass] in c10/frozen.py
    __slots__ = ("level", "batch_size", "randomness")
    __match_args__ = __slots__  # the fields, in order

    level: int
    batch_size: int
    randomness: str  # "error", "same" or "different"

    def __init__(self, level: int, batch_size: int, randomness: str) -> None:
        object.__setattr__(self, "level", level)
        object.__setattr__(self, "batch_size", batch_size)
        object.__setattr__(self, "randomness", randomness)


_stack: list[VmapInterpreter] = []
# Note [Unique vmap levels]
# torch numbers a level by its depth in the DynamicLayer stack. Here every vmap call gets a new
# number (still increasing inward, which is all the batching rules compare), so that a batched
# tensor that outlives its vmap (saved in a graph recorded inside it) is known to be dead:
# autograd sums such a gradient over its batch (engine.sum_batch_dims), never mistaking it for
# one of a later vmap that reuses the depth.
_levels = itertools.count(1)


def _vmap_increment_nesting(batch_size: int, randomness: str) -> int:
    level = next(_levels)
    _stack.append(VmapInterpreter(level, batch_size, randomness))
    _tls.included_ = _tls.included_.add(DispatchKey.FuncTorchVmapMode)
    return level


def _vmap_decrement_nesting() -> int:
    top = _stack.pop()
    if not _stack:
        _tls.included_ = _tls.included_.remove(DispatchKey.FuncTorchVmapMode)
    return top.level


def maybeCurrentDynamicLayer() -> VmapInterpreter | None:
    return _stack[-1] if _stack else None


def is_level_alive(level: int) -> bool:
    return any(interpreter.level == level for interpreter in _stack)


def interpreter_at(level: int) -> VmapInterpreter | None:
    for interpreter in _stack:
        if interpreter.level == level:
            return interpreter
    return None
