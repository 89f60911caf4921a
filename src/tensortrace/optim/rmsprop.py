"""RMSprop (plain, centered, with momentum), torch's single-tensor algorithm.

Mirrors `torch/optim/rmsprop.py` (_single_tensor_rmsprop, the CPU default: foreach kernels are
for CUDA devices). Per parameter: step += 1 (a float32 tensor in the state, as torch keeps it);
g += weight_decay * p; square_avg = alpha * square_avg + (1 - alpha) * g * g (mul_ + addcmul_);
centered: grad_avg.lerp_(g, 1 - alpha) and avg = sqrt(square_avg - grad_avg^2), else
avg = sqrt(square_avg); avg += eps; with momentum buf = momentum * buf + g / avg and
p -= lr * buf, else p -= lr * g / avg (addcdiv_). The same in-place ops in the same order, so the
floats round as torch's do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensortrace as torch
from tensortrace.optim.optimizer import Optimizer, _use_grad_for_differentiable


class RMSprop(Optimizer):
    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        if foreach or capturable:
            raise NotImplementedError(
                "tensortrace models the single-tensor RMSprop only "
                "(foreach=False, capturable=False)"
            )
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "alpha": alpha,
            "eps": eps,
            "centered": centered,
            "weight_decay": weight_decay,
            "capturable": capturable,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _init_group(
        self,
        group: dict[str, Any],
        params_with_grad: list[Any],
        grads: list[Any],
        square_avgs: list[Any],
        momentum_buffer_list: list[Any],
        grad_avgs: list[Any],
        state_steps: list[Any],
    ) -> None:
        for p in group["params"]:
            if p.grad is None:
                continue
            params_with_grad.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:  # lazy state initialization, keys in torch's order
                state["step"] = torch.zeros((), dtype=torch.float32)
                state["square_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                if group["momentum"] > 0:
                    state["momentum_buffer"] = torch.zeros_like(
                        p, memory_format=torch.preserve_format
                    )
                if group["centered"]:
                    state["grad_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
            square_avgs.append(state["square_avg"])
            state_steps.append(state["step"])
            if group["momentum"] > 0:
                momentum_buffer_list.append(state["momentum_buffer"])
            if group["centered"]:
                grad_avgs.append(state["grad_avg"])

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
            grad_avgs: list[Any] = []
            momentum_buffer_list: list[Any] = []
            state_steps: list[Any] = []
            self._init_group(
                group,
                params_with_grad,
                grads,
                square_avgs,
                momentum_buffer_list,
                grad_avgs,
                state_steps,
            )
            _single_tensor_rmsprop(
                params_with_grad,
                grads,
                square_avgs,
                grad_avgs,
                momentum_buffer_list,
                state_steps,
                lr=group["lr"],
                alpha=group["alpha"],
                eps=group["eps"],
                weight_decay=group["weight_decay"],
                momentum=group["momentum"],
                centered=group["centered"],
                maximize=group["maximize"],
                differentiable=group["differentiable"],
            )
        return loss


def _single_tensor_rmsprop(
    params: list[Any],
    grads: list[Any],
    square_avgs: list[Any],
    grad_avgs: list[Any],
    momentum_buffer_list: list[Any],
    state_steps: list[Any],
    *,
    lr: float,
    alpha: float,
    eps: float,
    weight_decay: float,
    momentum: float,
    centered: bool,
    maximize: bool,
    differentiable: bool,
) -> None:
    for i, param in enumerate(params):
        step = state_steps[i]
        grad = grads[i] if not maximize else -grads[i]
        square_avg = square_avgs[i]
        step += 1
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
        if centered:
            grad_avg = grad_avgs[i]
            grad_avg.lerp_(grad, 1 - alpha)
            # the variance estimate: a new tensor, square_avg itself stays uncentered
            avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        else:
            avg = square_avg.sqrt()
        # in place unless a graph must be kept through avg (differentiable=True)
        avg = avg.add(eps) if differentiable else avg.add_(eps)
        if momentum > 0:
            buf = momentum_buffer_list[i]
            buf.mul_(momentum).addcdiv_(grad, avg)
            param.add_(buf, alpha=-lr)
        else:
            param.addcdiv_(grad, avg, value=-lr)
