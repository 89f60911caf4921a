"""nn.Module's forward and state_dict hooks, and the __call__ that runs them.

Mirrors the hook half of `torch/nn/modules/module.py`: register_forward_pre_hook /
register_forward_hook (prepend, with_kwargs, always_call), `_call_impl` (the pre-hooks may
replace the arguments, the hooks the result; an always_call hook still runs when forward
raises), and the state_dict hooks (`_register_state_dict_hook`, register_state_dict_pre_hook,
`_register_load_state_dict_pre_hook`, register_load_state_dict_pre_hook / post_hook) that
nn.utils' weight_norm, spectral_norm, prune and parametrize rely on. Backward hooks and the
global module hooks are not modelled. `Module` (module.py) takes these methods from this base
class; the split is only for length.
"""

from __future__ import annotations

import functools
import warnings
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from tensortrace.autograd.function import RemovableHandle

# the dicts torch's Module.__init__ makes, in its order (after _non_persistent_buffers_set)
HOOK_DICTS = (
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


class ModuleHooks:
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

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for name in HOOK_DICTS:  # a Module pickled before it had them
            if name not in self.__dict__:
                object.__setattr__(self, name, OrderedDict())

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
        if not (self._forward_hooks or self._forward_pre_hooks):
            return forward_call(*args, **kwargs)
        result = None
        called_always_called_hooks: set[int] = set()

        def inner() -> Any:
            nonlocal result, args, kwargs
            for hook_id, hook in list(self._forward_pre_hooks.items()):
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
            result = forward_call(*args, **kwargs)
            for hook_id, hook in list(self._forward_hooks.items()):
                if hook_id in self._forward_hooks_always_called:
                    called_always_called_hooks.add(hook_id)
                if hook_id in self._forward_hooks_with_kwargs:
                    hook_result = hook(self, args, kwargs, result)
                else:
                    hook_result = hook(self, args, result)
                if hook_result is not None:
                    result = hook_result
            return result

        try:
            return inner()
        except Exception:
            # the always_call hooks that did not run yet still do; their own errors only warn
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
