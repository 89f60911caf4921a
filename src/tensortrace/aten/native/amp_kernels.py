"""The gradient scaler's two ops: unscale gradients while looking for infs and NaNs, and update
the scale.

Mirrors `aten/src/ATen/native/AmpKernels.cpp` (the CPU natives, which call the DispatchStubs
whose kernels are in cpu/amp_grad_scaler_kernels.py, as AmpGradScalerKernels.cpp) and
`aten/src/ATen/native/cuda/AmpKernels.cu` (the CUDA natives: native/cuda/amp_kernels.py).

_amp_foreach_non_finite_check_and_unscale_(grads, found_inf, inv_scale): each gradient is
multiplied in place by inv_scale (in float32 for float16 and bfloat16 gradients, rounded once),
and found_inf is set to 1.0 if any value was inf or NaN before the multiplication.
_amp_update_scale_(scale, growth_tracker, found_inf, growth_factor, backoff_factor,
growth_interval): after an overflow the scale is multiplied by backoff_factor and the tracker
reset; otherwise the tracker counts the clean step, and at growth_interval the scale is
multiplied by growth_factor (unless that would overflow float32) and the tracker reset.
"""

from __future__ import annotations

from collections.abc import Sequence

from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType

SOURCE = "aten/src/ATen/native/AmpKernels.cpp"
HEADER = "aten/src/ATen/native/AmpKernels.h"

_amp_foreach_non_finite_check_and_unscale_cpu_stub = DECLARE_DISPATCH(
    "_amp_foreach_non_finite_check_and_unscale_cpu_stub", HEADER
)
_amp_update_scale_cpu_stub = DECLARE_DISPATCH("_amp_update_scale_cpu_stub", HEADER)


@native_function(SOURCE)
def _amp_foreach_non_finite_check_and_unscale_cpu_(
    self: Sequence[Tensor], found_inf: Tensor, inv_scale: Tensor
) -> None:
    scaled_grads = self
    _amp_foreach_non_finite_check_and_unscale_cpu_stub(
        found_inf.device().type_, scaled_grads, found_inf, inv_scale
    )


@native_function(SOURCE)
def _amp_update_scale_cpu_(
    self: Tensor,
    growth_tracker: Tensor,
    found_inf: Tensor,
    scale_growth_factor: float,
    scale_backoff_factor: float,
    growth_interval: int,
) -> Tensor:
    current_scale, growth_factor, backoff_factor = self, scale_growth_factor, scale_backoff_factor
    _amp_update_scale_cpu_stub(
        growth_tracker.device().type_,
        current_scale,
        growth_tracker,
        found_inf,
        growth_factor,
        backoff_factor,
        growth_interval,
    )
    return current_scale


# ---- the checks of AmpGradScalerKernels.cpp and cuda/AmpKernels.cu ---------------------------
def check_unscale_args(
    scaled_grads: Sequence[Tensor], found_inf: Tensor, inv_scale: Tensor, device: str
) -> None:
    """The checks both devices' unscale kernels make ("a CPU tensor" / "a CUDA tensor")."""
    on = (lambda t: t.device().is_cpu()) if device == "CPU" else (lambda t: t.device().is_cuda())
    TORCH_CHECK(on(inv_scale), f"inv_scale must be a {device} tensor.")
    TORCH_CHECK(on(found_inf), f"found_inf must be a {device} tensor.")
    TORCH_CHECK(inv_scale.numel() == 1, "inv_scale must be a 1-element tensor.")
    TORCH_CHECK(found_inf.numel() == 1, "found_inf must be a 1-element tensor.")
    TORCH_CHECK(inv_scale.scalar_type() == ScalarType.Float, "inv_scale must be a float tensor.")
    TORCH_CHECK(found_inf.scalar_type() == ScalarType.Float, "found_inf must be a float tensor.")


def check_update_args(
    current_scale: Tensor, growth_tracker: Tensor, found_inf: Tensor, device: str
) -> None:
    on = (lambda t: t.device().is_cpu()) if device == "CPU" else (lambda t: t.device().is_cuda())
    TORCH_CHECK(on(growth_tracker), f"growth_tracker must be a {device} tensor.")
    TORCH_CHECK(on(current_scale), f"current_scale must be a {device} tensor.")
    TORCH_CHECK(on(found_inf), f"found_inf must be a {device} tensor.")
    TORCH_CHECK(growth_tracker.numel() == 1, "growth_tracker must be a 1-element tensor.")
    TORCH_CHECK(current_scale.numel() == 1, "current_scale must be a 1-element tensor.")
    TORCH_CHECK(found_inf.numel() == 1, "found_inf must be a 1-element tensor.")
    TORCH_CHECK(
        growth_tracker.scalar_type() == ScalarType.Int, "growth_tracker must be an int tensor."
    )
    TORCH_CHECK(
        current_scale.scalar_type() == ScalarType.Float, "current_scale must be a float tensor."
    )
    TORCH_CHECK(found_inf.scalar_type() == ScalarType.Float, "found_inf must be a float tensor.")
