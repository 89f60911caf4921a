"""The CUDA natives of the gradient scaler's ops (native/amp_kernels.py has the CPU ones).

Mirrors `aten/src/ATen/native/cuda/AmpKernels.cu`: the same checks, for CUDA tensors, and the
same arithmetic; on the emulated device the memory is host memory, so the loops are the CPU
kernel's (cpu/amp_grad_scaler_kernels.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from tensortrace.aten.native.amp_kernels import check_unscale_args, check_update_args
from tensortrace.aten.native.cpu.amp_grad_scaler_kernels import unscale_loop, update_scale_loop
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK

CUDA_SOURCE = "aten/src/ATen/native/cuda/AmpKernels.cu"


@native_function(CUDA_SOURCE)
def _amp_foreach_non_finite_check_and_unscale_cuda_(
    self: Sequence[Tensor], found_inf: Tensor, inv_scale: Tensor
) -> None:
    scaled_grads = self
    if len(scaled_grads) == 0:
        return
    check_unscale_args(scaled_grads, found_inf, inv_scale, "CUDA")
    for t in scaled_grads:
        TORCH_CHECK(t.device().is_cuda(), "one of scaled_grads was not a CUDA tensor.")
    unscale_loop(
        scaled_grads, found_inf, inv_scale, "_amp_foreach_non_finite_check_and_unscale_cuda"
    )


@native_function(CUDA_SOURCE)
def _amp_update_scale_cuda_(
    self: Tensor,
    growth_tracker: Tensor,
    found_inf: Tensor,
    scale_growth_factor: float,
    scale_backoff_factor: float,
    growth_interval: int,
) -> Tensor:
    current_scale, growth_factor, backoff_factor = self, scale_growth_factor, scale_backoff_factor
    check_update_args(current_scale, growth_tracker, found_inf, "CUDA")
    update_scale_loop(
        current_scale,
        growth_tracker,
        found_inf,
        growth_factor,
        backoff_factor,
        growth_interval,
    )
    return current_scale
