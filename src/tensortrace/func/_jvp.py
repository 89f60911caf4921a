"""torch.func.jvp: the Jacobian-vector product of a function, by forward-mode AD.

Mirrors `torch/_functorch/eager_transforms.py`'s jvp / _jvp_with_argnums: the primals are made
dual tensors at a forward AD level (torch.autograd.forward_ad), the function runs on them, and
each output is unpacked into its value and tangent (zeros for an output that does not depend on
the inputs, unless strict=True). functorch wraps tensors per transform level so that jvp can
nest; tensortrace has no functorch layers, so a jvp runs at the one forward AD level, as
forward_ad does, and a jvp inside another raises torch's "Nested forward mode AD is not
supported at the moment". The pytree helpers are the few of `torch/utils/_pytree.py` jvp needs
(tuples, lists, dicts), with TreeSpec printed as torch prints it in jvp's errors.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import tensortrace as torch
from tensortrace.autograd import forward_ad as fwAD  # noqa: N812 - torch's name
from tensortrace.autograd import forward_grad

__all__ = ["jvp"]

jvp_str = "jvp(f, primals, tangents)"


class TreeSpec:
    """A container's type, its context (a dict's keys) and its children's specs."""

    def __init__(self, type_: type | None, context: Any, children: list[TreeSpec]) -> None:
        self.type = type_
        self._context = context
        self.children_specs = children

    def is_leaf(self) -> bool:
        return self.type is None

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, TreeSpec)
            and self.type is other.type
            and self._context == other._context
            and self.children_specs == other.children_specs
        )

    def __hash__(self) -> int:
        return hash((self.type, len(self.children_specs)))

    def __repr__(self, indent: int = 0) -> str:
        if self.type is None:
            return "*"
        prefix = f"TreeSpec({self.type.__name__}, {self._context}, ["
        children = ""
        if self.children_specs:
            indent += 2
            children += self.children_specs[0].__repr__(indent)
            children += "," if len(self.children_specs) > 1 else ""
            children += ",".join(
                "\n" + " " * indent + child.__repr__(indent) for child in self.children_specs[1:]
            )
        return prefix + children + "])"


def tree_flatten(tree: Any) -> tuple[list[Any], TreeSpec]:
    if isinstance(tree, (tuple, list)):
        leaves: list[Any] = []
        specs = []
        for child in tree:
            child_leaves, spec = tree_flatten(child)
            leaves += child_leaves
            specs.append(spec)
        return leaves, TreeSpec(type(tree), None, specs)
    if isinstance(tree, dict):
        leaves, specs = [], []
        for key in tree:
            child_leaves, spec = tree_flatten(tree[key])
            leaves += child_leaves
            specs.append(spec)
        return leaves, TreeSpec(dict, list(tree), specs)
    return [tree], TreeSpec(None, None, [])


def tree_unflatten(leaves: Any, spec: TreeSpec) -> Any:
    return _build(iter(leaves), spec)


def _build(values: Any, s: TreeSpec) -> Any:
    """A module-level function, not a closure over itself: a recursive closure is a reference
    cycle, which would keep the leaves alive until the cyclic GC runs."""
    if s.type is None:
        return next(values)
    children = [_build(values, c) for c in s.children_specs]
    if s.type is dict:
        return dict(zip(s._context, children))
    if s.type is list:
        return children
    if s.type is tuple:
        return tuple(children)
    return s.type(*children)  # a namedtuple


def assert_non_empty_list_of_tensors(output: list[Any], api: str, argname: str) -> None:
    if len(output) == 0:
        raise RuntimeError(f"{api}: Expected {argname} to contain at least one Tensor.")
    for out in output:
        if isinstance(out, torch.Tensor):
            continue
        raise RuntimeError(f"{api}: Expected {argname} to only contain Tensors, got {type(out)}")


def assert_non_empty_tensor_output(output: list[Any], api: str) -> None:
    if (len(output) == 1 and output[0] is None) or len(output) < 1:
        raise RuntimeError(
            f"{api}: Expected f to be a function that has non-empty output (got output = {output})"
        )
    for o in output:
        if not isinstance(o, torch.Tensor):
            raise RuntimeError(
                f"{api}: expected f(*primals) to return only tensors"
                f", got unsupported type {type(o)}"
            )


def safe_unpack_dual(dual: Any, strict: bool) -> tuple[Any, Any]:
    if not isinstance(dual, torch.Tensor):
        raise RuntimeError(
            f"{jvp_str}: expected f(*args) to return only tensors"
            f", got unsupported type {type(dual)}"
        )
    primal, tangent = fwAD.unpack_dual(dual)
    if tangent is None:
        if strict:
            raise RuntimeError(
                "jvp(f, primals, tangents, strict=True): "
                "The output of f is independent of "
                "the inputs. This is not allowed with strict=True."
            )
        tangent = torch.zeros_like(primal)
    return primal, tangent


def jvp(
    func: Callable[..., Any],
    primals: Any,
    tangents: Any,
    *,
    strict: bool = False,
    has_aux: bool = False,
) -> Any:
    """(func(*primals), J(primals) @ tangents), and func's aux output when has_aux=True."""
    if not isinstance(primals, tuple):
        raise RuntimeError(
            f"{jvp_str}: Expected primals to be a tuple. "
            f"E.g. it should be valid to call f(*primals)."
        )
    flat_primals, primals_spec = tree_flatten(primals)
    flat_tangents, tangents_spec = tree_flatten(tangents)
    if primals_spec != tangents_spec:
        raise RuntimeError(
            f"{jvp_str}: Expected primals and tangents to have the same python "
            f"structure. For example, if primals is a tuple of 3 tensors, "
            f"tangents also must be. Got primals with structure {primals_spec} "
            f"and tangents with structure {tangents_spec}"
        )
    assert_non_empty_list_of_tensors(flat_primals, jvp_str, "primals")
    assert_non_empty_list_of_tensors(flat_tangents, jvp_str, "tangents")
    with _jvp_increment_nesting(), fwAD._set_fwd_grad_enabled(True), fwAD.dual_level():
        flat_duals = tuple(fwAD.make_dual(p, t) for p, t in zip(flat_primals, flat_tangents))
        duals = tree_unflatten(flat_duals, primals_spec)
        result_duals = func(*duals)
        aux: Any = None
        if has_aux:
            if not (isinstance(result_duals, tuple) and len(result_duals) == 2):
                raise RuntimeError(
                    f"{jvp_str}: output of function f should be a tuple: (output, aux) "
                    "if has_aux is True"
                )
            result_duals, aux = result_duals
            aux = _detach_tangents(aux)
        flat_results, spec = tree_flatten(result_duals)
        assert_non_empty_tensor_output(flat_results, jvp_str)
        pairs = [safe_unpack_dual(dual, strict) for dual in flat_results]
        primals_out = tree_unflatten([p for p, _ in pairs], spec)
        tangents_out = tree_unflatten([t for _, t in pairs], spec)
    if has_aux:
        return primals_out, tangents_out, aux
    return primals_out, tangents_out


@contextmanager
def _jvp_increment_nesting() -> Iterator[None]:
    """jvp_increment_nesting: functorch transforms are active while jvp runs."""
    forward_grad.jvp_nesting[0] += 1
    try:
        yield
    finally:
        forward_grad.jvp_nesting[0] -= 1


def _detach_tangents(tree: Any) -> Any:
    """_undo_create_differentiable for aux: its tensors without their tangents."""
    leaves, spec = tree_flatten(tree)
    return tree_unflatten(
        [fwAD.unpack_dual(x).primal if isinstance(x, torch.Tensor) else x for x in leaves], spec
    )
