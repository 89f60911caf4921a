"""torch.autograd.backward and torch.autograd.grad: the Python side.

Mirrors `torch/autograd/__init__.py`: _make_grads (an implicit gradient of ones for a scalar
output, the shape check of an explicit one), then the engine through
`Variable._execution_engine.run_backward` (csrc/python_variable_autograd.run_backward).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensortrace as torch
from tensortrace.csrc.python_variable import TensorBase
from tensortrace.csrc.python_variable_autograd import run_backward


def _is_tensor(obj: Any) -> bool:
    return isinstance(obj, TensorBase)


def _tensor_or_tensors_to_tuple(tensors: Any, length: int) -> tuple[Any, ...]:
    if tensors is None:
        return (None,) * length
    if _is_tensor(tensors):
        return (tensors,)
    return tuple(tensors)


def _make_grads(
    outputs: Sequence[Any], grads: Sequence[Any], is_grads_batched: bool = False
) -> tuple[Any, ...]:
    new_grads: list[Any] = []
    for i, (out, grad) in enumerate(zip(outputs, grads)):
        if _is_tensor(grad):
            first_grad = grad if not is_grads_batched else grad[0]
            # torch reports first_grad.shape[1:] (_calculate_shape drops the batch dim again)
            if is_grads_batched and first_grad.shape != out.shape:
                raise RuntimeError(
                    "If `is_grads_batched=True`, we interpret the first dimension of each "
                    "grad_output as the batch dimension. The sizes of the remaining dimensions "
                    "are expected to match the shape of corresponding output, but a mismatch "
                    f"was detected: grad_output[{i}] has a shape of {first_grad.shape[1:]} and "
                    f"output[{i}] has a shape of {out.shape}. If you only want some tensors in "
                    "`grad_output` to be considered batched, consider using vmap."
                )
            if first_grad.shape != out.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of "
                    f"{grad.shape} and output[{i}] has a shape of {out.shape}."
                )
            if out.dtype.is_complex != grad.dtype.is_complex:
                raise RuntimeError(
                    "For complex Tensors, both grad_output and output are required "
                    "to have the same dtype. Mismatch in dtype: grad_output["
                    + str(i)
                    + "] has a dtype of "
                    + str(grad.dtype)
                    + " and output["
                    + str(i)
                    + "] has a dtype of "
                    + str(out.dtype)
                    + "."
                )
            new_grads.append(grad)
        elif grad is None:
            if out.requires_grad:
                if out.numel() != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if not out.dtype.is_floating_point:
                    raise RuntimeError(
                        "grad can be implicitly created only for real scalar "
                        f"outputs but got {out.dtype}"
                    )
                new_grads.append(torch.ones_like(out, memory_format=torch.preserve_format))
            else:
                new_grads.append(None)
        else:
            raise TypeError(
                "gradients can be either Tensors or None, but got " + type(grad).__name__
            )
    return tuple(new_grads)


def backward(
    tensors: Any,
    grad_tensors: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    grad_variables: Any = None,
    inputs: Any = None,
) -> None:
    """torch.autograd.backward: accumulate the gradients of `tensors` into the leaves' .grad."""
    if inputs is not None and len(inputs if not _is_tensor(inputs) else (inputs,)) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    tensors = (tensors,) if _is_tensor(tensors) else tuple(tensors)
    if inputs is not None:
        inputs = (inputs,) if _is_tensor(inputs) else tuple(inputs)
    grads = _make_grads(tensors, _tensor_or_tensors_to_tuple(grad_tensors, len(tensors)))
    if retain_graph is None:
        retain_graph = create_graph
    run_backward(tensors, grads, retain_graph, create_graph, inputs, True, True)


def _batched_vjp(
    outputs: tuple[Any, ...],
    grads: tuple[Any, ...],
    retain_graph: bool,
    create_graph: bool,
    inputs: tuple[Any, ...],
    allow_unused: bool,
) -> tuple[Any, ...]:
    """is_grads_batched: the backward run once under vmap over the grads' first dim (torch:
    `_vmap_internals._vmap(vjp, 0, 0, allow_none_pass_through=True)`)."""
    from tensortrace.func._vmap import vmap  # torch.func is loaded on first use

    unused: list[bool] = []

    def vjp(*g_out: Any) -> tuple[Any, ...]:
        res = run_backward(outputs, g_out, retain_graph, create_graph, inputs, allow_unused, False)
        unused[:] = [r is None for r in res]  # None passes through vmap
        return tuple(r for r in res if r is not None)

    in_dims = tuple(0 if g is not None else None for g in grads)
    batched = iter(vmap(vjp, in_dims=in_dims)(*grads))
    return tuple(None if none else next(batched) for none in unused)


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple[Any, ...]:
    """torch.autograd.grad: the gradients of `outputs` with respect to `inputs`, returned."""
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads="
            "True, but got: allow_unused=False."
        )
    if allow_unused is None:
        allow_unused = materialize_grads
    t_outputs = (outputs,) if _is_tensor(outputs) else tuple(outputs)
    t_inputs = (inputs,) if _is_tensor(inputs) else tuple(inputs)
    grads = _make_grads(
        t_outputs, _tensor_or_tensors_to_tuple(grad_outputs, len(t_outputs)), is_grads_batched
    )
    if retain_graph is None:
        retain_graph = create_graph
    if is_grads_batched:
        result = _batched_vjp(t_outputs, grads, retain_graph, create_graph, t_inputs, allow_unused)
    else:
        result = run_backward(
            t_outputs, grads, retain_graph, create_graph, t_inputs, allow_unused, False
        )
    if materialize_grads:
        result = tuple(
            r if r is not None else torch.zeros_like(i, requires_grad=True)
            for r, i in zip(result, t_inputs)
        )
    return result
