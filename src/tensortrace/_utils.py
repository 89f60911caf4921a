"""The rebuild functions a pickled tensor or Parameter names: torch._utils._rebuild_tensor_v2 ...

Mirrors `torch/_utils.py`. A file records each tensor as a call of one of these on its storage
(a TypedStorage that torch.load's persistent_load made from the `data/<key>` record), so
tensortrace's torch.load resolves the file's `torch._utils.<name>` to the function here, and
torch.save writes these very names (see serialization.py: tensortrace.* is written torch.*).
"""

from __future__ import annotations

import os
import sys
from typing import Any

import tensortrace as torch


def _rebuild_tensor(storage: Any, storage_offset: int, size: Any, stride: Any) -> Any:
    # first construct a tensor with the correct dtype/device
    t = torch.empty((0,), dtype=storage.dtype, device=storage._untyped_storage.device)
    return t.set_(storage._untyped_storage, storage_offset, size, stride)


def get_tensor_metadata(tensor: Any) -> dict[str, bool]:
    """The math bits of a tensor, only those that are set (torch writes {} otherwise)."""
    impl = tensor.cdata.unsafeGetTensorImpl()
    return {name: True for name, bit in (("conj", impl.is_conj()), ("neg", impl.is_neg())) if bit}


def set_tensor_metadata(tensor: Any, metadata: dict[str, bool]) -> None:
    impl = tensor.cdata.unsafeGetTensorImpl()
    impl._set_conj(bool(metadata.get("conj", False)))
    impl._set_neg(bool(metadata.get("neg", False)))


def _rebuild_tensor_v2(
    storage: Any,
    storage_offset: int,
    size: Any,
    stride: Any,
    requires_grad: bool,
    backward_hooks: Any,
    metadata: Any = None,
) -> Any:
    tensor = _rebuild_tensor(storage, storage_offset, size, stride)
    if requires_grad:
        tensor.requires_grad_(True)
    if metadata:
        set_tensor_metadata(tensor, metadata)
    # torch assigns tensor._backward_hooks = backward_hooks here "only for backwards
    # compatibility": every writer since 1.x writes an empty OrderedDict (Note [Don't serialize
    # hooks]), and a tensortrace tensor keeps its hooks in its AutogradMeta, so nothing to set.
    return tensor


def _set_obj_state(obj: Any, state: Any) -> Any:
    if isinstance(state, tuple):
        if not len(state) == 2:
            raise RuntimeError(f"Invalid serialized state: {state}")
        dict_state, slots_state = state
    else:
        dict_state, slots_state = state, None
    # Starting with Python 3.11, the __dict__ attribute is lazily created
    # and is serialized as None when not needed.
    if dict_state:
        for k, v in dict_state.items():
            setattr(obj, k, v)
    if slots_state:
        for k, v in slots_state.items():
            setattr(obj, k, v)
    return obj


def _rebuild_parameter(data: Any, requires_grad: bool, backward_hooks: Any) -> Any:
    from tensortrace.nn.parameter import Parameter  # nn loads on first use

    # torch also sets param._backward_hooks = backward_hooks (always empty): see above
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(
    data: Any, requires_grad: bool, backward_hooks: Any, state: Any
) -> Any:
    param = _rebuild_parameter(data, requires_grad, backward_hooks)
    # Restore state on Parameter like python attr.
    return _set_obj_state(param, state)


class KeyErrorMessage(str):
    r"""str subclass that returns itself in repr"""

    __slots__ = ()

    def __repr__(self) -> str:
        return self


class ExceptionWrapper:
    r"""Wraps an exception plus traceback to communicate across threads (or processes: it is
    plain data, so a DataLoader worker sends it back on its result queue)."""

    def __init__(self, exc_info: Any = None, where: str = "in background") -> None:
        # the traceback is kept as text: holding exc_info would keep every frame alive
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        import traceback  # here: nothing at import needs the module

        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self) -> None:
        r"""Reraises the wrapped exception in the current thread"""
        # "Caught ValueError in DataLoader worker process 2.\nOriginal Traceback ...", followed
        # by the traceback
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            # KeyError calls repr() on its argument (usually a dict key), which makes the
            # traceback unreadable
            msg = KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            # an exception whose first argument is not the message, but which has a field for it
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            # the exception takes other arguments: it cannot be remade with the message
            raise RuntimeError(msg) from None
        # Note [Raising without a reference cycle]: this frame's `exception` would refer to the
        # exception whose traceback refers to this frame, a cycle that only the cyclic GC frees.
        # A DataLoader iterator in that garbage is then finalized after its queues (the GC
        # runs weakref callbacks first, and they stop the queues' feeder threads), so its
        # workers never get their final None and each is joined for MP_STATUS_CHECK_INTERVAL
        # before being terminated. torch raises with the cycle; dropping the name breaks it.
        try:
            raise exception
        finally:
            del exception


def cpu_count() -> int | None:
    """The CPUs this process may run on (sched_getaffinity honours cpusets), else all."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count()


__all__: list[str] = []
