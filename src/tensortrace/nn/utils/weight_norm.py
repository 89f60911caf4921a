"""torch.nn.utils.weight_norm (deprecated for parametrizations.weight_norm): a parameter split
into a magnitude `name_g` and a direction `name_v`, recombined before each forward.

Mirrors `torch/nn/utils/weight_norm.py`. WeightNorm.apply replaces the parameter by the two
Parameters (g = norm_except_dim(w, 2, dim), v = w), sets the plain attribute `name` to
torch._weight_norm(v, g, dim) and registers itself as a forward pre-hook that recomputes it;
dim=None normalizes over the whole tensor (dim -1).
"""

from __future__ import annotations

import warnings
from typing import Any, TypeVar

import tensortrace as torch
from tensortrace.nn.parameter import Parameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


class WeightNorm:
    name: str
    dim: int

    def __init__(self, name: str, dim: int | None) -> None:
        if dim is None:
            dim = -1
        self.name = name
        self.dim = dim

    def compute_weight(self, module: Any) -> Any:
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return torch._weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module: Any, name: str, dim: int | None) -> WeightNorm:
        warnings.warn(
            "`torch.nn.utils.weight_norm` is deprecated in favor of "
            "`torch.nn.utils.parametrizations.weight_norm`.",
            FutureWarning,
            stacklevel=3,
        )
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two weight_norm hooks on the same parameter {name}"
                )
        if dim is None:
            dim = -1
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        # the parameter goes, g and v take its place
        del module._parameters[name]
        module.register_parameter(
            name + "_g", Parameter(torch.norm_except_dim(weight, 2, dim).data)
        )
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Any) -> None:
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module: Any, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


T_module = TypeVar("T_module")


def weight_norm(module: T_module, name: str = "weight", dim: int | None = 0) -> T_module:
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: T_module, name: str = "weight") -> T_module:
    for k, hook in module._forward_pre_hooks.items():  # type: ignore[attr-defined]
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]  # type: ignore[attr-defined]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
