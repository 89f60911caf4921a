"""torch.autograd.functional.jacobian(vectorize=True): every vjp in one batched backward.

Mirrors the vectorize branch of `torch/autograd/functional.py` (jacobian, and hessian through
it) and `_construct_standard_basis_for`: the rows of the identity matrix of the flattened
outputs are the grad_outputs of one autograd.grad(is_grads_batched=True), which runs the
backward once under torch.func.vmap.
"""

from __future__ import annotations

from typing import Any

import tensortrace as torch
from tensortrace.autograd.functional import (
    Tensor,
    _autograd_grad,
    _grad_postprocess,
    _tuple_postprocess,
)


def _construct_standard_basis_for(
    tensors: tuple[Tensor, ...], tensor_numels: tuple[int, ...]
) -> tuple[Tensor, ...]:
    """The N x N identity (N = sum of numels), split by columns into one chunk per tensor."""
    total_numel = sum(tensor_numels)
    chunks = tuple(
        tensor.new_zeros(total_numel, tensor_numel)
        for tensor, tensor_numel in zip(tensors, tensor_numels, strict=True)
    )
    diag_start_idx = 0
    for chunk, numel in zip(chunks, tensor_numels, strict=True):
        chunk.diagonal(diag_start_idx).fill_(1)
        diag_start_idx -= numel
    return chunks


def _vectorized_jacobian(
    outputs: tuple[Tensor, ...],
    inputs: tuple[Tensor, ...],
    is_outputs_tuple: bool,
    is_inputs_tuple: bool,
    create_graph: bool,
) -> Any:
    """jacobian(vectorize=True): every row of the identity as a batch of grad_outputs, one
    batched vjp (NOTE: [Computing jacobian with vmap and grad for multiple outputs])."""
    output_numels = tuple(output.numel() for output in outputs)
    grad_outputs = _construct_standard_basis_for(outputs, output_numels)
    flat_outputs = tuple(output.reshape(-1) for output in outputs)
    vj = list(
        _autograd_grad(
            flat_outputs, inputs, grad_outputs, create_graph=create_graph, is_grads_batched=True
        )
    )
    for el_idx, vj_el in enumerate(vj):
        if vj_el is None:
            vj[el_idx] = torch.zeros_like(inputs[el_idx]).expand(
                (sum(output_numels),) + inputs[el_idx].shape
            )
    jacobian_input_output = [
        [
            jac.view(output_j.shape + input_i.shape)
            for jac, output_j in zip(jac_input_i.split(output_numels, dim=0), outputs, strict=True)
        ]
        for jac_input_i, input_i in zip(vj, inputs, strict=True)
    ]
    jacobian_output_input = tuple(zip(*jacobian_input_output, strict=True))
    jacobian_output_input = _grad_postprocess(jacobian_output_input, create_graph)
    return _tuple_postprocess(jacobian_output_input, (is_outputs_tuple, is_inputs_tuple))
