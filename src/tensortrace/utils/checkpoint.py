"""torch.utils.checkpoint: trade compute for memory by running a function again in backward.

Mirrors `torch/utils/checkpoint.py` (PyTorch 2.13): `checkpoint(fn, *args, use_reentrant=True)`
runs `fn` with grad off inside CheckpointFunction (a custom autograd.Function), saving only its
inputs; its backward runs `fn` again with grad on, from the CPU (and device) RNG state the
forward had, and backpropagates through that graph with a reentrant `torch.autograd.backward`.
`use_reentrant=False` is the saved-tensors-hooks variant (checkpoint_nonreentrant.py).
checkpoint_sequential checkpoints all segments of a sequence of modules but the last.
tensortrace has no autocast, so the autocast state torch stashes and restores is not kept.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterable
from typing import Any

import tensortrace as torch
from tensortrace.autograd import _is_checkpoint_valid
from tensortrace.utils.checkpoint_nonreentrant import (
    CheckpointError,
    _checkpoint_without_reentrant_generator,
    set_checkpoint_debug_enabled,
    set_checkpoint_early_stop,
)

__all__ = [
    "checkpoint",
    "checkpoint_sequential",
    "CheckpointError",
    "CheckpointFunction",
    "check_backward_validity",
    "detach_variable",
    "get_device_states",
    "set_device_states",
    "noop_context_fn",
    "set_checkpoint_early_stop",
    "DefaultDeviceType",
    "set_checkpoint_debug_enabled",
]

_DEFAULT_DETERMINISM_MODE = "default"


def detach_variable(inputs: tuple[Any, ...]) -> tuple[Any, ...]:
    if isinstance(inputs, tuple):
        out = []
        for inp in inputs:
            if not isinstance(inp, torch.Tensor):
                out.append(inp)
                continue
            x = inp.detach()
            x.requires_grad = inp.requires_grad
            out.append(x)
        return tuple(out)
    raise RuntimeError(
        f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}"
    )


def check_backward_validity(inputs: Iterable[Any]) -> None:
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, torch.Tensor)):
        warnings.warn(
            "None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2
        )


def _get_device_module(device: str = "cuda") -> Any:
    if device == "meta":
        return torch.device("meta")
    return getattr(torch, device)


class DefaultDeviceType:
    """The device type whose RNG state checkpoint keeps when no argument is on a device."""

    _default_device_type: str | None = None

    @staticmethod
    def set_device_type(device: str = "cuda") -> None:
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type() -> str:
        if not DefaultDeviceType._default_device_type:
            acc = torch.accelerator.current_accelerator(True)
            DefaultDeviceType._default_device_type = acc.type if acc else "cpu"
        return DefaultDeviceType._default_device_type


def _tree_leaves(tree: Any) -> list[Any]:
    """torch.utils._pytree's leaves of lists, tuples and dicts (what tree_map visits)."""
    if isinstance(tree, (list, tuple)):
        return [leaf for item in tree for leaf in _tree_leaves(item)]
    if isinstance(tree, dict):
        return [leaf for item in tree.values() for leaf in _tree_leaves(item)]
    return [tree]


def _infer_device_type(*args: Any) -> str:
    device_types = [
        arg.device.type
        for arg in _tree_leaves(args)
        if isinstance(arg, torch.Tensor) and arg.device.type != "cpu"
    ]
    device_types_set = set(device_types)
    if len(device_types_set) > 1:
        warnings.warn(
            "Tensor arguments, excluding CPU tensors, are detected on at least two types of "
            "devices. Device state will only be saved for devices of a single device type, and "
            "the remaining devices will be ignored. Consequently, if any checkpointed functions "
            "involve randomness, this may result in incorrect gradients. (Note that if CUDA "
            "devices are among the devices detected, it will be prioritized; otherwise, the "
            "first device encountered will be selected.)"
            f"\nDevice types: {sorted(device_types_set)} first device type: {device_types[0]}",
            stacklevel=2,
        )
    if len(device_types) == 0:
        return DefaultDeviceType.get_device_type()
    if "cuda" in device_types_set:
        return "cuda"
    return device_types[0]


def get_device_states(*args: Any) -> tuple[list[int], list[Any]]:
    """The RNG state of each device a tensor argument is on."""
    fwd_device_ids = [
        arg.get_device()
        for arg in _tree_leaves(args)
        if isinstance(arg, torch.Tensor) and arg.device.type not in {"cpu", "meta"}
    ]
    fwd_device_states = []
    device_module = _get_device_module(_infer_device_type(*args))
    for device_id in fwd_device_ids:
        with device_module.device(device_id):
            fwd_device_states.append(device_module.get_rng_state())
    return fwd_device_ids, fwd_device_states


def set_device_states(devices: list[int], states: list[Any], *, device_type: Any = None) -> None:
    """Set the RNG state of each device of `devices`."""
    if device_type is None:
        device_type = DefaultDeviceType.get_device_type()
    if device_type == "meta":
        return
    device_module = _get_device_module(device_type)
    for device, state in zip(devices, states, strict=False):
        with device_module.device(device):
            device_module.set_rng_state(state)


class CheckpointFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, run_function: Any, preserve_rng_state: bool, *args: Any) -> Any:
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        ctx.device_type = _infer_device_type(*args)
        if preserve_rng_state:
            ctx.fwd_cpu_state = torch.get_rng_state()
            # Don't eagerly initialize the device context by accident.
            ctx.had_device_in_fwd = False
            device_module = _get_device_module(ctx.device_type)
            if getattr(device_module, "_initialized", False):
                ctx.had_device_in_fwd = True
                ctx.fwd_devices, ctx.fwd_device_states = get_device_states(*args)
        # non-tensor inputs are kept in ctx, tensors are saved (None stands in for them)
        ctx.inputs = []
        ctx.tensor_indices = []
        tensor_inputs = []
        for i, arg in enumerate(args):
            if torch.is_tensor(arg):
                tensor_inputs.append(arg)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(arg)
        ctx.save_for_backward(*tensor_inputs)
        with torch.no_grad():
            outputs = run_function(*args)
        return outputs

    @staticmethod
    def backward(ctx: Any, *args: Any) -> Any:
        if not _is_checkpoint_valid():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible"
                " with .grad() or passing an `inputs` parameter to .backward()."
                " To resolve this error, you can either set use_reentrant=False,"
                " or call .backward() without passing the `inputs` argument."
            )
        inputs = list(ctx.inputs)
        tensor_indices = ctx.tensor_indices
        tensors = ctx.saved_tensors
        for i, idx in enumerate(tensor_indices):
            inputs[idx] = tensors[i]
        # run the function again from the RNG state the forward had; put the surrounding
        # state back after
        rng_devices = []
        if ctx.preserve_rng_state and ctx.had_device_in_fwd:
            rng_devices = ctx.fwd_devices
        with torch.random.fork_rng(
            devices=rng_devices, enabled=ctx.preserve_rng_state, device_type=ctx.device_type
        ):
            if ctx.preserve_rng_state:
                torch.set_rng_state(ctx.fwd_cpu_state)
                if ctx.had_device_in_fwd:
                    set_device_states(
                        ctx.fwd_devices, ctx.fwd_device_states, device_type=ctx.device_type
                    )
            detached_inputs = detach_variable(tuple(inputs))
            with torch.enable_grad():
                outputs = ctx.run_function(*detached_inputs)
        if isinstance(outputs, torch.Tensor):
            outputs = (outputs,)
        # backward through the outputs that require grad only
        outputs_with_grad = []
        args_with_grad = []
        for i in range(len(outputs)):
            if torch.is_tensor(outputs[i]) and outputs[i].requires_grad:
                outputs_with_grad.append(outputs[i])
                args_with_grad.append(args[i])
        if len(outputs_with_grad) == 0:
            raise RuntimeError(
                "none of output has requires_grad=True, this checkpoint() is not necessary"
            )
        torch.autograd.backward(outputs_with_grad, args_with_grad)
        grads = tuple(
            inp.grad if isinstance(inp, torch.Tensor) else None for inp in detached_inputs
        )
        return (None, None, *grads)


def noop_context_fn() -> tuple[Any, Any]:
    return contextlib.nullcontext(), contextlib.nullcontext()


def checkpoint(
    function: Callable[..., Any],
    *args: Any,
    use_reentrant: bool | None = None,
    context_fn: Callable[[], tuple[Any, Any]] = noop_context_fn,
    determinism_check: str = _DEFAULT_DETERMINISM_MODE,
    debug: bool = False,
    early_stop: bool = True,
    **kwargs: Any,
) -> Any:
    """Run `function(*args)` without keeping its intermediate tensors for backward: they
    are computed again, by running it again, when backward needs them."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be "
            "passed explicitly. Starting in PyTorch 2.9, calling checkpoint "
            "without use_reentrant will raise an exception. use_reentrant=False is "
            "recommended, but if you need to preserve the current default "
            "behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.",
            stacklevel=2,
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError(
                "Passing `context_fn` or `debug` is only supported when use_reentrant=False."
            )
        return CheckpointFunction.apply(function, preserve, *args)
    gen = _checkpoint_without_reentrant_generator(
        function, preserve, context_fn, determinism_check, debug, early_stop, *args, **kwargs
    )
    next(gen)
    try:
        ret = function(*args, **kwargs)
    except BaseException as e:
        try:
            gen.throw(e)
        except StopIteration as stop:
            raise RuntimeError(
                "torch.utils.checkpoint: the forward context provided by "
                "context_fn suppressed an exception raised during the "
                "checkpointed forward. This is not supported because "
                "checkpoint cannot return a value for a failed forward."
            ) from stop
        raise
    try:
        next(gen)
    except StopIteration:
        return ret
    raise AssertionError(
        "torch.utils.checkpoint: expected context_fn generator to yield "
        "exactly twice, but it yielded more than twice."
    )


def checkpoint_sequential(
    functions: Any, segments: int, input: Any, use_reentrant: bool | None = None, **kwargs: Any
) -> Any:
    """Run `functions` (an nn.Sequential or a list of modules) on `input` in `segments`
    chunks, each checkpointed but the last."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant "
            "parameter should be passed explicitly. "
            "In version 2.9 we will raise an exception if use_reentrant "
            "is not passed. use_reentrant=False is "
            "recommended, but if you need to preserve the current default "
            "behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.",
            stacklevel=2,
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start: int, end: int, functions: Any) -> Callable[[Any], Any]:
        def forward(input: Any) -> Any:
            for j in range(start, end + 1):
                input = functions[j](input)
            return input

        return forward

    if isinstance(functions, torch.nn.Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(
            run_function(start, end, functions),
            input,
            use_reentrant=use_reentrant,
            preserve_rng_state=preserve,
        )
    return run_function(end + 1, len(functions) - 1, functions)(input)
