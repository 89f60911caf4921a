"""nn.Module's forward and state_dict hooks, and the __call__ that runs them.

Mirrors the hook half of `torch/nn/modules/module.py`: register_forward_pre_hook /
register_forward_hook (prepend, with_kwargs, always_call), `_call_impl` (the global hooks of
module_global_hooks.py run before the module's own; the pre-hooks may replace the arguments,
the hooks the result; an always_call hook still runs when forward raises; full backward hooks
and backward pre-hooks wrap the arguments and the result in a torch.utils.hooks.BackwardHook,
legacy backward hooks go on the result's grad_fn), and the state_dict hooks
(`_register_state_dict_hook`, register_state_dict_pre_hook, `_register_load_state_dict_pre_hook`,
register_load_state_dict_pre_hook / post_hook) that nn.utils' weight_norm, spectral_norm, prune
and parametrize rely on. The backward-hook methods are in module_backward_hooks.py. `Module`
(module.py) takes these methods from these base classes; the split is only for length.
"""

from __future__ import annotations

import functools
import warnings
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import tensortrace as torch
from tensortrace.autograd.function import RemovableHandle
from tensortrace.nn.modules import module_global_hooks as _G
from tensortrace.nn.modules.module_backward_hooks import ModuleBackwardHooks

# the dicts torch's Module.__init__ makes, in its order (after _non_persistent_buffers_set)
HOOK_DICTS = (
    "_backward_pre_hooks",
    "_backward_hooks",
    "_forward_hooks",
    "_forward_hooks_with_kwargs",
    "_forward_hooks_always_called",
    "_forward_pre_hooks",
    "_forward_pre_hooks_with_kwargs",
    "_state_dict_hooks",
    "_state_dict_pre_hooks",
    "_load_state_dict_pre_hooks",
    "_load_state_dict_post_hooks",
)


class _WrappedHook:
    """A hook that also receives the module (held weakly, as torch's _WrappedHook does)."""

    def __init__(self, hook: Callable[..., Any], module: Any = None) -> None:
        self.hook = hook
        functools.update_wrapper(self, hook)
        self.with_module = module is not None
        if self.with_module:
            self.module = weakref.ref(module)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.with_module:
            module = self.module()
            if module is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return self.hook(module, *args, **kwargs)
        return self.hook(*args, **kwargs)


class ModuleHooks(ModuleBackwardHooks):
    """The hook members of nn.Module; the dicts are Module's, made in its __init__."""

    _forward_hooks: dict[int, Callable[..., Any]]
    _forward_hooks_with_kwargs: dict[int, bool]
    _forward_hooks_always_called: dict[int, bool]
    _forward_pre_hooks: dict[int, Callable[..., Any]]
    _forward_pre_hooks_with_kwargs: dict[int, bool]
    _state_dict_hooks: dict[int, Callable[..., Any]]
    _state_dict_pre_hooks: dict[int, Callable[..., Any]]
    _load_state_dict_pre_hooks: dict[int, Callable[..., Any]]
    _load_state_dict_post_hooks: dict[int, Callable[..., Any]]
    forward: Callable[..., Any]

    def _init_hooks(self) -> None:
        for name in HOOK_DICTS:
            object.__setattr__(self, name, OrderedDict())
            if name == "_backward_hooks":  # torch's __init__ order
                object.__setattr__(self, "_is_full_backward_hook", None)

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for name in HOOK_DICTS:  # a Module pickled before it had them
            if name not in self.__dict__:
                object.__setattr__(self, name, OrderedDict())
        if "_is_full_backward_hook" not in self.__dict__:
            object.__setattr__(self, "_is_full_backward_hook", None)

    # ---- forward ---------------------------------------------------------------------------
    def register_forward_pre_hook(
        self, hook: Callable[..., Any], *, prepend: bool = False, with_kwargs: bool = False
    ) -> RemovableHandle:
        handle = RemovableHandle(
            self._forward_pre_hooks, extra_dict=self._forward_pre_hooks_with_kwargs
        )
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)  # type: ignore[attr-defined]
        return handle

    def register_forward_hook(
        self,
        hook: Callable[..., Any],
        *,
        prepend: bool = False,
        with_kwargs: bool = False,
        always_call: bool = False,
    ) -> RemovableHandle:
        handle = RemovableHandle(
            self._forward_hooks,
            extra_dict=[self._forward_hooks_with_kwargs, self._forward_hooks_always_called],
        )
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)  # type: ignore[attr-defined]
        return handle

    def _call_impl(self, *args: Any, **kwargs: Any) -> Any:
        forward_call = self.forward
        # no hook at all: straight to forward
        if not (
            self._backward_hooks
            or self._backward_pre_hooks
            or self._forward_hooks
            or self._forward_pre_hooks
            or _G._global_backward_pre_hooks
            or _G._global_backward_hooks
            or _G._global_forward_hooks
            or _G._global_forward_pre_hooks
        ):
            return forward_call(*args, **kwargs)
        result = None
        called_always_called_hooks: set[int] = set()

        def inner() -> Any:
            nonlocal result, args, kwargs
            full_backward_hooks: list[Callable[..., Any]] = []
            non_full_backward_hooks: list[Callable[..., Any]] = []
            backward_pre_hooks: list[Callable[..., Any]] = []
            if self._backward_pre_hooks or _G._global_backward_pre_hooks:
                backward_pre_hooks = self._get_backward_pre_hooks()
            if self._backward_hooks or _G._global_backward_hooks:
                full_backward_hooks, non_full_backward_hooks = self._get_backward_hooks()

            for hook_id, hook in (
                *_G._global_forward_pre_hooks.items(),
                *self._forward_pre_hooks.items(),
            ):
                if hook_id in self._forward_pre_hooks_with_kwargs:
                    args_kwargs_result = hook(self, args, kwargs)
                    if args_kwargs_result is not None:
                        if isinstance(args_kwargs_result, tuple) and len(args_kwargs_result) == 2:
                            args, kwargs = args_kwargs_result
                        else:
                            raise RuntimeError(
                                "forward pre-hook must return None or a tuple "
                                f"of (new_args, new_kwargs), but got {args_kwargs_result}."
                            )
                else:
                    args_result = hook(self, args)
                    if args_result is not None:
                        if not isinstance(args_result, tuple):
                            args_result = (args_result,)
                        args = args_result

            bw_hook = None
            if full_backward_hooks or backward_pre_hooks:
                # import cycle: torch.utils.hooks imports nn.modules._functions
                from tensortrace.utils.hooks import BackwardHook

                bw_hook = BackwardHook(self, full_backward_hooks, backward_pre_hooks)
                args = bw_hook.setup_input_hook(args)

            result = forward_call(*args, **kwargs)
            for hook_id, hook in (*_G._global_forward_hooks.items(), *self._forward_hooks.items()):
                if (
                    hook_id in self._forward_hooks_always_called
                    or hook_id in _G._global_forward_hooks_always_called
                ):
                    called_always_called_hooks.add(hook_id)
                if (
                    hook_id in self._forward_hooks_with_kwargs
                    or hook_id in _G._global_forward_hooks_with_kwargs
                ):
                    hook_result = hook(self, args, kwargs, result)
                else:
                    hook_result = hook(self, args, result)
                if hook_result is not None:
                    result = hook_result

            if bw_hook:
                if not isinstance(result, (torch.Tensor, tuple)):
                    warnings.warn(
                        "For backward hooks to be called,"
                        " module output should be a Tensor or a tuple of Tensors"
                        f" but received {type(result)}",
                        stacklevel=2,
                    )
                result = bw_hook.setup_output_hook(result)

            # the legacy hooks go on the grad_fn of the first tensor of the result
            if non_full_backward_hooks:
                var = result
                while not isinstance(var, torch.Tensor):
                    if isinstance(var, dict):
                        var = next(v for v in var.values() if isinstance(v, torch.Tensor))
                    else:
                        var = var[0]
                grad_fn = var.grad_fn
                if grad_fn is not None:
                    for hook in non_full_backward_hooks:
                        grad_fn.register_hook(_WrappedHook(hook, self))
                    self._maybe_warn_non_full_backward_hook(args, result, grad_fn)
            return result

        try:
            return inner()
        except Exception:
            # the always_call hooks that did not run yet still do; their own errors only warn
            for hook_id, hook in _G._global_forward_hooks.items():
                if (
                    hook_id in _G._global_forward_hooks_always_called
                    and hook_id not in called_always_called_hooks
                ):
                    try:
                        hook_result = hook(self, args, result)
                        if hook_result is not None:
                            result = hook_result
                    except Exception as e:
                        warnings.warn(
                            "global module forward hook with ``always_call=True`` raised an "
                            "exception that was silenced as another error was raised in "
                            f"forward: {e}",
                            stacklevel=2,
                        )
                        continue
            for hook_id, hook in self._forward_hooks.items():
                if (
                    hook_id in self._forward_hooks_always_called
                    and hook_id not in called_always_called_hooks
                ):
                    try:
                        if hook_id in self._forward_hooks_with_kwargs:
                            hook_result = hook(self, args, kwargs, result)
                        else:
                            hook_result = hook(self, args, result)
                        if hook_result is not None:
                            result = hook_result
                    except Exception as e:
                        warnings.warn(
                            "module forward hook with ``always_call=True`` raised an exception "
                            f"that was silenced as another error was raised in forward: {e}",
                            stacklevel=2,
                        )
                        continue
            raise

    __call__: Callable[..., Any] = _call_impl

    # ---- state_dict ------------------------------------------------------------------------
    def _register_state_dict_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """hook(module, state_dict, prefix, local_metadata) may return a new state_dict."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError(
                "Cannot register the same function as the state dict post hook that was "
                "previously registered via register_state_dict_post_hook"
            )
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def register_state_dict_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """hook(module, state_dict, prefix, local_metadata) -> None, edits in place."""
        hook._from_public_api = True  # type: ignore[attr-defined]
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def register_state_dict_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """hook(module, prefix, keep_vars) runs before the module saves its state."""
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def _register_load_state_dict_pre_hook(
        self, hook: Callable[..., Any], with_module: bool = False
    ) -> RemovableHandle:
        """hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
        error_msgs), with the module first when with_module."""
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = _WrappedHook(
            hook, self if with_module else None
        )
        return handle

    def register_load_state_dict_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """hook(module, incompatible_keys) runs after the module and its children loaded."""
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle
