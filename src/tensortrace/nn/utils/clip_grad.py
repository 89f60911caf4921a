"""clip_grad_norm_ and clip_grad_value_: scale or clamp the gradients of parameters in place.

Mirrors `torch/nn/utils/clip_grad.py`, following its per-tensor (non-foreach) path: torch 2.13
takes the foreach path on CPU too, but its CPU foreach kernels (`_foreach_norm`, `_foreach_mul_`,
`_foreach_clamp_*_`) fall back to the same per-tensor ops, so the values are the same; the trace
shows the per-tensor ops. The total norm is the norm of the stacked per-gradient norms
(linalg_vector_norm each, then stack, then linalg_vector_norm), the clip coefficient
max_norm / (total_norm + 1e-6) clamped to 1, multiplied into every gradient. All of it runs
under no_grad, as torch's `_no_grad` wrapper does.
"""

from __future__ import annotations

import functools
import types
import warnings
from collections.abc import Callable, Iterable
from typing import Any, TypeVar, cast

import tensortrace as torch

_tensor_or_tensors = torch.Tensor | Iterable[torch.Tensor]

_F = TypeVar("_F", bound=Callable[..., Any])


def _no_grad(func: _F) -> _F:
    """Run `func` under torch.no_grad() (torch's wrapper, which avoids a decorator import)."""

    def _no_grad_wrapper(*args: Any, **kwargs: Any) -> Any:
        with torch.no_grad():
            return func(*args, **kwargs)

    functools.update_wrapper(_no_grad_wrapper, func)
    return cast(_F, _no_grad_wrapper)


def _group_tensors_by_device_and_dtype(
    tensors: list[torch.Tensor],
) -> dict[tuple[Any, Any], list[torch.Tensor]]:
    """torch.utils._foreach_utils' grouping, for one list: (device, dtype) -> tensors, in order.

    Groups come in the order their first tensor appears (torch's C++ grouping is a hash map,
    which agrees whenever there is one group: one device and one dtype).
    """
    groups: dict[tuple[Any, Any], list[torch.Tensor]] = {}
    for t in tensors:
        groups.setdefault((t.device, t.dtype), []).append(t)
    return groups


@_no_grad
def get_total_norm(
    tensors: _tensor_or_tensors,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> torch.Tensor:
    """The norm of the tensors' norms: the norm of all of them viewed as one vector."""
    tensors = [tensors] if isinstance(tensors, torch.Tensor) else list(tensors)
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return torch.tensor(0.0)
    first_device = tensors[0].device
    norms: list[torch.Tensor] = []
    for device_tensors in _group_tensors_by_device_and_dtype(tensors).values():
        norms.extend([torch.linalg.vector_norm(g, norm_type) for g in device_tensors])

    total_norm = torch.linalg.vector_norm(
        torch.stack([norm.to(first_device) for norm in norms]), norm_type
    )

    if error_if_nonfinite and torch.logical_or(total_norm.isnan(), total_norm.isinf()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from "
            "`parameters` is non-finite, so it cannot be clipped. To disable "
            "this error and scale the gradients by the non-finite norm anyway, "
            "set `error_if_nonfinite=False`"
        )
    return total_norm


@_no_grad
def clip_grads_with_norm_(
    parameters: _tensor_or_tensors,
    max_norm: float,
    total_norm: Any,
    foreach: bool | None = None,
) -> None:
    """Scale the gradients by min(max_norm / (total_norm + 1e-6), 1), in place."""
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    if len(grads) == 0:
        return
    grouped_grads = _group_tensors_by_device_and_dtype(grads)

    clip_coef = max_norm / (total_norm + 1e-6)
    # multiplying by a coefficient clamped to 1 does nothing, but avoids a host sync on `if`
    clip_coef_clamped = torch.clamp(clip_coef, max=1.0)
    for (device, _), device_grads in grouped_grads.items():
        clip_coef_clamped_device = clip_coef_clamped.to(device)
        for g in device_grads:
            g.mul_(clip_coef_clamped_device)


@_no_grad
def clip_grad_norm_(
    parameters: _tensor_or_tensors,
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> torch.Tensor:
    """Clip the gradients' total norm to max_norm, in place; return the total norm."""
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)  # a generator would be exhausted by the first pass
        if is_generator and len(parameters) == 0:
            warnings.warn(
                "`parameters` is an empty generator, no gradient clipping will occur.",
                stacklevel=3,
            )
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(
    parameters: _tensor_or_tensors,
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> torch.Tensor:
    """Deprecated alias of clip_grad_norm_ (with torch's FutureWarning)."""
    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated "
        "in favor of `torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@_no_grad
def clip_grad_value_(
    parameters: _tensor_or_tensors,
    clip_value: float,
    foreach: bool | None = None,
) -> None:
    """Clamp every gradient into [-clip_value, clip_value], in place."""
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    grads = [p.grad for p in parameters if p.grad is not None]
    for device_grads in _group_tensors_by_device_and_dtype(grads).values():
        for grad in device_grads:
            grad.clamp_(min=-clip_value, max=clip_value)
