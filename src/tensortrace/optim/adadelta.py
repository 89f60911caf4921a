"""Adadelta, torch's single-tensor algorithm.

Mirrors `torch/optim/adadelta.py` (_single_tensor_adadelta, the CPU default). Per parameter:
step += 1 (a scalar tensor in the state); g += weight_decay * p;
square_avg = rho * square_avg + (1 - rho) * g * g; delta = sqrt(acc_delta + eps) /
sqrt(square_avg + eps) * g; acc_delta = rho * acc_delta + (1 - rho) * delta * delta; then
p -= lr * delta. The same in-place ops in the same order, so the floats round as torch's do.
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

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    def __init__(
        self,
        params: Any,
        lr: Any = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        if isinstance(lr, torch.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _single_tensor_only("Adadelta", foreach=foreach, capturable=capturable)
        defaults = {
            "lr": lr,
            "rho": rho,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "capturable": capturable,
            "foreach": foreach,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _init_group(
        self,
        group: dict[str, Any],
        params_with_grad: list[Any],
        grads: list[Any],
        square_avgs: list[Any],
        acc_deltas: list[Any],
        state_steps: list[Any],
    ) -> None:
        for p in group["params"]:
            if p.grad is None:
                continue
            params_with_grad.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:  # lazy state initialization, keys in torch's order
                state["step"] = torch.zeros((), dtype=_get_scalar_dtype())
                state["square_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                state["acc_delta"] = torch.zeros_like(p, memory_format=torch.preserve_format)
            square_avgs.append(state["square_avg"])
            acc_deltas.append(state["acc_delta"])
            state_steps.append(state["step"])

    @_use_grad_for_differentiable
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            params_with_grad: list[Any] = []
            grads: list[Any] = []
            square_avgs: list[Any] = []
            acc_deltas: list[Any] = []
            state_steps: list[Any] = []
            self._init_group(group, params_with_grad, grads, square_avgs, acc_deltas, state_steps)
            _single_tensor_adadelta(
                params_with_grad,
                grads,
                square_avgs,
                acc_deltas,
                state_steps,
                lr=group["lr"],
                rho=group["rho"],
                eps=group["eps"],
                weight_decay=group["weight_decay"],
                maximize=group["maximize"],
                differentiable=group["differentiable"],
            )
        return loss


def _single_tensor_adadelta(
    params: list[Any],
    grads: list[Any],
    square_avgs: list[Any],
    acc_deltas: list[Any],
    state_steps: list[Any],
    *,
    lr: Any,
    rho: float,
    eps: float,
    weight_decay: float,
    maximize: bool,
    differentiable: bool,
) -> None:
    lr = _to_scalar(lr)
    for param, grad, square_avg, acc_delta, step in zip(
        params, grads, square_avgs, acc_deltas, state_steps, strict=True
    ):
        step += 1
        grad = grad if not maximize else -grad
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        if param.is_complex():
            square_avg = torch.view_as_real(square_avg)
            acc_delta = torch.view_as_real(acc_delta)
            grad = torch.view_as_real(grad)
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_()
        if differentiable:
            delta = delta.clone()
        delta.div_(std).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        if param.is_complex():
            delta = torch.view_as_complex(delta)
        param.add_(delta, alpha=-lr)
