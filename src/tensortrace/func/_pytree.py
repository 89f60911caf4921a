"""The pytrees vmap and grad take apart and put back: tuples, lists, dicts, namedtuples.

Mirrors the part of `torch/utils/_pytree.py` that torch._functorch uses: tree_flatten,
tree_unflatten, tree_map and _broadcast_to_and_flatten (an in_dims / out_dims prefix tree
broadcast to the leaves of the inputs). Anything else is a leaf, None included, as in torch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any


def _is_namedtuple(tree: Any) -> bool:
    return isinstance(tree, tuple) and hasattr(tree, "_fields")


class TreeSpec:
    """A node's type, its context (dict keys, the namedtuple class) and its children's specs;
    a leaf has type None."""

    def __init__(self, type_: type | None, context: Any, children: list[TreeSpec]) -> None:
        self.type = type_
        self.context = context
        self.children_specs = children
        self.num_leaves: int = 1 if type_ is None else sum(c.num_leaves for c in children)

    def is_leaf(self) -> bool:
        return self.type is None

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, TreeSpec)
            and self.type == other.type
            and self.context == other.context
            and self.children_specs == other.children_specs
        )

    def __repr__(self, indent: int = 0) -> str:
        if self.type is None:
            return "*"
        is_namedtuple = self.context is self.type
        name = "namedtuple" if is_namedtuple else self.type.__name__
        parts = [
            child.__repr__(indent + 2)
            if i == 0
            else "\n" + " " * (indent + 2) + child.__repr__(indent + 2)
            for i, child in enumerate(self.children_specs)
        ]
        return f"TreeSpec({name}, {self.context!r}, [{','.join(parts)}])"


LEAF = TreeSpec(None, None, [])


def _children(tree: Any) -> tuple[type, Any, list[Any]] | None:
    if _is_namedtuple(tree):
        return type(tree), type(tree), list(tree)
    if isinstance(tree, (tuple, list)):
        return type(tree), None, list(tree)
    if isinstance(tree, dict):
        return dict, list(tree.keys()), list(tree.values())
    return None


def tree_flatten(tree: Any) -> tuple[list[Any], TreeSpec]:
    node = _children(tree)
    if node is None:
        return [tree], LEAF
    type_, context, children = node
    leaves: list[Any] = []
    specs: list[TreeSpec] = []
    for child in children:
        child_leaves, child_spec = tree_flatten(child)
        leaves.extend(child_leaves)
        specs.append(child_spec)
    return leaves, TreeSpec(type_, context, specs)


def tree_unflatten(leaves: list[Any] | tuple[Any, ...], spec: TreeSpec) -> Any:
    return _build(iter(leaves), spec)


def _build(it: Iterator[Any], spec: TreeSpec) -> Any:
    # a module-level function, not a recursive closure: a closure that names itself is a
    # reference cycle, which would keep the leaves alive until the cyclic GC runs
    if spec.is_leaf():
        return next(it)
    children = [_build(it, c) for c in spec.children_specs]
    if spec.type is dict:
        return dict(zip(spec.context, children))
    if spec.context is not None and spec.type is not None:  # a namedtuple, or a structseq
        make = getattr(spec.type, "_make", None)  # (torch.return_types take one sequence)
        return make(children) if make is not None else spec.type(children)
    return spec.type(children)  # type: ignore[misc]


def tree_map(fn: Callable[[Any], Any], tree: Any) -> Any:
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(leaf) for leaf in leaves], spec)


class _Asterisk:
    def __repr__(self) -> str:
        return "*"


def treespec_pprint(treespec: TreeSpec) -> str:
    """The structure with a `*` for each leaf: `(*, {'a': *})`."""
    return repr(tree_unflatten([_Asterisk()] * treespec.num_leaves, treespec))


def _broadcast_to_and_flatten(tree: Any, spec: TreeSpec) -> list[Any] | None:
    """`tree`, a prefix of the structure `spec`, with each of its leaves repeated over the
    leaves of `spec` below it; None if it is no prefix."""
    if _children(tree) is None:
        return [tree] * spec.num_leaves
    if spec.is_leaf():
        return None
    node = _children(tree)
    assert node is not None
    type_, context, children = node
    if (
        type_ is not spec.type
        or context != spec.context
        or len(children) != len(spec.children_specs)
    ):
        return None
    result: list[Any] = []
    for child, child_spec in zip(children, spec.children_specs):
        flat = _broadcast_to_and_flatten(child, child_spec)
        if flat is None:
            return None
        result.extend(flat)
    return result
