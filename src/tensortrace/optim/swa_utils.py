"""torch.optim.swa_utils: weight averaging (SWA and EMA) of a model, the SWALR schedule, and
update_bn to recompute batch-norm statistics for the averaged weights.

Mirrors `torch/optim/swa_utils.py`. AveragedModel keeps a deep copy of the model and, at each
update_parameters(model), averages the model's parameters into the copy's: the running mean by
default (avg + (p - avg) / (n + 1), what torch runs for CPU tensors), or an avg_fn (one tensor at
a time) or multi_avg_fn (lists of tensors) such as get_ema_multi_avg_fn(decay). torch's
multi-tensor functions call torch._foreach_lerp_ and friends; on CPU those run the same per-tensor
op in a loop, which is what these functions do (Note [foreach on CPU] below).

Note [foreach on CPU]: torch's _foreach_* ops on CPU tensors take the slow path,
foreach_tensor_*_slow, a for-loop over the tensors calling the single-tensor op (lerp_, sub,
addcdiv_, add_); so the loop here gives the same floats.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable, Iterable
from copy import deepcopy
from typing import Any, Literal

import tensortrace as torch
from tensortrace.nn import Module
from tensortrace.nn.modules.batchnorm import _BatchNorm
from tensortrace.optim.lr_scheduler_base import LRScheduler, _format_param
from tensortrace.optim.optimizer import Optimizer

__all__ = [
    "AveragedModel",
    "update_bn",
    "SWALR",
    "get_ema_multi_avg_fn",
    "get_swa_multi_avg_fn",
    "get_ema_avg_fn",
    "get_swa_avg_fn",
]

PARAM_LIST = tuple[Any, ...] | list[Any]


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable[[PARAM_LIST, PARAM_LIST, Any], None]:
    """The exponential moving average over lists of tensors: ema = lerp(ema, p, 1 - decay)."""
    if decay < 0.0 or decay > 1.0:
        raise ValueError(
            f"Invalid decay value {decay} provided. Please provide a value in [0,1] range."
        )

    @torch.no_grad()
    def ema_update(ema_param_list: PARAM_LIST, current_param_list: PARAM_LIST, _: Any) -> None:
        # foreach lerp only handles float and complex
        if torch.is_floating_point(ema_param_list[0]) or torch.is_complex(ema_param_list[0]):
            for p_ema, p_model in zip(ema_param_list, current_param_list, strict=True):
                p_ema.lerp_(p_model, 1 - decay)  # torch._foreach_lerp_ (Note [foreach on CPU])
        else:
            for p_ema, p_model in zip(ema_param_list, current_param_list, strict=True):
                p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn() -> Callable[[PARAM_LIST, PARAM_LIST, Any], None]:
    """The running mean over lists of tensors: avg = lerp(avg, p, 1 / (n + 1))."""

    @torch.no_grad()
    def swa_update(
        averaged_param_list: PARAM_LIST, current_param_list: PARAM_LIST, num_averaged: Any
    ) -> None:
        weight: Any
        # foreach lerp only handles float and complex (Note [foreach on CPU])
        if torch.is_floating_point(averaged_param_list[0]) or torch.is_complex(
            averaged_param_list[0]
        ):
            weight = 1 / (num_averaged + 1)  # a 0-dim tensor when num_averaged is one
            for p_avg, p_model in zip(averaged_param_list, current_param_list, strict=True):
                p_avg.lerp_(p_model, weight)
        else:
            diffs = [c.sub(a) for c, a in zip(current_param_list, averaged_param_list)]
            if isinstance(num_averaged, torch.Tensor):
                denom: Any = num_averaged
                for p_avg, diff in zip(averaged_param_list, diffs, strict=True):
                    p_avg.addcdiv_(diff, denom + 1)
            else:
                for p_avg, diff in zip(averaged_param_list, diffs, strict=True):
                    p_avg.add_(diff, alpha=1.0 / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> Callable[[Any, Any, Any], Any]:
    """The exponential moving average of one tensor: decay * ema + (1 - decay) * p."""
    if decay < 0.0 or decay > 1.0:
        raise ValueError(
            f"Invalid decay value {decay} provided. Please provide a value in [0,1] range."
        )

    @torch.no_grad()
    def ema_update(ema_param: Any, current_param: Any, num_averaged: Any) -> Any:
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn() -> Callable[[Any, Any, Any], Any]:
    """The running mean of one tensor: avg + (p - avg) / (n + 1)."""

    @torch.no_grad()
    def swa_update(averaged_param: Any, current_param: Any, num_averaged: Any) -> Any:
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


# torch.utils._foreach_utils._get_foreach_kernels_supported_devices(): where the default
# average takes the multi-tensor path (CPU tensors take get_swa_avg_fn, one at a time)
_FOREACH_DEVICES = ("cuda", "xpu", "mtia", "privateuseone")


def _group_by_device_and_dtype(
    self_params: list[Any], model_params: list[Any]
) -> dict[tuple[Any, Any], tuple[list[Any], list[Any]]]:
    """torch._C._group_tensors_by_device_and_dtype: the pairs grouped, in first-seen order."""
    groups: dict[tuple[Any, Any], tuple[list[Any], list[Any]]] = {}
    for a, m in zip(self_params, model_params):
        mine, theirs = groups.setdefault((a.device, a.dtype), ([], []))
        mine.append(a)
        theirs.append(m)
    return groups


class AveragedModel(Module):
    """A deep copy of `model` whose parameters (and, with use_buffers, buffers) are the average
    of the model's over the update_parameters() calls; n_averaged counts them."""

    n_averaged: Any

    def __init__(
        self,
        model: Module,
        device: Any = None,
        avg_fn: Callable[[Any, Any, Any], Any] | None = None,
        multi_avg_fn: Callable[[PARAM_LIST, PARAM_LIST, Any], None] | None = None,
        use_buffers: bool = False,
    ) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", torch.tensor(0, dtype=torch.long, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The wrapped copy's forward."""
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Average the parameters (and buffers, with use_buffers) of `model` into this copy."""
        self_param = (
            itertools.chain(self.module.parameters(), self.module.buffers())
            if self.use_buffers
            else self.parameters()
        )
        model_param = (
            itertools.chain(model.parameters(), model.buffers())
            if self.use_buffers
            else model.parameters()
        )
        self_param_detached: list[Any] = []
        model_param_detached: list[Any] = []
        copy_param = bool(self.n_averaged == 0)
        for p_averaged, p_model in zip(self_param, model_param, strict=False):
            p_model_ = p_model.detach().to(p_averaged.device)
            self_param_detached.append(p_averaged.detach())
            model_param_detached.append(p_model_)
            if copy_param:
                p_averaged.detach().copy_(p_model_)
        if self.n_averaged > 0:
            if self.multi_avg_fn is not None or self.avg_fn is None:
                grouped = _group_by_device_and_dtype(self_param_detached, model_param_detached)
                for (device, _), (self_params, model_params) in grouped.items():
                    if self.multi_avg_fn:
                        self.multi_avg_fn(self_params, model_params, self.n_averaged.to(device))
                    elif device is not None and device.type in _FOREACH_DEVICES:
                        multi_avg_fn = get_swa_multi_avg_fn()
                        multi_avg_fn(self_params, model_params, self.n_averaged.to(device))
                    else:
                        avg_fn = get_swa_avg_fn()
                        n_averaged = self.n_averaged.to(device)
                        for p_averaged, p_model in zip(self_params, model_params, strict=True):
                            p_averaged.copy_(avg_fn(p_averaged, p_model, n_averaged))
            else:
                for p_averaged, p_model in zip(
                    self_param_detached, model_param_detached, strict=True
                ):
                    n_averaged = self.n_averaged.to(p_averaged.device)
                    p_averaged.detach().copy_(self.avg_fn(p_averaged.detach(), p_model, n_averaged))
        if not self.use_buffers:
            # the buffers are not averaged: they keep in sync with the model's
            for b_swa, b_model in zip(self.module.buffers(), model.buffers(), strict=True):
                b_swa.detach().copy_(b_model.detach().to(b_swa.device))
        self.n_averaged += 1


@torch.no_grad()
def update_bn(loader: Iterable[Any], model: Module, device: Any = None) -> None:
    """Recompute the running statistics of every batch-norm layer of `model` with one pass over
    `loader` (a cumulative average: momentum None), e.g. for an AveragedModel's weights."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    for input in loader:
        if isinstance(input, (list, tuple)):
            input = input[0]
        if device is not None:
            input = input.to(device)
        model(input)
    for bn_module in momenta:
        bn_module.momentum = momenta[bn_module]
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's lr to its swa_lr over anneal_epochs (cosine or linear), then holds
    it there."""

    def __init__(
        self,
        optimizer: Optimizer,
        swa_lr: float | list[float],
        anneal_epochs: int = 10,
        anneal_strategy: Literal["cos", "linear"] = "cos",
        last_epoch: int = -1,
    ) -> None:
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for lr, group in zip(swa_lrs, optimizer.param_groups, strict=True):
            group["swa_lr"] = lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t: float) -> float:
        return t

    @staticmethod
    def _cosine_anneal(t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr: Any, swa_lr: Any, alpha: float) -> Any:
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list[Any]:
        # get_lr is called from step(); anywhere else the last lr is get_last_lr()
        if not self._get_lr_called_within_step:
            warnings.warn(
                "To get the last learning rate computed by the scheduler, "
                "please use `get_last_lr()`.",
                UserWarning,
                stacklevel=2,
            )
        # _step_count is 1 at the initial step
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [
            self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
            for group in self.optimizer.param_groups
        ]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [
            group["swa_lr"] * alpha + lr * (1 - alpha)
            for group, lr in zip(self.optimizer.param_groups, prev_lrs, strict=True)
        ]

    def _set_anneal_func(self, anneal_strategy: Literal["cos", "linear"]) -> None:
        self._anneal_strategy = anneal_strategy
        if anneal_strategy == "cos":
            self.anneal_func = self._cosine_anneal
        else:
            self.anneal_func = self._linear_anneal

    def state_dict(self) -> dict[str, Any]:
        """Every attribute but the optimizer and the anneal function (rebuilt on load)."""
        return {
            key: value
            for key, value in self.__dict__.items()
            if key not in ("optimizer", "anneal_func")
        }

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
