"""torch.func: functional_call and stack_module_state; the transforms vmap, grad,
grad_and_value, vjp, jacrev, jvp, jacfwd and hessian are in _vmap.py, _grad.py, _jacrev.py,
_jvp.py and _jacfwd.py.

Mirrors `torch/_functorch/functional_call.py`, which torch.func exposes: functional_call runs a
module with the tensors of one dict (or of several dicts with distinct keys) in place of its
parameters and buffers, through nn.utils.stateless._functional_call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensortrace as torch
from tensortrace.func._grad import grad, grad_and_value, vjp
from tensortrace.func._jacfwd import hessian, jacfwd
from tensortrace.func._jacrev import jacrev
from tensortrace.func._jvp import jvp
from tensortrace.func._vmap import vmap
from tensortrace.nn.utils import stateless

__all__ = [
    "functional_call",
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "stack_module_state",
    "vjp",
    "vmap",
]


def functional_call(
    module: Any,
    parameter_and_buffer_dicts: Any,
    args: Any = None,
    kwargs: dict[str, Any] | None = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    if isinstance(parameter_and_buffer_dicts, dict):
        parameters_and_buffers = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError(
                "Expected all elements of parameter_and_buffer_dicts to be dictionaries"
            )
        all_keys = [k for d in parameter_and_buffer_dicts for k in d]
        all_keys_counter: dict[str, int] = {}
        for k in all_keys:
            all_keys_counter[k] = all_keys_counter.get(k, 0) + 1
        repeated_keys = [key for key, n in all_keys_counter.items() if n > 1]
        if len(repeated_keys) > 0:
            raise ValueError(
                f"{repeated_keys} appeared in multiple dictionaries; behavior of functional "
                "call is ambiguous"
            )
        parameters_and_buffers = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError(
            "Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, "
            f"but got {type(parameter_and_buffer_dicts)}"
        )
    return stateless._functional_call(
        module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict
    )


def stack_module_state(models: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The models' parameters and buffers stacked along a new leading dim (for vmap)."""
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError(
            "stack_module_state: Expected all models to have the same training/eval mode."
        )
    model0_typ = type(models[0])
    if not all(type(m) is model0_typ for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(model.named_parameters()) for model in models]
    params = {
        k: construct_stacked_leaf(tuple(params[k] for params in all_params), k)
        for k in all_params[0]
    }
    all_buffers = [dict(model.named_buffers()) for model in models]
    buffers = {
        k: construct_stacked_leaf(tuple(buffers[k] for buffers in all_buffers), k)
        for k in all_buffers[0]
    }
    return params, buffers


def construct_stacked_leaf(tensors: Sequence[Any], name: str) -> Any:
    all_requires_grad = all(t.requires_grad for t in tensors)
    none_requires_grad = all(not t.requires_grad for t in tensors)
    if not all_requires_grad and not none_requires_grad:
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = torch.stack(tensors)
    if all_requires_grad:
        result = result.detach().requires_grad_()
    return result
