"""Optimizer: parameter groups, per-parameter state, zero_grad and state_dict.

Mirrors `torch/optim/optimizer.py`. Each subclass's step() runs under no_grad (torch's
_use_grad_for_differentiable) and, like torch's profile_hook_step, inside a frame named
"Optimizer.step#SGD.step", so the trace of a training step shows the optimizer's aten ops under
the same annotation torch.profiler records; zero_grad is "Optimizer.zero_grad#SGD.zero_grad".
"""

from __future__ import annotations

import functools
import warnings
from collections import defaultdict
from collections.abc import Callable
from copy import deepcopy
from typing import Any

import tensortrace as torch
from tensortrace.trace import FrameSite, frame

SOURCE = "torch/optim/optimizer.py"


class _RequiredParameter:
    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def _typename(obj: Any) -> str:
    if isinstance(obj, torch.Tensor):
        return f"torch.{obj.cdata.scalar_type()}Tensor"
    return type(obj).__qualname__


def _get_value(x: Any) -> Any:
    """A hyperparameter or step as a Python number (item() of a tensor), as torch reads it."""
    return x.item() if isinstance(x, torch.Tensor) else x


def _to_scalar(x: Any) -> Any:
    """A 1-element tensor hyperparameter as a 0-dim tensor; a Python number stays as it is."""
    if isinstance(x, torch.Tensor) and x.dim() != 0:
        return x.squeeze()
    return x


def _get_scalar_dtype() -> Any:
    """The dtype of the state's step (and ASGD's eta and mu): float64 under that default dtype."""
    return torch.float64 if torch.get_default_dtype() == torch.float64 else torch.float32


def _single_tensor_only(name: str, **flags: Any) -> None:
    """Only the single-tensor (for-loop) algorithm is modelled: the foreach, fused and capturable
    variants compute the same update with other kernels."""
    chosen = [k for k, v in flags.items() if v]
    if chosen:
        off = ", ".join(f"{k}=False" for k in flags)
        raise NotImplementedError(f"tensortrace models the single-tensor {name} only ({off})")


def _use_grad_for_differentiable(func: Callable[..., Any]) -> Callable[..., Any]:
    """step() runs with grad mode = the `differentiable` default (False: no graph is built)."""

    @functools.wraps(func)
    def _use_grad(self: Optimizer, *args: Any, **kwargs: Any) -> Any:
        prev_grad = torch.is_grad_enabled()
        try:
            torch.set_grad_enabled(self.defaults["differentiable"])
            return func(self, *args, **kwargs)
        finally:
            torch.set_grad_enabled(prev_grad)

    return _use_grad


class Optimizer:
    def __init__(self, params: Any, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self.state: defaultdict[Any, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        if isinstance(params, torch.Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of "
                "Tensors or dicts, but got " + _typename(params)
            )
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)
        name = type(self).__name__
        self._step_site = FrameSite(
            "python",
            f"Optimizer.step#{name}.step",
            SOURCE,
            "torch.optim.optimizer.Optimizer.profile_hook_step",
        )
        self._zero_grad_site = FrameSite(
            "python",
            f"Optimizer.zero_grad#{name}.zero_grad",
            SOURCE,
            "torch.optim.optimizer.Optimizer.zero_grad",
        )

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Wrap each subclass's step in its profiler annotation (profile_hook_step)."""
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is None:
            return

        @functools.wraps(step)
        def hooked_step(self: Optimizer, *args: Any, **kwargs: Any) -> Any:
            with frame(self._step_site):
                return step(self, *args, **kwargs)

        cls.step = hooked_step  # type: ignore[method-assign]

    def __repr__(self) -> str:
        format_string = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            format_string += "\n"
            format_string += f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    format_string += f"    {key}: {group[key]}\n"
        format_string += ")"
        return format_string

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, torch.Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, "
                "but the ordering of tensors in sets will change between runs. "
                "Please use a list instead."
            )
        else:
            param_group["params"] = list(params)
        for param in param_group["params"]:
            if not isinstance(param, torch.Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    + _typename(param)
                )
            if not self.defaults.get("differentiable", None) and not (
                param.is_leaf or param.retains_grad
            ):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    f"parameter group didn't specify a value of required "
                    f"optimization parameter {name}"
                )
            param_group.setdefault(name, default)
        params = param_group["params"]
        if len(params) != len({id(p) for p in params}):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in "
                "future, this will cause an error; see "
                "github.com/pytorch/pytorch/issues/40967 for more information",
                stacklevel=3,
            )
        param_set: set[int] = set()
        for group in self.param_groups:
            param_set.update(id(p) for p in group["params"])
        if not param_set.isdisjoint(id(p) for p in param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        with frame(self._zero_grad_site):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        if set_to_none:
                            p.grad = None
                        else:
                            g = p.grad
                            if g.grad_fn is not None:
                                g.detach_()
                            else:
                                g.requires_grad_(False)
                            g.zero_()

    def state_dict(self) -> dict[str, Any]:
        """{'state': {index: state}, 'param_groups': [group with params as indices]}."""
        param_mappings: dict[int, int] = {}
        start_index = 0

        def pack_group(group: dict[str, Any]) -> dict[str, Any]:
            nonlocal start_index
            packed = {k: v for k, v in group.items() if k != "params"}
            param_mappings.update(
                {
                    id(p): i
                    for i, p in enumerate(group["params"], start_index)
                    if id(p) not in param_mappings
                }
            )
            packed["params"] = [param_mappings[id(p)] for p in group["params"]]
            start_index += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {
            (param_mappings[id(k)] if isinstance(k, torch.Tensor) else k): v
            for k, v in self.state.items()
        }
        return {"state": packed_state, "param_groups": param_groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        state_dict = dict(state_dict)
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match "
                "the size of optimizer's group"
            )
        id_map = {
            old_id: p
            for old_id, p in zip(
                (i for g in saved_groups for i in g["params"]),
                (p for g in groups for p in g["params"]),
            )
        }
        state: defaultdict[Any, dict[str, Any]] = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = {
                    key: (value.clone() if isinstance(value, torch.Tensor) else value)
                    for key, value in v.items()
                }
            else:
                state[k] = v
        new_groups = []
        for group, new_group in zip(groups, saved_groups):
            new_group["params"] = group["params"]
            new_groups.append(new_group)
        self.state = state
        self.param_groups = new_groups

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        raise NotImplementedError
