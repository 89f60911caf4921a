"""nn.Module's backward hooks: full backward hooks, backward pre-hooks and the deprecated
register_backward_hook.

Mirrors the backward-hook methods of `torch/nn/modules/module.py`. Full hooks run through
torch.utils.hooks.BackwardHook (utils/hooks.py), set up by Module._call_impl (module_hooks.py)
around each call; a legacy hook is only registered on the grad_fn of the Module's first output,
so it sees that one Node's grad_input / grad_output, and _maybe_warn_non_full_backward_hook
says when that is not what the Module's inputs and outputs are. A Module holds either kind,
never both (and so does the set of global hooks).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import tensortrace as torch
from tensortrace.autograd.function import RemovableHandle
from tensortrace.nn.modules import module_global_hooks as _G

_MIXED_BACKWARD_HOOKS = (
    "Cannot use both regular backward hooks and full backward hooks on a "
    "single Module. Please use only one of them."
)


class ModuleBackwardHooks:
    """The backward-hook members of nn.Module; the dicts are Module's, made in its __init__."""

    _backward_pre_hooks: dict[int, Callable[..., Any]]
    _backward_hooks: dict[int, Callable[..., Any]]
    _is_full_backward_hook: bool | None

    def register_full_backward_pre_hook(
        self, hook: Callable[..., Any], prepend: bool = False
    ) -> RemovableHandle:
        """hook(module, grad_output) -> None or a new grad_output, before grad_input is
        computed."""
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)  # type: ignore[attr-defined]
        return handle

    def register_backward_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Deprecated: hook(module, grad_input, grad_output) on the last Node of forward."""
        if self._is_full_backward_hook is True:
            raise RuntimeError(_MIXED_BACKWARD_HOOKS)
        self._is_full_backward_hook = False
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    def register_full_backward_hook(
        self, hook: Callable[..., Any], prepend: bool = False
    ) -> RemovableHandle:
        """hook(module, grad_input, grad_output) -> None or a new grad_input, once the
        gradients with respect to the Module's inputs are computed."""
        if self._is_full_backward_hook is False:
            raise RuntimeError(_MIXED_BACKWARD_HOOKS)
        self._is_full_backward_hook = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)  # type: ignore[attr-defined]
        return handle

    def _get_backward_hooks(self) -> tuple[list[Callable[..., Any]], list[Callable[..., Any]]]:
        """The full and the non-full backward hooks for this Module, the global ones first."""
        full_backward_hooks: list[Callable[..., Any]] = []
        if _G._global_is_full_backward_hook is True:
            full_backward_hooks += _G._global_backward_hooks.values()
        if self._is_full_backward_hook is True:
            full_backward_hooks += self._backward_hooks.values()

        non_full_backward_hooks: list[Callable[..., Any]] = []
        if _G._global_is_full_backward_hook is False:
            non_full_backward_hooks += _G._global_backward_hooks.values()
        if self._is_full_backward_hook is False:
            non_full_backward_hooks += self._backward_hooks.values()
        return full_backward_hooks, non_full_backward_hooks

    def _get_backward_pre_hooks(self) -> list[Callable[..., Any]]:
        backward_pre_hooks: list[Callable[..., Any]] = []
        backward_pre_hooks += _G._global_backward_pre_hooks.values()
        backward_pre_hooks += self._backward_pre_hooks.values()
        return backward_pre_hooks

    def _maybe_warn_non_full_backward_hook(self, inputs: Any, result: Any, grad_fn: Any) -> None:
        """Warn (FutureWarning) when a legacy hook will miss part of grad_input / grad_output."""
        if not isinstance(result, torch.Tensor):
            if not (isinstance(result, tuple) and all(isinstance(r, torch.Tensor) for r in result)):
                warnings.warn(
                    "Using non-full backward hooks on a Module that does not return a "
                    "single Tensor or a tuple of Tensors is deprecated and will be removed "
                    "in future versions. This hook will be missing some of the grad_output. "
                    "Please use register_full_backward_hook to get the documented behavior.",
                    FutureWarning,
                    stacklevel=2,
                )
                return
        else:
            result = (result,)

        if not isinstance(inputs, torch.Tensor):
            if not (isinstance(inputs, tuple) and all(isinstance(i, torch.Tensor) for i in inputs)):
                warnings.warn(
                    "Using non-full backward hooks on a Module that does not take as input a "
                    "single Tensor or a tuple of Tensors is deprecated and will be removed "
                    "in future versions. This hook will be missing some of the grad_input. "
                    "Please use register_full_backward_hook to get the documented behavior.",
                    FutureWarning,
                    stacklevel=2,
                )
                return
        else:
            inputs = (inputs,)

        # inputs and result are tuples of tensors from here on
        out_grad_fn = {r.grad_fn for r in result if r.grad_fn is not None}
        if len(out_grad_fn) == 0 or (len(out_grad_fn) == 1 and grad_fn not in out_grad_fn):
            warnings.warn(
                "Using a non-full backward hook when outputs are nested in python data structure "
                "is deprecated and will be removed in future versions. This hook will be missing "
                "some grad_output.",
                FutureWarning,
                stacklevel=2,
            )
        elif len(out_grad_fn) > 1:
            warnings.warn(
                "Using a non-full backward hook when outputs are generated by different autograd "
                "Nodes is deprecated and will be removed in future versions. This hook will be "
                "missing some grad_output. Please use register_full_backward_hook to get the "
                "documented behavior.",
                FutureWarning,
                stacklevel=2,
            )
        else:
            # the grad_output part is most likely right; grad_input only if forward was one Node
            inputs_grad_fn = {i.grad_fn for i in inputs if i.grad_fn is not None}
            next_functions = {n[0] for n in grad_fn.next_functions}
            if inputs_grad_fn != next_functions:
                warnings.warn(
                    "Using a non-full backward hook when the forward contains multiple autograd "
                    "Nodes is deprecated and will be removed in future versions. This hook will "
                    "be missing some grad_input. Please use register_full_backward_hook to get "
                    "the documented behavior.",
                    FutureWarning,
                    stacklevel=2,
                )
