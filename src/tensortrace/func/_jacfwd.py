"""torch.func.jacfwd and hessian: the Jacobian by forward mode, one vmap over jvps of a basis.

Mirrors `torch/_functorch/eager_transforms.py` (jacfwd, _jvp_with_argnums, safe_unflatten,
hessian): the jvp of f at the primals is pushed along every row of the identity matrix of the
inputs at once, under vmap, and the columns are split per input and viewed as
out.shape + primal.shape. hessian is jacfwd of jacrev, as torch composes it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from tensortrace.func._grad import _replace_argnums, _slice_argnums, argnums_t
from tensortrace.func._jacrev import _chunked_standard_basis_for_, error_if_complex, jacrev
from tensortrace.func._jvp import jvp
from tensortrace.func._pytree import tree_flatten, tree_unflatten
from tensortrace.func._vmap import vmap


def safe_unflatten(tensor: Any, dim: int, shape: Any) -> Any:
    if len(shape) == 0:
        assert tensor.shape[dim] == 1
        return tensor.squeeze(dim)
    return tensor.unflatten(dim, shape)


def _jvp_with_argnums(
    func: Callable[..., Any],
    args: tuple[Any, ...],
    tangents: Any,
    argnums: argnums_t,
    has_aux: bool,
) -> Any:
    """jvp of func with respect to the arguments at argnums; the others pass through as they
    are."""
    primals = _slice_argnums(args, argnums)
    tangent_tuple = (tangents,) if isinstance(argnums, int) else tuple(tangents)

    def with_primals(*diff_args: Any) -> Any:
        new = diff_args[0] if isinstance(argnums, int) else diff_args
        return func(*_replace_argnums(args, argnums, new))

    return jvp(with_primals, primals, tangent_tuple, has_aux=has_aux)


def jacfwd(
    func: Callable[..., Any],
    argnums: argnums_t = 0,
    has_aux: bool = False,
    *,
    randomness: str = "error",
) -> Callable[..., Any]:
    @functools.wraps(func)
    def wrapper_fn(*args: Any) -> Any:
        error_if_complex("jacfwd", args, is_input=True)
        primals = _slice_argnums(args, argnums)
        flat_primals, primals_spec = tree_flatten(primals)
        flat_primals_numels = tuple(p.numel() for p in flat_primals)
        flat_basis = next(_chunked_standard_basis_for_(flat_primals, flat_primals_numels))
        basis = tree_unflatten(list(flat_basis), primals_spec)
        if isinstance(argnums, int):
            basis = basis[0]

        def push_jvp(basis: Any) -> Any:
            output = _jvp_with_argnums(func, args, basis, argnums, has_aux)
            error_if_complex("jacfwd", output[0], is_input=False)
            if has_aux:
                _, jvp_out, aux = output
                return jvp_out, aux
            return output[1]

        results = vmap(push_jvp, randomness=randomness)(basis)
        aux: Any = None
        if has_aux:
            results, aux = results
            # aux came back once per basis row: the function's own output is the first
            flat_aux, aux_spec = tree_flatten(aux)
            aux = tree_unflatten([value[0] for value in flat_aux], aux_spec)
        jac_outs, spec = tree_flatten(results)
        jac_outs_ins = tuple(
            tuple(
                safe_unflatten(jac_out_in, -1, primal.shape)
                for primal, jac_out_in in zip(
                    flat_primals, jac_out.movedim(0, -1).split(flat_primals_numels, dim=-1)
                )
            )
            for jac_out in jac_outs
        )
        jac_outs_ins = tuple(
            tree_unflatten(list(jac_ins), primals_spec) for jac_ins in jac_outs_ins
        )
        if isinstance(argnums, int):
            jac_outs_ins = tuple(jac_ins[0] for jac_ins in jac_outs_ins)
        if has_aux:
            return tree_unflatten(list(jac_outs_ins), spec), aux
        return tree_unflatten(list(jac_outs_ins), spec)

    return wrapper_fn


def hessian(func: Callable[..., Any], argnums: argnums_t = 0) -> Callable[..., Any]:
    """The Hessian: jacfwd(jacrev(func)), forward over reverse, as torch composes it."""
    return jacfwd(jacrev(func, argnums), argnums)
