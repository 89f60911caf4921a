"""torch.autograd.graph: hooks on the tensors the graph saves for backward.

Mirrors `torch/autograd/graph.py`: saved_tensors_hooks (a pack/unpack pair for every tensor
saved while it is active, applied by SavedVariable as saved_variable.cpp does), save_on_cpu
(pack to the CPU, unpack back to the tensor's device) and disable_saved_tensors_hooks (any use
of them raises the given message); increment_version; Node, the abstract class every grad_fn is
an instance of (function.h's Nodes, autograd/function.py, and custom Functions' ctx objects).
"""

from __future__ import annotations

import abc
import contextlib
from collections.abc import Callable, Generator, Iterable
from typing import Any

from tensortrace.autograd import function as _function
from tensortrace.autograd.python_saved_variable_hooks import (
    _pop_saved_tensors_default_hooks,
    _push_saved_tensors_default_hooks,
    _saved_tensors_hooks_disable,
    _saved_tensors_hooks_enable,
    _saved_tensors_hooks_get_disabled_error_message,
)
from tensortrace.autograd.saved_variable import is_inference_tensor

__all__ = [
    "Node",
    "disable_saved_tensors_hooks",
    "increment_version",
    "save_on_cpu",
    "saved_tensors_hooks",
]


class Node(abc.ABC):
    """What a grad_fn is: name(), next_functions, metadata, register_hook, register_prehook.
    The Nodes of the engine (function.py's Node and its subclasses) and custom Functions'
    ctx objects (BackwardCFunction) are its virtual subclasses, as in torch."""

    @abc.abstractmethod
    def name(self) -> str:
        raise NotImplementedError

    @property
    @abc.abstractmethod
    def next_functions(self) -> tuple[tuple[Node | None, int], ...]:
        raise NotImplementedError

    @abc.abstractmethod
    def metadata(self) -> dict[str, Any]:
        raise NotImplementedError

    @abc.abstractmethod
    def register_hook(self, fn: Callable[..., Any]) -> Any:
        raise NotImplementedError

    @abc.abstractmethod
    def register_prehook(self, fn: Callable[..., Any]) -> Any:
        raise NotImplementedError

    @classmethod
    def __subclasshook__(cls, subclass: type) -> bool:
        # import cycle: custom_function's Function is built on the autograd package
        from tensortrace.autograd.custom_function import BackwardCFunction

        if cls is Node and (
            issubclass(subclass, _function.Node) or issubclass(subclass, BackwardCFunction)
        ):
            return True
        return NotImplemented


def increment_version(tensor: Any) -> None:
    """Bump the version counter of a tensor (or of each of several) changed in place behind
    autograd's back; an inference tensor has none and is left alone."""
    from tensortrace.csrc.python_variable import TensorBase

    tensors: Iterable[Any] = (tensor,) if isinstance(tensor, TensorBase) else tensor
    for t in tensors:
        if not is_inference_tensor(t.cdata):
            t.cdata.unsafeGetTensorImpl().bump_version()


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
