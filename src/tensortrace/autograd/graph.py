"""torch.autograd.graph: hooks on the tensors the graph saves for backward.

Mirrors `torch/autograd/graph.py`: saved_tensors_hooks (a pack/unpack pair for every tensor
saved while it is active, applied by SavedVariable as saved_variable.cpp does), save_on_cpu
(pack to the CPU, unpack back to the tensor's device) and disable_saved_tensors_hooks (any use
of them raises the given message). Node is function.h's Node (autograd/function.py).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Generator
from typing import Any

from tensortrace.autograd.function import Node
from tensortrace.autograd.python_saved_variable_hooks import (
    _pop_saved_tensors_default_hooks,
    _push_saved_tensors_default_hooks,
    _saved_tensors_hooks_disable,
    _saved_tensors_hooks_enable,
    _saved_tensors_hooks_get_disabled_error_message,
)

__all__ = [
    "Node",
    "disable_saved_tensors_hooks",
    "save_on_cpu",
    "saved_tensors_hooks",
]


class saved_tensors_hooks:  # noqa: N801 - torch's name
    """Context manager: each tensor saved for backward inside it is stored as
    `pack_hook(tensor)`, and given back to backward as `unpack_hook(packed)`. Only the
    innermost pair applies."""

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        _push_saved_tensors_default_hooks(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args: object) -> None:
        _pop_saved_tensors_default_hooks()


class save_on_cpu(saved_tensors_hooks):  # noqa: N801 - torch's name
    """Tensors saved inside it are kept on the CPU and copied back to their device for
    backward (pin_memory: into pinned memory, copied asynchronously)."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        import tensortrace as torch  # the public API (torch.empty, torch.cuda)

        device_module = getattr(torch, device_type, torch.cuda)

        def pack_to_cpu(tensor: Any) -> tuple[Any, Any]:
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            is_pinnable = device_module.is_available() and not tensor.is_sparse
            packed = torch.empty(
                tensor.size(),
                dtype=tensor.dtype,
                layout=tensor.layout,
                pin_memory=is_pinnable,
            )
            packed.copy_(tensor, non_blocking=is_pinnable)
            return (tensor.device, packed)

        def unpack_from_cpu(packed: tuple[Any, Any]) -> Any:
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str) -> Generator[None, None, None]:
    """Inside it, saved tensors hooks may not be used: entering saved_tensors_hooks (or
    being inside one already) raises RuntimeError(error_message)."""
    maybe_prev_message = None
    try:
        maybe_prev_message = _saved_tensors_hooks_get_disabled_error_message()
        _saved_tensors_hooks_disable(error_message)
        yield
    finally:
        # NOTE: [disabled_error_message invariant] (aten/saved_tensor_hooks.py)
        if maybe_prev_message is None:
            _saved_tensors_hooks_enable()
        else:
            _saved_tensors_hooks_disable(maybe_prev_message)
