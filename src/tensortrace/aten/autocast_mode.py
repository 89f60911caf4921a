"""Autocast: the AutocastCPU and AutocastCUDA kernels that cast an op's inputs before it runs.

Mirrors `aten/src/ATen/autocast_mode.h` and `aten/src/ATen/autocast_mode.cpp`: the per-thread
state (which devices autocast, to which lower-precision dtype, the weight-cast cache and the
context managers' nesting depth), `cached_cast`, the cast policies (`CastPolicy`) and their
wrappers (`WrapFunction_<policy, device_type>::call`), and the op lists each device registers
its wrappers for (AT_FORALL_LOWER_PRECISION_FP, AT_FORALL_FP32, ... for CUDA; the KERNEL_CPU
lines for the CPU). Every other op falls through the autocast keys (dispatcher.py).

A wrapper excludes its own key, casts the tensor arguments on its device (cached_cast: not the
tensors of another device, not integers, not float64) and calls the op again through the
dispatcher, so the trace (like torch.profiler) shows `aten::mm` inside `aten::mm`, with the
casts (`aten::to`) in between and autograd's kernel below: autocast casts before autograd
records, so a float16 mm saves float16 inputs for its backward.

Note [Autocast keys in the local include set] in c10/dispatch_key.py says how the keys get
into a dispatch's key set.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

from tensortrace.aten.dispatcher import KernelFunction, OperatorHandle, singleton
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.autograd_state import autograd_state
from tensortrace.c10.dispatch_key import DispatchKey
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.local_dispatch_key_set import ExcludeDispatchKeyGuard, _tls
from tensortrace.c10.scalar_type import ScalarType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/autocast_mode.cpp"
HEADER = "aten/src/ATen/autocast_mode.h"

# is_autocast_available: the device types with an autocast key (of those this runtime has)
_KEY_OF_DEVICE = {"cpu": DispatchKey.AutocastCPU, "cuda": DispatchKey.AutocastCUDA}


class _AutocastState(threading.local):
    """The thread_local variables of autocast_mode.cpp (autocast_dtype, cache_enabled,
    nesting); whether a device autocasts is its key in the local dispatch key set."""

    def __init__(self) -> None:
        self.autocast_dtype = {"cpu": ScalarType.BFloat16, "cuda": ScalarType.Half}
        self.cache_enabled = True
        self.nesting = 0


_state = _AutocastState()
# the cache of lower_precision_fp casts of fp32 leaf weights: id(TensorImpl) -> (the TensorImpl,
# its cast). Holding the TensorImpl keeps its id from being reused by another tensor while the
# entry lives, as autocast_mode.cpp's weak_intrusive_ptr does.
_cached_casts: dict[int, tuple[Any, Tensor]] = {}
_cached_casts_lock = threading.Lock()


def is_autocast_available(device_type: str) -> bool:
    return device_type in _KEY_OF_DEVICE


def get_autocast_dispatch_key_from_device_type(device_type: str) -> DispatchKey:
    key = _KEY_OF_DEVICE.get(device_type)
    if key is None:
        raise RuntimeError(
            "unknown device type for autocast in get_autocast_dispatch_key_from_device_type"
        )
    return key


def is_autocast_enabled(device_type: str) -> bool:
    return _tls.included_.has(get_autocast_dispatch_key_from_device_type(device_type))


def set_autocast_enabled(device_type: str, enabled: bool) -> None:
    key = get_autocast_dispatch_key_from_device_type(device_type)
    included = _tls.included_
    _tls.included_ = included.add(key) if enabled else included.remove(key)


def get_autocast_dtype(device_type: str) -> ScalarType:
    return _state.autocast_dtype[device_type]


def set_autocast_dtype(device_type: str, dtype: ScalarType) -> None:
    _state.autocast_dtype[device_type] = dtype


def is_autocast_cache_enabled() -> bool:
    return _state.cache_enabled


def set_autocast_cache_enabled(enabled: bool) -> None:
    _state.cache_enabled = enabled


def clear_cache() -> None:
    with _cached_casts_lock:
        _cached_casts.clear()


def increment_nesting() -> int:
    _state.nesting += 1
    return _state.nesting


def decrement_nesting() -> int:
    _state.nesting -= 1
    return _state.nesting


def get_lower_precision_fp_from_device_type(device_type: str) -> ScalarType:
    if not is_autocast_available(device_type):
        raise RuntimeError(
            "unknown device type for autocast in get_lower_precision_fp_from_device_type"
        )
    return _state.autocast_dtype[device_type]


# ---- eligibility, promotion and the cached cast (autocast_mode.h) -------------------------
def is_eligible(arg: Any, device_type: str) -> bool:
    """A defined floating-point tensor on the autocast device, not float64."""
    if not isinstance(arg, Tensor) or not arg.defined():
        return False
    st = arg.scalar_type()
    return (
        arg.device().type == device_type
        and st in (ScalarType.Half, ScalarType.Float, ScalarType.BFloat16)
        # is_floating_point, and not kDouble
    )


def _prioritize(current: ScalarType, arg: Any, device_type: str) -> ScalarType:
    if isinstance(arg, (list, tuple)):
        for t in arg:
            current = _prioritize(current, t, device_type)
        return current
    if not isinstance(arg, Tensor) or not arg.defined():
        return current
    TORCH_CHECK(current != ScalarType.Double, "promote type is double in at::autocast::prioritize")
    if arg.device().type != device_type or not arg.is_floating_point():
        return current
    lower_precision_fp = get_lower_precision_fp_from_device_type(device_type)
    nxt = arg.scalar_type()
    if nxt == ScalarType.Double:
        return current  # ignores double tensors
    if current == ScalarType.Float or nxt == ScalarType.Float:
        return ScalarType.Float  # prioritizes float over lower_precision_fp
    TORCH_CHECK(
        current == lower_precision_fp and nxt == lower_precision_fp,
        "Unexpected floating ScalarType in at::autocast::prioritize",
    )
    return lower_precision_fp


def _to(arg: Tensor, to_type: ScalarType) -> Tensor:
    from tensortrace.aten.generated import operators as ops  # generated after this module

    return ops.to_dtype.call(arg, to_type, False, False, None)  # type: ignore[no-any-return]


@traced("native", "at::autocast::cached_cast", SOURCE)
def cached_cast(to_type: ScalarType, arg: Any, device_type: str) -> Any:
    """arg.to(to_type) for an eligible tensor of another dtype (anything else as it is); the
    lower_precision_fp cast of an fp32 leaf that requires grad (a weight) is cached until the
    outermost autocast context exits, so each forward casts each weight once."""
    if isinstance(arg, (list, tuple)):
        return [cached_cast(to_type, t, device_type) for t in arg]
    if not (is_eligible(arg, device_type) and arg.scalar_type() != to_type):
        return arg
    impl = arg.unsafeGetTensorImpl()
    meta = impl.autograd_meta_
    can_try_cache = (
        to_type == get_lower_precision_fp_from_device_type(device_type)
        and arg.scalar_type() == ScalarType.Float
        and meta is not None
        and meta.requires_grad_
        and meta.grad_fn_ is None  # is_leaf()
        and not meta.is_view_  # !is_view()
        and _state.cache_enabled
        and not autograd_state.inference_mode
    )
    if not can_try_cache:
        return _to(arg, to_type)
    with _cached_casts_lock:
        hit = _cached_casts.get(id(impl))
        if hit is not None:
            return hit[1]
        # a cast made under no_grad still records its grad_fn, so it serves a later forward
        # that needs gradients (c10::AutoGradMode enable_grad(true))
        prev, autograd_state.grad_mode = autograd_state.grad_mode, True
        try:
            casted = _to(arg, to_type)
        finally:
            autograd_state.grad_mode = prev
        _cached_casts[id(impl)] = (impl, casted)
        return casted


# ---- the wrappers, one per CastPolicy (WrapFunction_<policy, device_type>::call) ------------
class _Wrapped:
    """What one registration binds: the op (called again through the dispatcher, as
    `&ATEN_FN(op)` is), the device type and its autocast key."""

    __slots__ = ("op", "device_type", "key", "redispatch")

    def __init__(
        self,
        op: OperatorHandle,
        device_type: str,
        redispatch: OperatorHandle | None = None,
    ) -> None:
        self.op = op
        self.device_type = device_type
        self.key = _KEY_OF_DEVICE[device_type]
        self.redispatch = redispatch or op

    def __repr__(self) -> str:
        return f"{self.op.name} on {self.device_type}"


def _cast_all(w: _Wrapped, to_type: ScalarType, args: tuple[Any, ...]) -> list[Any]:
    out = list(args)
    for i in w.op.tensor_indices:
        out[i] = cached_cast(to_type, args[i], w.device_type)
    return out


@traced("dispatch", "at::autocast::WrapFunction_<CastPolicy::lower_precision_fp>::call", HEADER)
def lower_precision_fp(w: _Wrapped, *args: Any) -> Any:
    with ExcludeDispatchKeyGuard(w.key):
        to_type = get_lower_precision_fp_from_device_type(w.device_type)
        return w.op.call(*_cast_all(w, to_type, args))


@traced("dispatch", "at::autocast::WrapFunction_<CastPolicy::fp32>::call", HEADER)
def fp32(w: _Wrapped, *args: Any) -> Any:
    with ExcludeDispatchKeyGuard(w.key):
        return w.op.call(*_cast_all(w, ScalarType.Float, args))


@traced("dispatch", "at::autocast::WrapFunction_<CastPolicy::fp32_set_opt_dtype>::call", HEADER)
def fp32_set_opt_dtype(w: _Wrapped, *args: Any) -> Any:
    """Ops with an optional output dtype (softmax, sum): run in fp32 unless given one."""
    with ExcludeDispatchKeyGuard(w.key):
        if not is_eligible(args[0], w.device_type):
            return w.op.call(*args)  # setting dtype could change implicit promotion
        out = list(args)
        for i, a in enumerate(w.op.schema.arguments):
            if a.type.base == "ScalarType" and a.type.optional and out[i] is None:
                out[i] = ScalarType.Float
        return w.op.call(*out)


@traced("dispatch", "at::autocast::WrapFunction_<CastPolicy::fp32_append_dtype>::call", HEADER)
def fp32_append_dtype(w: _Wrapped, *args: Any) -> Any:
    """norm without a dtype: redispatched to its dtype overload with float32 appended."""
    with ExcludeDispatchKeyGuard(w.key):
        first = args[0]
        out_type = ScalarType.Float if is_eligible(first, w.device_type) else first.scalar_type()
        return w.redispatch.call(*args, out_type)


@traced("dispatch", "at::autocast::WrapFunction_<CastPolicy::promote>::call", HEADER)
def promote(w: _Wrapped, *args: Any) -> Any:
    """Ops on several floating inputs: all in the widest of their dtypes."""
    with ExcludeDispatchKeyGuard(w.key):
        to_type = get_lower_precision_fp_from_device_type(w.device_type)
        for i in w.op.tensor_indices:
            to_type = _prioritize(to_type, args[i], w.device_type)
        return w.op.call(*_cast_all(w, to_type, args))


@traced("dispatch", "at::autocast::binary_cross_entropy_banned", SOURCE)
def binary_cross_entropy_banned(w: _Wrapped, *args: Any) -> Any:
    raise RuntimeError(
        "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
        "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
        "In this case, combine the two layers using "
        "torch.nn.functional.binary_cross_entropy_with_logits\n"
        "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
        "safe to autocast."
    )


_POLICIES: dict[str, Callable[..., Any]] = {
    "lower_precision_fp": lower_precision_fp,
    "fp32": fp32,
    "fp32_set_opt_dtype": fp32_set_opt_dtype,
    "promote": promote,
    "banned": binary_cross_entropy_banned,
}


def register_autocast_kernels() -> None:
    """TORCH_LIBRARY_IMPL(aten, Autocast, m) and TORCH_LIBRARY_IMPL(aten, AutocastCPU, m): each
    listed op that this runtime has gets its wrapper under the device's autocast key."""
    from tensortrace.aten import autocast_op_lists as lists  # the op lists, a module of data

    operators = singleton().operators
    for device_type, table in (("cuda", lists.CUDA), ("cpu", lists.CPU)):
        key = _KEY_OF_DEVICE[device_type]
        device_name = "CUDA" if device_type == "cuda" else "CPU"
        for policy, names in table.items():
            wrapper = _POLICIES[policy]
            for name in names:
                op = operators.get(name)
                if op is None:
                    continue  # an op this runtime does not have
                _register(op, key, wrapper, _Wrapped(op, device_type), policy, device_name)
        for name, target in lists.FP32_APPEND_DTYPE if device_type == "cuda" else ():
            op, redispatch = operators.get(name), operators.get(target)
            if op is not None and redispatch is not None:
                w = _Wrapped(op, device_type, redispatch)
                _register(op, key, fp32_append_dtype, w, "fp32_append_dtype", device_name)


def _register(
    op: OperatorHandle,
    key: DispatchKey,
    wrapper: Callable[..., Any],
    bound: _Wrapped,
    policy: str,
    device_name: str,
) -> None:
    name = (
        f"at::autocast::WrapFunction_<CastPolicy::{policy}, c10::DeviceType::{device_name}, "
        f"aten::{op.schema.full_name}>::call"
    )
    op.register(key, KernelFunction(functools.partial(wrapper, bound), name))
