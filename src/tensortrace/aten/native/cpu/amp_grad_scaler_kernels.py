"""The CPU kernels of the gradient scaler's ops.

Mirrors `aten/src/ATen/native/cpu/AmpGradScalerKernels.cpp`
(_amp_foreach_non_finite_check_and_unscale_cpu_kernel, _amp_update_scale_cpu_kernel), registered
for the stubs of native/amp_kernels.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tensortrace.aten.native.amp_kernels import (
    _amp_foreach_non_finite_check_and_unscale_cpu_stub,
    _amp_update_scale_cpu_stub,
    check_unscale_args,
    check_update_args,
)
from tensortrace.aten.native.cpu.binary_ops_kernel import AT_DISPATCH_CHECK
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/cpu/AmpGradScalerKernels.cpp"
# AT_DISPATCH_FLOATING_TYPES and AT_DISPATCH_REDUCED_FLOATING_TYPES
_FLOATING = (ScalarType.Float, ScalarType.Double, ScalarType.Half, ScalarType.BFloat16)


def unscale_loop(
    scaled_grads: Sequence[Tensor], found_inf: Tensor, inv_scale: Tensor, name: str
) -> None:
    """Each gradient times inv_scale, in place (float16 / bfloat16 in float32, their opmath
    type, rounded once); found_inf = 1.0 if any gradient held an inf or a NaN. `name` is the
    kernel's, in the error for a dtype AT_DISPATCH_FLOATING_TYPES has no case for."""
    inv = np.float32(inv_scale.numpy_view().reshape(()))
    found = found_inf.numpy_view()
    for t in scaled_grads:
        AT_DISPATCH_CHECK(name, t.scalar_type(), t.scalar_type() in _FLOATING)
        values = t.numpy_view()
        opmath = values.astype(np.float32) if values.dtype.itemsize == 2 else values
        if not np.isfinite(opmath).all():
            found[...] = np.float32(1.0)
        if inv != np.float32(1.0):
            with np.errstate(all="ignore"):
                values[...] = (opmath * inv.astype(opmath.dtype)).astype(values.dtype)


def update_scale_loop(
    current_scale: Tensor,
    growth_tracker: Tensor,
    found_inf: Tensor,
    growth_factor: float,
    backoff_factor: float,
    growth_interval: int,
) -> None:
    scale = current_scale.numpy_view()
    tracker = growth_tracker.numpy_view()
    if float(found_inf.numpy_view().reshape(())):
        scale[...] = np.float32(float(scale.reshape(())) * backoff_factor)
        tracker[...] = 0
        return
    # a successful step: the tracker counts it before comparing with growth_interval
    successful = int(tracker.reshape(())) + 1
    if successful == growth_interval:
        with np.errstate(over="ignore"):
            new_scale = np.float32(float(scale.reshape(())) * growth_factor)
        if np.isfinite(new_scale):  # do not grow the scale past fp32 bounds to inf
            scale[...] = new_scale
        tracker[...] = 0
    else:
        tracker[...] = successful


@traced("kernel", "at::native::_amp_foreach_non_finite_check_and_unscale_cpu_kernel", SOURCE)
def _amp_foreach_non_finite_check_and_unscale_cpu_kernel(
    scaled_grads: Sequence[Tensor], found_inf: Tensor, inv_scale: Tensor
) -> None:
    if len(scaled_grads) == 0:
        return
    check_unscale_args(scaled_grads, found_inf, inv_scale, "CPU")
    for t in scaled_grads:
        TORCH_CHECK(t.device().is_cpu(), "one of scaled_grads was not a CPU tensor.")
    unscale_loop(
        scaled_grads, found_inf, inv_scale, "_amp_foreach_non_finite_check_and_unscale_cpu"
    )


@traced("kernel", "at::native::_amp_update_scale_cpu_kernel", SOURCE)
def _amp_update_scale_cpu_kernel(
    current_scale: Tensor,
    growth_tracker: Tensor,
    found_inf: Tensor,
    growth_factor: float,
    backoff_factor: float,
    growth_interval: int,
) -> None:
    check_update_args(current_scale, growth_tracker, found_inf, "CPU")
    update_scale_loop(
        current_scale, growth_tracker, found_inf, growth_factor, backoff_factor, growth_interval
    )


REGISTER_DISPATCH(
    _amp_foreach_non_finite_check_and_unscale_cpu_stub,
    _amp_foreach_non_finite_check_and_unscale_cpu_kernel,
)
REGISTER_DISPATCH(_amp_update_scale_cpu_stub, _amp_update_scale_cpu_kernel)
