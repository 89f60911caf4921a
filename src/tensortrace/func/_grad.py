"""torch.func.grad, grad_and_value and vjp.

Mirrors `torch/_functorch/eager_transforms.py` (grad_and_value_impl, _vjp_with_argnums,
_autograd_grad, the argnums helpers) and `apis.py` (grad, grad_and_value), with torch's messages.

Note [grad as plain autograd]
functorch's grad is a level of the DynamicLayer stack: its inputs are wrapped in TensorWrappers
of that level, so the graph f records belongs to the level, and unwrapping the results at the end
leaves them tracked only by outer levels (an outer grad, or regular autograd). tensortrace has no
DynamicLayer (Note [vmap below autograd]): grad records an ordinary autograd graph.
- Each input to differentiate is aliased first (`_wrap_for_grad`): a `view_as` when an outer
  level already tracks it (so an outer grad sees through, as in grad(grad(f))), else a `detach()`
  (so requires_grad_() never touches the caller's tensor). Then it requires grad.
- The gradients are taken with create_graph=True, as functorch does, so an outer level can
  differentiate them again, and with retain_graph=True: torch's outer level records a forward
  graph of its own, here the outer grad's backward runs through this same graph again.
- `_unwrap_for_grad`: a result whose graph reaches no leaf but the ones this call made depends
  on nothing an outer level tracks: it is detached, as torch's unwrapped result is untracked.
  Anything else (an outer grad's input, a closed-over tensor that requires grad) stays tracked.
What differs from torch: the levels share one graph, so the forward graph f records stays alive
(retain_graph) until the results that need it die, where torch records one graph per level;
and an input inside f is an alias (view_as / detach) where torch puts a TensorWrapper, so its
`_base` and `_version` are the alias's. Nested grads, closures over an outer grad's input and
tensors that require grad outside every transform give torch's values (test_func_grad.py).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import tensortrace as torch
from tensortrace.autograd import forward_ad as fwAD  # noqa: N812 - torch's name
from tensortrace.autograd.forward_grad import is_fw_grad_defined
from tensortrace.func._pytree import tree_flatten, tree_map, tree_unflatten, treespec_pprint

argnums_t = int | tuple[int, ...]


# ---- wrapping for a grad level ------------------------------------------------------------------
def _wrap_for_grad(x: Any) -> Any:
    if not isinstance(x, torch.Tensor):
        return x
    # an alias keeps a forward tangent (jacfwd over this grad: hessian's forward over reverse),
    # as functorch's TensorWrapper wraps the dual tensor; detach would drop it
    if x.requires_grad or is_fw_grad_defined(x.cdata):
        return x.view_as(x)
    return x.detach()


def _create_differentiable(x: Any) -> Any:
    if isinstance(x, torch.Tensor):
        return x.requires_grad_()
    raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")


def _reaches_only(t: Any, own: set[int]) -> bool:
    """Whether every leaf t's graph reaches is one of `own` (TensorImpl ids this call made)."""
    from tensortrace.autograd.accumulate_grad import AccumulateGrad

    meta = t.cdata.unsafeGetTensorImpl().autograd_meta_
    if meta is None or meta.grad_fn_ is None:
        return id(t.cdata.unsafeGetTensorImpl()) in own or not t.requires_grad
    seen: set[int] = set()
    stack = [meta.grad_fn_]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            if id(node.variable_.unsafeGetTensorImpl()) not in own:
                return False
            continue
        stack.extend(e.function for e in node.next_edges_ if e.function is not None)
    return True


def _unwrap_for_grad(tree: Any, own: set[int]) -> Any:
    def unwrap(t: Any) -> Any:
        if isinstance(t, torch.Tensor) and t.requires_grad and _reaches_only(t, own):
            if is_fw_grad_defined(t.cdata):  # a dual result keeps its (unwrapped) tangent
                primal, tangent = fwAD.unpack_dual(t)
                return fwAD.make_dual(primal.detach(), unwrap(tangent))
            return t.detach()
        return t

    return tree_map(unwrap, tree)


def _own_ids(flat: Sequence[Any]) -> set[int]:
    return {id(t.cdata.unsafeGetTensorImpl()) for t in flat if isinstance(t, torch.Tensor)}


def _autograd_grad(
    outputs: Sequence[Any],
    inputs: Sequence[Any],
    grad_outputs: Sequence[Any] | None = None,
    retain_graph: bool = False,
    create_graph: bool = True,
) -> tuple[Any, ...]:
    if grad_outputs is None:
        diff_outputs = tuple(out for out in outputs if out.requires_grad)
    else:
        result = tuple((out, go) for out, go in zip(outputs, grad_outputs) if out.requires_grad)
        if len(result) == 0:
            diff_outputs, grad_outputs = (), ()
        else:
            diff_outputs, grad_outputs = zip(*result)  # type: ignore[assignment]
    if len(diff_outputs) == 0:
        return tuple(torch.zeros_like(inp) for inp in inputs)
    grad_inputs = torch.autograd.grad(
        diff_outputs,
        inputs,
        grad_outputs,
        retain_graph=retain_graph,
        create_graph=create_graph,
        allow_unused=True,
    )
    return tuple(
        torch.zeros_like(inp) if gi is None else gi for gi, inp in zip(grad_inputs, inputs)
    )


# ---- argnums ------------------------------------------------------------------------------------
def _validate_and_wrap_argnum(argnum: int, num_args: int) -> int:
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if argnum >= 0 and argnum < num_args:
        return argnum
    if argnum < 0 and argnum >= -num_args:
        return argnum + num_args
    raise RuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def _check_unique_non_empty(argnums: argnums_t) -> None:
    if isinstance(argnums, tuple):
        if len(argnums) == 0:
            raise RuntimeError("argnums must be non-empty")
        if len(set(argnums)) != len(argnums):
            raise RuntimeError(f"argnums elements must be unique, got {argnums}")


def _validate_and_wrap_argnums(argnums: argnums_t, num_args: int) -> argnums_t:
    if isinstance(argnums, int):
        return _validate_and_wrap_argnum(argnums, num_args)
    return tuple(_validate_and_wrap_argnum(argnum, num_args) for argnum in argnums)


def _slice_argnums(args: tuple[Any, ...], argnums: argnums_t, as_tuple: bool = True) -> Any:
    if not isinstance(argnums, int) and not isinstance(argnums, tuple):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    argnums = _validate_and_wrap_argnums(argnums, len(args))
    _check_unique_non_empty(argnums)
    if isinstance(argnums, int):
        return (args[argnums],) if as_tuple else args[argnums]
    return tuple(args[i] for i in argnums)


def _replace_argnums(args: tuple[Any, ...], argnums: argnums_t, new: Any) -> tuple[Any, ...]:
    argnums = _validate_and_wrap_argnums(argnums, len(args))
    if isinstance(argnums, int):
        return tuple(new if i == argnums else a for i, a in enumerate(args))
    return tuple(new[argnums.index(i)] if i in argnums else a for i, a in enumerate(args))


# ---- grad_and_value / grad ----------------------------------------------------------------------
def grad_and_value_impl(
    func: Callable[..., Any],
    argnums: argnums_t,
    has_aux: bool,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> tuple[Any, Any]:
    with torch.enable_grad():  # NOTE [grad and vjp interaction with no_grad]
        diff_args = _slice_argnums(args, argnums, as_tuple=False)
        diff_args = tree_map(_wrap_for_grad, diff_args)
        tree_map(_create_differentiable, diff_args)
        args = _replace_argnums(args, argnums, diff_args)
        output = func(*args, **kwargs)
        aux = None
        if has_aux:
            if not (isinstance(output, tuple) and len(output) == 2):
                raise RuntimeError(
                    "grad_and_value(f)(*args): output of function f should be a tuple: "
                    "(output, aux) if has_aux is True"
                )
            output, aux = output
        if not isinstance(output, torch.Tensor):
            raise RuntimeError(
                "grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                f"{type(output)}"
            )
        if output.dim() != 0:
            raise RuntimeError(
                "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor "
                f"with {output.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?"
            )
        flat_diff_args, spec = tree_flatten(diff_args)
        # retain_graph: an outer grad differentiates through this forward graph again
        flat_grad_input = _autograd_grad(
            (output,), flat_diff_args, retain_graph=True, create_graph=True
        )
        own = _own_ids(flat_diff_args)
        grad_input = _unwrap_for_grad(tree_unflatten(list(flat_grad_input), spec), own)
        output = _unwrap_for_grad(output, own)
        if has_aux:
            aux = _unwrap_for_grad(aux, own)
    if has_aux:
        return grad_input, (output, aux)
    return grad_input, output


def grad_and_value(
    func: Callable[..., Any], argnums: argnums_t = 0, has_aux: bool = False
) -> Callable[..., Any]:
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return grad_and_value_impl(func, argnums, has_aux, args, kwargs)

    return wrapper


def grad(
    func: Callable[..., Any], argnums: argnums_t = 0, has_aux: bool = False
) -> Callable[..., Any]:
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        results = grad_and_value_impl(func, argnums, has_aux, args, kwargs)
        if has_aux:
            g, (_, aux) = results
            return g, aux
        return results[0]

    return wrapper


# ---- vjp ----------------------------------------------------------------------------------------
def _vjp_with_argnums(
    func: Callable[..., Any], *primals: Any, argnums: argnums_t | None = None, has_aux: bool = False
) -> tuple[Any, ...]:
    with torch.enable_grad():
        if argnums is None:
            primals = tree_map(_wrap_for_grad, primals)
            diff_primals = tree_map(_create_differentiable, primals)
        else:
            diff_primals = tree_map(
                _wrap_for_grad, _slice_argnums(primals, argnums, as_tuple=False)
            )
            tree_map(_create_differentiable, diff_primals)
            primals = _replace_argnums(primals, argnums, diff_primals)
        primals_out = func(*primals)
        flat_diff_primals, primals_spec = tree_flatten(diff_primals)
        own = _own_ids(flat_diff_primals)
        aux: Any = None
        if has_aux:
            if not (isinstance(primals_out, tuple) and len(primals_out) == 2):
                raise RuntimeError(
                    "vjp(f, *primals): output of function f should be a tuple: (output, aux) "
                    "if has_aux is True"
                )
            primals_out, aux = primals_out
            aux = _unwrap_for_grad(aux, own)
        flat_primals_out, primals_out_spec = tree_flatten(primals_out)
        if len(flat_primals_out) == 0:
            raise RuntimeError(
                "vjp(f, *primals): Expected f to be a function that has non-empty output "
                f"(got output = {flat_primals_out})"
            )
        for o in flat_primals_out:
            if not isinstance(o, torch.Tensor):
                raise RuntimeError(
                    f"vjp(f, *primals): expected f(*primals) to return only tensors, got "
                    f"unsupported type {type(o)}"
                )
        results = _unwrap_for_grad(primals_out, own)
        for primal_out in flat_primals_out:
            if not (primal_out.is_floating_point() or primal_out.is_complex()):
                raise RuntimeError(
                    "vjp(f, ...): All outputs of f must be floating-point or complex Tensors, "
                    f"got Tensor with dtype {primal_out.dtype}"
                )

    def wrapper(
        cotangents: Any, retain_graph: bool = True, create_graph: bool | None = None
    ) -> Any:
        if create_graph is None:
            create_graph = torch.is_grad_enabled()
        flat_cotangents, cotangents_spec = tree_flatten(cotangents)
        if primals_out_spec != cotangents_spec:
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure of "
                f"outputs to the function. cotangents: {treespec_pprint(cotangents_spec)}, "
                f"primal output: {treespec_pprint(primals_out_spec)}"
            )
        result = _autograd_grad(
            flat_primals_out,
            flat_diff_primals,
            flat_cotangents,
            retain_graph=retain_graph,
            create_graph=create_graph,
        )
        return _unwrap_for_grad(tree_unflatten(list(result), primals_spec), own)

    if has_aux:
        return results, wrapper, aux
    return results, wrapper


def vjp(func: Callable[..., Any], *primals: Any, has_aux: bool = False) -> Any:
    return _vjp_with_argnums(func, *primals, has_aux=has_aux)
