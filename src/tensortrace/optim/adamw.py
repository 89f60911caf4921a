"""AdamW: Adam with decoupled weight decay.

Mirrors `torch/optim/adamw.py`, which since torch 2.6 is Adam with decoupled_weight_decay=True
(and a weight_decay default of 1e-2): each step first shrinks the parameter, p *= 1 - lr * wd,
instead of adding wd * p to the gradient, so the decay never enters exp_avg or exp_avg_sq. The
update itself is `_single_tensor_adam` in adam.py.
"""

from __future__ import annotations

from typing import Any

from tensortrace.optim.adam import Adam


class AdamW(Adam):
    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
        )
