"""torch.func.jacrev: the Jacobian by reverse mode, one vmap over the vjp of a standard basis.

Mirrors `torch/_functorch/eager_transforms.py` (jacrev's compute_jacobian_stacked,
_chunked_standard_basis_for_, error_if_complex): the vjp of f at the primals is computed once,
then vmap runs its backward over every row of the identity matrix of the outputs (in chunks of
chunk_size rows), and the rows are split and viewed as out.shape + primal.shape.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Generator, Sequence
from typing import Any

import tensortrace as torch
from tensortrace.func._grad import _slice_argnums, _vjp_with_argnums, argnums_t
from tensortrace.func._pytree import tree_flatten, tree_unflatten
from tensortrace.func._vmap import get_chunk_sizes, vmap


def error_if_complex(func_name: str, args: Any, is_input: bool) -> None:
    flat_args = tree_flatten(args)[0]
    for idx, arg in enumerate(flat_args):
        if isinstance(arg, torch.Tensor) and arg.dtype.is_complex:
            input_or_output = "inputs" if is_input else "outputs"
            raise RuntimeError(
                f"{func_name}: Expected all {input_or_output} "
                f"to be real but received complex tensor at flattened input idx: {idx}"
            )


def _chunked_standard_basis_for_(
    tensors: Sequence[Any], tensor_numels: Sequence[int], chunk_size: int | None = None
) -> Generator[tuple[Any, ...], None, None]:
    total_numel = sum(tensor_numels)
    if chunk_size and chunk_size < total_numel:
        chunk_numels = get_chunk_sizes(total_numel, chunk_size)
    else:
        chunk_size = total_numel
        chunk_numels = [total_numel]
    diag_start_indices = []
    diag_start_idx = 0
    for tensor_numel in tensor_numels:
        diag_start_indices.append(diag_start_idx)
        diag_start_idx -= tensor_numel
    for chunk_idx, chunk_numel in enumerate(chunk_numels):
        chunks = tuple(
            tensor.new_zeros(chunk_numel, tensor_numel)
            for tensor, tensor_numel in zip(tensors, tensor_numels)
        )
        for chunk, start in zip(chunks, diag_start_indices):
            chunk.diagonal(int(start) + chunk_idx * chunk_size).fill_(1)
        yield tuple(
            chunk.view(chunk_numel, *tensor.shape) for chunk, tensor in zip(chunks, tensors)
        )


def jacrev(
    func: Callable[..., Any],
    argnums: argnums_t = 0,
    *,
    has_aux: bool = False,
    chunk_size: int | None = None,
    _preallocate_and_copy: bool = False,
) -> Callable[..., Any]:
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper_fn(*args: Any) -> Any:
        error_if_complex("jacrev", args, is_input=True)
        vjp_out = _vjp_with_argnums(func, *args, argnums=argnums, has_aux=has_aux)
        aux: Any = None
        if has_aux:
            output, vjp_fn, aux = vjp_out
        else:
            output, vjp_fn = vjp_out
        flat_output, output_spec = tree_flatten(output)
        error_if_complex("jacrev", flat_output, is_input=False)
        flat_output_numels = tuple(out.numel() for out in flat_output)
        primals = _slice_argnums(args, argnums)
        flat_primals, primals_spec = tree_flatten(primals)

        chunked_results: list[list[Any]] = []
        for flat_basis_chunk in _chunked_standard_basis_for_(
            flat_output, flat_output_numels, chunk_size=chunk_size
        ):
            if chunk_size == 1:
                flat_basis_chunk = tuple(torch.squeeze(t, 0) for t in flat_basis_chunk)
            basis = tree_unflatten(list(flat_basis_chunk), output_spec)
            if chunk_size == 1:
                chunked_result = vjp_fn(basis)
            else:
                chunked_result = vmap(vjp_fn)(basis)
            flat_results = tree_flatten(chunked_result)[0]
            if chunk_size == 1:
                flat_results = [torch.unsqueeze(t, 0) for t in flat_results]
            chunked_results.append(flat_results)
        if len(chunked_results) == 1:
            flat_jacobians = chunked_results[0]
        else:
            flat_jacobians = [
                torch.cat(tuple(r[idx] for r in chunked_results), 0)
                for idx in range(len(flat_primals))
            ]
        split_jacobians = [
            torch.split(result, list(flat_output_numels), dim=0) for result in flat_jacobians
        ]
        flat_input_flat_output = [
            tuple(split.view(out.shape + primal.shape) for split, out in zip(splits, flat_output))
            for splits, primal in zip(split_jacobians, flat_primals)
        ]
        flat_output_flat_input = tuple(zip(*flat_input_flat_output))
        flat_output_input = tuple(
            tree_unflatten(list(flat_input), primals_spec) for flat_input in flat_output_flat_input
        )
        if isinstance(argnums, int):
            flat_output_input = tuple(flat_input[0] for flat_input in flat_output_input)
        output_input = tree_unflatten(list(flat_output_input), output_spec)
        if has_aux:
            return output_input, aux
        return output_input

    return wrapper_fn
