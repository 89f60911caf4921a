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


def _make_grads(outputs: Sequence[Any], grads: Sequence[Any]) -> tuple[Any, ...]:
    new_grads: list[Any] = []
    for i, (out, grad) in enumerate(zip(outputs, grads)):
        if _is_tensor(grad):
            if grad.shape != out.shape:
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
    grads = _make_grads(t_outputs, _tensor_or_tensors_to_tuple(grad_outputs, len(t_outputs)))
    if retain_graph is None:
        retain_graph = create_graph
    result = run_backward(
        t_outputs, grads, retain_graph, create_graph, t_inputs, allow_unused, False
    )
    if materialize_grads:
        result = tuple(
            r if r is not None else torch.zeros_like(i, requires_grad=True)
            for r, i in zip(result, t_inputs)
        )
    return result
