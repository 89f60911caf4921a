"""torch.utils.checkpoint's non-reentrant variant (use_reentrant=False), on saved tensors hooks.

Mirrors the second half of `torch/utils/checkpoint.py` (PyTorch 2.13; kept in its own module
here for size): while the checkpointed function runs, `_checkpoint_hook` packs each tensor saved
for backward as a `_Holder` (and its shape, dtype and device for the determinism check); when
backward unpacks the first of them, the function runs again under `_recomputation_hook`, which
hands each tensor saved in the recomputation to the holder of the same position, stopping early
once all are there. Each backward (graph task) recomputes once. `debug=True` needs torch's
LoggingTensorMode (a TorchDispatchMode), which tensortrace does not have.
"""

from __future__ import annotations

import contextlib
import uuid
import weakref
from collections import defaultdict
from collections.abc import Callable, Generator
from typing import Any

import tensortrace as torch
from tensortrace.autograd.engine import current_graph_task
from tensortrace.autograd.graph import saved_tensors_hooks
from tensortrace.autograd.saved_variable import SavedVariable
from tensortrace.csrc.python_variable import THPVariable_Wrap

_DEFAULT_DETERMINISM_MODE = "default"
_checkpoint_debug_enabled: bool | None = None
_enable_checkpoint_early_stop: bool | None = None


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled: bool | None) -> Generator[None, None, None]:
    """Whether checkpoint prints debug information (overrides `debug=`; None defers to it)."""
    global _checkpoint_debug_enabled
    try:
        prev = _checkpoint_debug_enabled
        _checkpoint_debug_enabled = enabled
        yield
    finally:
        _checkpoint_debug_enabled = prev


@contextlib.contextmanager
def set_checkpoint_early_stop(enable: bool) -> Generator[None, None, None]:
    """Whether non-reentrant checkpoints made inside stop recomputing once all needed
    tensors are recomputed."""
    global _enable_checkpoint_early_stop
    try:
        prev = _enable_checkpoint_early_stop
        _enable_checkpoint_early_stop = enable
        yield
    finally:
        _enable_checkpoint_early_stop = prev


def _internal_assert(cond: bool) -> None:
    if not cond:
        raise AssertionError(
            "Something went unexpectedly wrong in activation checkpoint. "
            "Please report this bug by filing an issue to PyTorch."
        )


class CheckpointError(RuntimeError):
    pass


_debug_tip_msg = """
Tip: To see a more detailed error message, either pass `debug=True` to
`torch.utils.checkpoint.checkpoint(...)` or wrap the code block
with `with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to
enable checkpoint\u2011debug mode globally.

If this error occurs under torch.compile with automatic_dynamic_shapes enabled,
it may be because the recomputation selected a different compiled graph than the
forward pass (e.g., a dynamic graph instead of the original static graph).
To fix this, either:
  - Use torch._dynamo.mark_dynamic() to explicitly mark varying dimensions as
    dynamic upfront, avoiding the static-to-dynamic transition.
  - Call torch._C._dynamo.eval_frame._set_lru_cache(False) to disable LRU cache
    reordering, which can change which graph is checked first between forward
    and recompute.
See https://github.com/pytorch/pytorch/issues/166926 for more details and
workaround examples.
"""


class _SavedTensor:
    """torch._C._autograd.SavedTensor (_make_saved_tensor): a SavedVariable seen from Python."""

    def __init__(self, tensor: Any, is_output: bool) -> None:
        self._saved = SavedVariable(tensor.cdata, is_output)

    def unpack(self) -> Any:
        return THPVariable_Wrap(self._saved.unpack())


class _Handle:
    pass


class _Holder:
    def __init__(self) -> None:
        self.handles: dict[int, _Handle | None] = {}


class _CheckpointFrame:
    def __init__(
        self, recompute_fn: Any, early_stop: bool, unpack_error_cb: Any, metadata_fn: Any
    ) -> None:
        self.recompute_fn = recompute_fn
        self.saved_args: list[Any] = []
        self.weak_holders: list[weakref.ref[_Holder]] = []
        self.recomputed: defaultdict[int, weakref.WeakKeyDictionary[_Handle, Any]] = defaultdict(
            weakref.WeakKeyDictionary
        )
        self.recomp_counter: defaultdict[int, int] = defaultdict(int)
        self.is_recomputed: defaultdict[int, bool] = defaultdict(bool)
        self.early_stop = early_stop
        self.metadata_fn = metadata_fn
        self.unpack_error_cb = unpack_error_cb
        self.x_metadatas: list[Any] = []
        self.forward_completed = False
        self.ignore_saved_mismatch = False

    def save_inputs(self, *args: Any) -> None:
        self.saved_args = [
            _SavedTensor(arg, is_output=False) if isinstance(arg, torch.Tensor) else arg
            for arg in args
        ]

    def get_inputs(self) -> list[Any]:
        return [arg.unpack() if isinstance(arg, _SavedTensor) else arg for arg in self.saved_args]

    def check_recomputed_tensors_match(self, gid: int) -> None:
        if self.ignore_saved_mismatch:
            return
        if not len(self.weak_holders) == self.recomp_counter[gid]:
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved "
                "during the original forward and recomputation.\n"
                f"Number of tensors saved during forward: {len(self.weak_holders)}\n"
                f"Number of tensors saved during recomputation: {self.recomp_counter[gid]}.\n"
                f"{_debug_tip_msg}"
            )
        nb_meta_different = []
        for idx, weak_holder in enumerate(self.weak_holders):
            holder = weak_holder()
            if holder is None:
                continue
            _internal_assert(gid in holder.handles)
            _internal_assert(holder.handles[gid] is not None)
            _internal_assert(holder.handles[gid] in self.recomputed[gid])
            x_meta = self.x_metadatas[idx]
            recomputed_x = self.recomputed[gid][holder.handles[gid]]  # type: ignore[index]
            if x_meta != self.metadata_fn(recomputed_x):
                nb_meta_different.append((idx, x_meta, self.metadata_fn(recomputed_x)))
        if len(nb_meta_different) > 0:
            mismatched_tensors = ""
            for idx, x_meta, recomputed_meta in nb_meta_different:
                mismatched_tensors += (
                    f"tensor at position {idx}:\n"
                    f"saved metadata: {x_meta}\n"
                    f"recomputed metadata: {recomputed_meta}\n"
                )
            raise CheckpointError(
                "torch.utils.checkpoint: Recomputed values for the following tensors "
                "have different metadata than during the forward pass.\n"
                f"{mismatched_tensors}.\n"
                f"{_debug_tip_msg}"
            )


def _default_meta_extractor(x: Any) -> dict[str, Any]:
    return {"shape": x.shape, "dtype": x.dtype, "device": x.device}


_allowed_determinism_checks_to_fns: dict[str, Callable[[Any], Any]] = {
    _DEFAULT_DETERMINISM_MODE: _default_meta_extractor,
    "none": lambda _: None,
}


class _StopRecomputationError(Exception):
    pass


class _recomputation_hook(saved_tensors_hooks):  # noqa: N801 - torch's name
    def __init__(self, target_frame_ref: weakref.ref[_CheckpointFrame], gid: int) -> None:
        def pack_hook(x: Any) -> Any:
            x = x.detach() if x.requires_grad else x
            target_frame = target_frame_ref()
            if target_frame is None:
                raise AssertionError("Internal error: target_frame reference is None")
            recomp_idx = target_frame.recomp_counter[gid]
            target_frame.recomp_counter[gid] += 1
            if recomp_idx >= len(target_frame.weak_holders):
                if target_frame.early_stop:
                    raise AssertionError("Unexpected state: target_frame.early_stop is set")
                if not target_frame.forward_completed:
                    # the forward failed: what it saved is of no use
                    target_frame.ignore_saved_mismatch = True
                    return x
                raise CheckpointError(
                    "torch.utils.checkpoint: trying to save more tensors during "
                    "recomputation than during the original forward pass.\n"
                    f"{_debug_tip_msg}"
                )
            holder = target_frame.weak_holders[recomp_idx]()
            if holder is not None:
                _internal_assert(holder.handles.get(gid, None) is None)
                holder.handles[gid] = _Handle()
                target_frame.recomputed[gid][holder.handles[gid]] = x  # type: ignore[index]
            if target_frame.early_stop and target_frame.recomp_counter[gid] == len(
                target_frame.weak_holders
            ):
                raise _StopRecomputationError
            return x

        def unpack_hook(x: Any) -> Any:
            return x

        super().__init__(pack_hook, unpack_hook)


def _current_graph_task_id() -> int:
    """torch._C._current_graph_task_id: the running backward's id, -1 outside one."""
    task = current_graph_task()
    return -1 if task is None else task.id


class _checkpoint_hook(saved_tensors_hooks):  # noqa: N801 - torch's name
    def __init__(self, frame: _CheckpointFrame) -> None:
        def pack_hook(x: Any) -> _Holder:
            # a holder per saved tensor; backward's recomputation fills it
            holder = _Holder()
            frame.weak_holders.append(weakref.ref(holder))
            if frame.metadata_fn is not None:
                with torch.no_grad():
                    frame.x_metadatas.append(frame.metadata_fn(x))
            return holder

        def unpack_hook(holder: _Holder) -> Any:
            gid = _current_graph_task_id()
            if gid == -1:
                # unpacking outside a backward (grad_fn._saved_self): a fresh group each time
                gid = int(uuid.uuid4())
            if not frame.is_recomputed[gid]:
                args = frame.get_inputs()
                try:
                    with _recomputation_hook(weakref.ref(frame), gid), torch.enable_grad():
                        frame.recompute_fn(*args)
                except _StopRecomputationError:
                    pass
                frame.is_recomputed[gid] = True
                frame.check_recomputed_tensors_match(gid)
            _internal_assert(gid in holder.handles)
            if holder.handles[gid] is None:
                raise CheckpointError(
                    "torch.utils.checkpoint: Unpack is being triggered for a tensor that was "
                    "already unpacked once. If you are calling ctx.saved_tensors in backward, "
                    "make sure to do so only once. Otherwise please open an issue with details "
                    "on your use case."
                )
            _internal_assert(holder.handles[gid] in frame.recomputed[gid])
            ret = frame.recomputed[gid][holder.handles[gid]]  # type: ignore[index]
            holder.handles[gid] = None
            return ret

        super().__init__(pack_hook, unpack_hook)


def _checkpoint_without_reentrant_generator(
    fn: Callable[..., Any],
    preserve_rng_state: bool = True,
    context_fn: Callable[[], tuple[Any, Any]] | None = None,
    determinism_check: str = _DEFAULT_DETERMINISM_MODE,
    debug: bool = False,
    early_stop: bool = True,
    *args: Any,
    **kwargs: Any,
) -> Generator[None, None, None]:
    """Checkpointing without reentrant autograd: yields once, while the caller runs `fn`
    under the packing hook (checkpoint() drives it)."""
    # import cycle: checkpoint imports this module
    from tensortrace.utils.checkpoint import (
        _get_device_module,
        _infer_device_type,
        get_device_states,
        noop_context_fn,
        set_device_states,
    )

    if context_fn is None:
        context_fn = noop_context_fn
    if _checkpoint_debug_enabled if _checkpoint_debug_enabled is not None else debug:
        if context_fn is not noop_context_fn:
            raise ValueError("debug=True is incompatible with non-default context_fn")
        raise NotImplementedError(
            "torch.utils.checkpoint: debug=True logs operators through LoggingTensorMode, a "
            "TorchDispatchMode, which tensortrace does not have"
        )
    if determinism_check in _allowed_determinism_checks_to_fns:
        metadata_fn = _allowed_determinism_checks_to_fns[determinism_check]
    else:
        raise ValueError(
            "determinism_check should be one of "
            f"{list(_allowed_determinism_checks_to_fns.keys())}, but got {determinism_check}"
        )
    device_type = _infer_device_type(*args)
    device_module = _get_device_module(device_type)
    forward_context, recompute_context = context_fn()
    had_device_in_fwd = False
    fwd_devices: list[int] = []
    fwd_device_states: list[Any] = []
    if preserve_rng_state:
        fwd_cpu_state = torch.get_rng_state()
        if getattr(device_module, "_initialized", False):
            had_device_in_fwd = True
            fwd_devices, fwd_device_states = get_device_states(*args)

    def recompute_fn(*inputs: Any) -> None:
        rng_devices = []
        if preserve_rng_state and had_device_in_fwd:
            rng_devices = fwd_devices
        with torch.random.fork_rng(
            devices=rng_devices, enabled=preserve_rng_state, device_type=device_type
        ):
            if preserve_rng_state:
                torch.set_rng_state(fwd_cpu_state)
                if had_device_in_fwd:
                    set_device_states(fwd_devices, fwd_device_states, device_type=device_type)
            with recompute_context:
                fn(*inputs, **kwargs)

    new_frame = _CheckpointFrame(
        recompute_fn,
        _enable_checkpoint_early_stop if _enable_checkpoint_early_stop is not None else early_stop,
        None,
        metadata_fn,
    )
    if not torch.is_grad_enabled():
        yield
        return
    new_frame.save_inputs(*args)
    forward_context_suppressed_exc = False
    with _checkpoint_hook(new_frame), forward_context:
        try:
            yield
        except BaseException:
            forward_context_suppressed_exc = True
            raise
    if forward_context_suppressed_exc:
        raise RuntimeError(
            "torch.utils.checkpoint: the forward context provided by "
            "context_fn suppressed an exception raised during the "
            "checkpointed forward. This is not supported because checkpoint "
            "cannot return a value for a failed forward."
        )
    new_frame.forward_completed = True
    if (
        getattr(device_module, "_initialized", False)
        and preserve_rng_state
        and not had_device_in_fwd
    ):
        raise RuntimeError(
            "PyTorch's device state was initialized in the forward pass "
            "of a Checkpoint, which is not allowed. Please open an issue "
            "if you need this feature."
        )
