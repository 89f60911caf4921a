"""Adagrad, torch's single-tensor algorithm (dense gradients).

Mirrors `torch/optim/adagrad.py` (_single_tensor_adagrad, the CPU default). Unlike the other
optimizers, Adagrad creates its state in __init__, not lazily: every parameter gets
step = tensor(0.) and sum = full_like(p, initial_accumulator_value). Per step: step += 1;
g += weight_decay * p; clr = lr / (1 + (step - 1) * lr_decay) as a Python float;
sum += g * g (addcmul_); p -= clr * g / (sqrt(sum) + eps) (addcdiv_).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensortrace as torch
from tensortrace.optim.optimizer import Optimizer, _use_grad_for_differentiable


class Adagrad(Optimizer):
    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(
                f"Invalid initial_accumulator_value value: {initial_accumulator_value}"
            )
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if foreach or fused:
            raise NotImplementedError(
                "tensortrace models the single-tensor Adagrad only (foreach=False, fused=False)"
            )
        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)
        # eager state: a state_dict taken before the first step already holds step and sum
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p)

    def _init_state(self, p: Any) -> None:
        state = self.state[p]
        state["step"] = torch.tensor(0.0, dtype=torch.float32)
        # torch reads the optimizer-wide default here, not the group's value
        state["sum"] = torch.full_like(
            p, self.defaults["initial_accumulator_value"], memory_format=torch.preserve_format
        )

    def _init_group(
        self,
        group: dict[str, Any],
        params_with_grad: list[Any],
        grads: list[Any],
        state_sums: list[Any],
        state_steps: list[Any],
    ) -> None:
        for p in group["params"]:
            if p.grad is not None:
                params_with_grad.append(p)
                grads.append(p.grad)
                if len(self.state[p]) == 0:  # a group added after __init__
                    self._init_state(p)
                state_sums.append(self.state[p]["sum"])
                state_steps.append(self.state[p]["step"])

    @_use_grad_for_differentiable
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            params_with_grad: list[Any] = []
            grads: list[Any] = []
            state_sums: list[Any] = []
            state_steps: list[Any] = []
            self._init_group(group, params_with_grad, grads, state_sums, state_steps)
            _single_tensor_adagrad(
                params_with_grad,
                grads,
                state_sums,
                state_steps,
                lr=group["lr"],
                weight_decay=group["weight_decay"],
                lr_decay=group["lr_decay"],
                eps=group["eps"],
                maximize=group["maximize"],
                differentiable=group["differentiable"],
            )
        return loss


def _single_tensor_adagrad(
    params: list[Any],
    grads: list[Any],
    state_sums: list[Any],
    state_steps: list[Any],
    *,
    lr: float,
    weight_decay: float,
    lr_decay: float,
    eps: float,
    maximize: bool,
    differentiable: bool,
) -> None:
    for param, grad, state_sum, step_t in zip(params, grads, state_sums, state_steps):
        step_t += 1
        step = step_t.item()  # torch's _get_value: a Python float outside torch.compile
        grad = grad if not maximize else -grad
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        clr = lr / (1 + (step - 1) * lr_decay)
        state_sum.addcmul_(grad, grad, value=1)
        std = state_sum.sqrt() + eps if differentiable else state_sum.sqrt().add_(eps)
        param.addcdiv_(grad, std, value=-clr)
