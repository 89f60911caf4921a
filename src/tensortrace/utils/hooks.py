"""torch.utils.hooks: RemovableHandle and BackwardHook, the machinery of nn.Module's full
backward hooks.

Mirrors `torch/utils/hooks.py`. BackwardHook wraps the tensors a Module takes and returns in
BackwardHookFunction (an identity autograd.Function, nn/modules/_functions.py), so that the
backward graph gets one BackwardHookFunctionBackward Node in front of the Module's outputs and
one behind its inputs. A hook on the output Node sees grad_output (and runs the backward
pre-hooks, which may replace it); a hook on the input Node then sees grad_input and calls the
user's full backward hooks with both, as (module, grad_input, grad_output), None standing for
every non-tensor argument; a hook that returns a tuple replaces grad_input.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import tensortrace as torch
from tensortrace.autograd.function import RemovableHandle

__all__ = ["BackwardHook", "RemovableHandle", "unserializable_hook"]


def unserializable_hook(f: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a hook as one that is not saved with its tensor (no warning when it is not)."""
    f.__torch_unserializable__ = True  # type: ignore[attr-defined]
    return f


class BackwardHook:
    """Runs one Module call's full backward hooks and backward pre-hooks; made by
    Module._call_impl for each call that has any."""

    def __init__(
        self,
        module: Any,
        user_hooks: list[Callable[..., Any]],
        user_pre_hooks: list[Callable[..., Any]],
    ) -> None:
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.module = module

        # grad_output, kept from the output Node's hook until the input Node's hook uses it
        self.grad_outputs: tuple[Any, ...] | None = None
        self.n_outputs = -1
        self.output_tensors_index: list[int] | None = None
        self.n_inputs = -1
        self.input_tensors_index: list[int] | None = None

    def _pack_with_none(
        self, indices: Sequence[int], values: Sequence[Any], size: int
    ) -> tuple[Any, ...]:
        res: list[Any] = [None] * size
        for idx, val in zip(indices, values, strict=True):
            res[idx] = val
        return tuple(res)

    def _unpack_none(self, indices: Sequence[int], values: Sequence[Any]) -> tuple[Any, ...]:
        return tuple(values[idx] for idx in indices)

    def _set_user_hook(self, grad_fn: Any) -> None:
        def hook(grad_input: tuple[Any, ...], _: Any) -> tuple[Any, ...] | None:
            if self.grad_outputs is None:
                # the gradient reached the Module's inputs without passing through its
                # outputs (a double backward, say): there is no grad_output to hand over
                return None
            assert self.input_tensors_index is not None
            res = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)

            for user_hook in self.user_hooks:
                out = user_hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise RuntimeError(
                        "Backward hook returned an invalid number of grad_input, "
                        f"got {len(out)}, but expected {len(res)}"
                    )
                res = out

            self.grad_outputs = None
            return self._unpack_none(self.input_tensors_index, res)

        grad_fn.register_hook(hook)

    def _apply_on_tensors(
        self, fn: Callable[[Any], None], args: tuple[Any, ...]
    ) -> tuple[Any, list[int] | None]:
        """Pass the tensors among args through BackwardHookFunction and give its Node to fn;
        returns the new args and where the tensors were (None when no gradient will flow)."""
        tensors_idx: list[int] = []
        tensors: list[Any] = []
        requires_grad = False
        for i, arg in enumerate(args):
            if isinstance(arg, torch.Tensor):
                tensors_idx.append(i)
                tensors.append(arg)
                requires_grad |= arg.requires_grad

        if not (requires_grad and torch.is_grad_enabled()):
            return args, None

        # import cycle: nn.modules imports this module's users
        from tensortrace.nn.modules._functions import BackwardHookFunction

        new_tensors = BackwardHookFunction.apply(*tensors)
        if len(new_tensors) == 0:
            raise RuntimeError(
                "Cannot set Module backward hook for a Module with no input Tensors."
            )

        grad_fns = [
            t.grad_fn
            for t in new_tensors
            if t.grad_fn is not None and t.grad_fn.name() == "BackwardHookFunctionBackward"
        ]
        if len(grad_fns) == 0:
            raise RuntimeError(
                "Error while setting up backward hooks. Please open "
                "an issue with a code sample to reproduce this."
            )
        fn(grad_fns[0])

        arg_list = list(args)
        for idx, val in zip(tensors_idx, new_tensors, strict=True):
            arg_list[idx] = val
        # a namedtuple is rebuilt from its fields, a plain tuple from the list
        out = tuple(arg_list) if type(args) is tuple else type(args)(*arg_list)
        return out, tensors_idx

    def setup_input_hook(self, args: tuple[Any, ...]) -> Any:
        def fn(grad_fn: Any) -> None:
            self._set_user_hook(grad_fn)

        res, input_idx = self._apply_on_tensors(fn, args)
        self.n_inputs = len(args)
        self.input_tensors_index = input_idx
        return res

    def setup_output_hook(self, args: Any) -> Any:
        def fn(grad_fn: Any) -> None:
            def hook(_: Any, grad_output: tuple[Any, ...]) -> tuple[Any, ...] | None:
                assert self.output_tensors_index is not None
                self.grad_outputs = self._pack_with_none(
                    self.output_tensors_index, grad_output, self.n_outputs
                )

                if self.user_pre_hooks:
                    expected_len = len(self.grad_outputs)
                    for user_pre_hook in self.user_pre_hooks:
                        hook_grad_outputs = user_pre_hook(self.module, self.grad_outputs)
                        if hook_grad_outputs is None:
                            continue
                        actual_len = len(hook_grad_outputs)
                        if actual_len != expected_len:
                            raise RuntimeError(
                                "Backward pre hook returned an invalid number of grad_output, "
                                f"got {actual_len}, but expected {expected_len}"
                            )
                        self.grad_outputs = hook_grad_outputs

                # self.grad_outputs may be cleared below, and is still returned
                local_grad_outputs = self.grad_outputs

                # no input requires grad: the input Node never runs, so the user hooks
                # run here, with a grad_input of Nones
                if self.input_tensors_index is None:
                    warnings.warn(
                        "Full backward hook is firing when gradients are computed "
                        "with respect to module outputs since no inputs require gradients. "
                        "See https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                        "#torch.nn.Module.register_full_backward_hook for more details.",
                        stacklevel=5,
                    )
                    grad_inputs = self._pack_with_none([], [], self.n_inputs)
                    for user_hook in self.user_hooks:
                        res = user_hook(self.module, grad_inputs, self.grad_outputs)
                        if res is not None and not (
                            isinstance(res, tuple) and all(el is None for el in res)
                        ):
                            raise RuntimeError(
                                "Backward hook for Modules where no input requires "
                                "gradient should always return None or None for all gradients."
                            )
                    self.grad_outputs = None

                if local_grad_outputs is not None:
                    return tuple(local_grad_outputs[i] for i in self.output_tensors_index)
                return None

            grad_fn.register_hook(hook)

        is_tuple = True
        if not isinstance(args, tuple):
            args = (args,)
            is_tuple = False

        res, output_idx = self._apply_on_tensors(fn, args)
        self.n_outputs = len(args)
        self.output_tensors_index = output_idx

        if not is_tuple:
            res = res[0]
        return res
