"""Rprop (resilient backpropagation), torch's single-tensor algorithm.

Mirrors `torch/optim/rprop.py` (_single_tensor_rprop, the CPU default). Only the sign of the
gradient is used: each element keeps its own step size (state "step_size", starting at lr).
Per parameter: step += 1; sign = sign(g * prev); where the sign held (> 0) the step size grows
by etaplus, where it flipped (< 0) it shrinks by etaminus and that element's gradient is taken
as 0; step sizes are clamped to step_sizes; then p -= sign(g) * step_size and prev = g. The
masks are written through boolean-mask assignment (index_put_), as torch writes them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensortrace as torch
from tensortrace.optim.optimizer import (
    Optimizer,
    _get_scalar_dtype,
    _single_tensor_only,
    _to_scalar,
    _use_grad_for_differentiable,
)

__all__ = ["Rprop"]


class Rprop(Optimizer):
    def __init__(
        self,
        params: Any,
        lr: Any = 1e-2,
        etas: tuple[float, float] = (0.5, 1.2),
        step_sizes: tuple[float, float] = (1e-6, 50),
        *,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        if isinstance(lr, torch.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        _single_tensor_only("Rprop", foreach=foreach, capturable=capturable)
        defaults = {
            "lr": lr,
            "etas": etas,
            "step_sizes": step_sizes,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _init_group(
        self,
        group: dict[str, Any],
        params: list[Any],
        grads: list[Any],
        prevs: list[Any],
        step_sizes: list[Any],
        state_steps: list[Any],
    ) -> None:
        for p in group["params"]:
            if p.grad is None:
                continue
            params.append(p)
            grad = p.grad
            grads.append(grad)
            state = self.state[p]
            if len(state) == 0:  # lazy state initialization, keys in torch's order
                state["step"] = torch.zeros((), dtype=_get_scalar_dtype())
                state["prev"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                if p.dtype.is_complex:
                    state["step_size"] = torch.full_like(grad, complex(group["lr"], group["lr"]))
                else:
                    state["step_size"] = torch.full_like(grad, _to_scalar(group["lr"]))
            prevs.append(state["prev"])
            step_sizes.append(state["step_size"])
            state_steps.append(state["step"])

    @_use_grad_for_differentiable
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            params: list[Any] = []
            grads: list[Any] = []
            prevs: list[Any] = []
            step_sizes: list[Any] = []
            state_steps: list[Any] = []
            etaminus, etaplus = group["etas"]
            step_size_min, step_size_max = group["step_sizes"]
            self._init_group(group, params, grads, prevs, step_sizes, state_steps)
            _single_tensor_rprop(
                params,
                grads,
                prevs,
                step_sizes,
                state_steps,
                step_size_min=step_size_min,
                step_size_max=step_size_max,
                etaminus=etaminus,
                etaplus=etaplus,
                maximize=group["maximize"],
                differentiable=group["differentiable"],
            )
        return loss


def _single_tensor_rprop(
    params: list[Any],
    grads: list[Any],
    prevs: list[Any],
    step_sizes: list[Any],
    state_steps: list[Any],
    *,
    step_size_min: float,
    step_size_max: float,
    etaminus: float,
    etaplus: float,
    maximize: bool,
    differentiable: bool,
) -> None:
    for i, param in enumerate(params):
        grad = grads[i]
        grad = grad if not maximize else -grad
        prev = prevs[i]
        step_size = step_sizes[i]
        step = state_steps[i]
        step += 1
        if param.is_complex():
            grad = torch.view_as_real(grad)
            prev = torch.view_as_real(prev)
            param = torch.view_as_real(param)
            step_size = torch.view_as_real(step_size)
        if differentiable:
            sign = grad.mul(prev.clone()).sign()
        else:
            sign = grad.mul(prev).sign()
        sign[sign.gt(0)] = etaplus
        sign[sign.lt(0)] = etaminus
        sign[sign.eq(0)] = 1
        # update the step sizes with the step size updates
        step_size.mul_(sign).clamp_(step_size_min, step_size_max)
        # for dir < 0, dfdx = 0; for dir >= 0, dfdx = dfdx
        grad = grad.clone(memory_format=torch.preserve_format)
        grad[sign.eq(etaminus)] = 0
        param.addcmul_(grad.sign(), step_size, value=-1)
        prev.copy_(grad)
