"""ASGD (averaged stochastic gradient descent), torch's single-tensor algorithm.

Mirrors `torch/optim/asgd.py` (_single_tensor_asgd, the CPU default). The state holds step,
eta (the current step size), mu (the averaging weight), all scalar tensors, and ax (the
average). Per parameter: step += 1; g += weight_decay * p; p *= 1 - lambd * eta; p -= eta * g;
ax = p while mu is 1, else ax += mu * (p - ax); then eta = lr / (1 + lambd * lr * t)^alpha and
mu = 1 / max(1, t - t0), computed as Python floats and copied into the state's tensors.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensortrace as torch
from tensortrace.optim.optimizer import (
    Optimizer,
    _get_scalar_dtype,
    _get_value,
    _single_tensor_only,
    _to_scalar,
    _use_grad_for_differentiable,
)

__all__ = ["ASGD"]


class ASGD(Optimizer):
    def __init__(
        self,
        params: Any,
        lr: Any = 1e-2,
        lambd: float = 1e-4,
        alpha: float = 0.75,
        t0: float = 1e6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        if isinstance(lr, torch.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _single_tensor_only("ASGD", foreach=foreach, capturable=capturable)
        defaults = {
            "lr": lr,
            "lambd": lambd,
            "alpha": alpha,
            "t0": t0,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _init_group(
        self,
        group: dict[str, Any],
        params_with_grad: list[Any],
        grads: list[Any],
        mus: list[Any],
        axs: list[Any],
        etas: list[Any],
        state_steps: list[Any],
    ) -> None:
        for p in group["params"]:
            if p.grad is None:
                continue
            params_with_grad.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:  # lazy state initialization, keys in torch's order
                state["step"] = torch.zeros((), device=p.device, dtype=_get_scalar_dtype())
                state["eta"] = (
                    torch.as_tensor(
                        _to_scalar(group["lr"]), device=p.device, dtype=_get_scalar_dtype()
                    )
                    .clone()
                    .detach()
                )
                state["mu"] = torch.ones((), device=p.device, dtype=_get_scalar_dtype())
                state["ax"] = torch.zeros_like(p, memory_format=torch.preserve_format)
            mus.append(state["mu"])
            axs.append(state["ax"])
            etas.append(state["eta"])
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
            mus: list[Any] = []
            axs: list[Any] = []
            etas: list[Any] = []
            state_steps: list[Any] = []
            self._init_group(group, params_with_grad, grads, mus, axs, etas, state_steps)
            _single_tensor_asgd(
                params_with_grad,
                grads,
                axs,
                mus,
                etas,
                state_steps,
                lambd=group["lambd"],
                lr=group["lr"],
                t0=group["t0"],
                alpha=group["alpha"],
                weight_decay=group["weight_decay"],
                maximize=group["maximize"],
            )
        return loss


def _single_tensor_asgd(
    params: list[Any],
    grads: list[Any],
    axs: list[Any],
    mus: list[Any],
    etas: list[Any],
    state_steps: list[Any],
    *,
    lambd: float,
    lr: Any,
    t0: float,
    alpha: float,
    weight_decay: float,
    maximize: bool,
) -> None:
    lr = _to_scalar(lr)
    for i, param in enumerate(params):
        grad = grads[i]
        grad = grad if not maximize else -grad
        mu = mus[i]
        ax = axs[i]
        eta = etas[i]
        step_t = state_steps[i]
        if param.is_complex():
            grad = torch.view_as_real(grad)
            param = torch.view_as_real(param)
            ax = torch.view_as_real(ax)
        step_t += 1
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        eta_value = _get_value(eta)
        param.mul_(1 - lambd * eta_value)  # decay term
        param.add_(grad, alpha=-eta_value)  # update parameter
        # averaging
        if mu.item() != 1:
            ax.add_(param.sub(ax).mul_(mu))
        else:
            ax.copy_(param)
        step = _get_value(step_t)
        new_eta = torch.as_tensor(lr / ((1 + lambd * lr * step) ** alpha))
        eta.copy_(new_eta)
        new_mu = torch.as_tensor(1 / max(1, step - t0))
        mu.copy_(new_mu)
