"""Batching rules of the matrix products: mm, mv, dot, bmm, addmm, addmv, baddbmm.

Mirrors `aten/src/ATen/functorch/BatchRulesLinearAlgebra.cpp`. Each product of batched operands
is a broadcasting matmul of the batch-front values, which is what functorch's rules compute
(mm of a batched and an unbatched matrix is one mm of the flattened batch, of two batched
ones a bmm); the shape checks come first, on the logical shapes, with the op's own messages.
The add-forms are their decomposition on the batched tensors (beta * self + alpha * product).
"""

from __future__ import annotations

from typing import Any

from tensortrace.aten.dispatcher import OperatorHandle
from tensortrace.aten.functorch.batch_rules_helper import (
    batch_rule,
    current_level,
    moveBatchDimToFront,
    rank,
    unwrap,
    wrap,
)
from tensortrace.aten.generated import operators as ops
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/functorch/BatchRulesLinearAlgebra.cpp"


def _operands(args: tuple[Any, ...]) -> tuple[int, list[tuple[Tensor, int | None, int]]]:
    level = current_level(args)
    found = []
    for t in args[:2]:
        value, bdim = unwrap(t, level)
        found.append((moveBatchDimToFront(value, bdim), bdim, rank(value, bdim)))
    return level, found


def _check_ranks(name: str, ranks: tuple[int, int], expected: tuple[int, int]) -> None:
    TORCH_CHECK(
        ranks == expected,
        "Shape mismatch: Got incorrect dims for ",
        name,
        "(a, b). a has dim ",
        ranks[0],
        "and b has dim ",
        ranks[1],
        "but expected them to have dim ",
        expected[0],
        " and dim ",
        expected[1],
    )


@batch_rule("mm", "bmm")
@traced("dispatch", "at::functorch::mm_batch_rule", SOURCE)
def mm_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    level, ((a, ab, ar), (b, bb, br)) = _operands(args)
    want = 2 if op.schema.name == "mm" else 3
    _check_ranks(op.schema.name, (ar, br), (want, want))
    if ab is not None and bb is not None:
        if want == 2:
            return wrap(ops.bmm.call(a, b), 0, level)
        batch = [a.size(0), a.size(1)]
        flat = ops.bmm.call(
            ops.flatten_using_ints.call(a, 0, 1), ops.flatten_using_ints.call(b, 0, 1)
        )
        return wrap(ops.view.call(flat, batch + list(flat.sizes()[1:])), 0, level)
    return wrap(ops.matmul.call(a, b), 0, level)


@batch_rule("mv")
@traced("dispatch", "at::functorch::mv_batch_rule", SOURCE)
def mv_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    level, ((a, ab, ar), (v, vb, vr)) = _operands(args)
    _check_ranks("mv", (ar, vr), (2, 1))
    if vb is None:
        return wrap(ops.matmul.call(a, v), 0, level)
    if ab is None:  # one mm of the matrix and every vector: the batch is the result's dim 1
        return wrap(ops.mm.call(a, ops.t.call(v)), 1, level)
    result = ops.bmm.call(a, ops.unsqueeze.call(v, -1))
    return wrap(ops.squeeze_dim.call(result, -1), 0, level)


@batch_rule("dot")
@traced("dispatch", "at::functorch::dot_batch_rule", SOURCE)
def dot_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    level, ((a, ab, ar), (b, bb, br)) = _operands(args)
    _check_ranks("dot", (ar, br), (1, 1))
    if ab is not None and bb is not None:
        product = ops.bmm.call(ops.unsqueeze.call(a, 1), ops.unsqueeze.call(b, 2))
        return wrap(ops.view.call(product, [a.size(0)]), 0, level)
    if ab is None:  # the unbatched vector times each batched one: an mv
        return wrap(ops.mv.call(b, a), 0, level)
    return wrap(ops.mv.call(a, b), 0, level)


@batch_rule("addmm", "addmv", "baddbmm")
@traced("dispatch", "at::functorch::addmm_decomposition", SOURCE)
def add_product_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    """beta * self + alpha * (m1 @ m2), on the batched tensors (beta 0 ignores self's values)."""
    self, m1, m2, beta, alpha = args[:5]
    product_op = {"addmm": ops.mm, "addmv": ops.mv, "baddbmm": ops.bmm}[op.schema.name]
    product = product_op.call(m1, m2)
    if alpha != 1:
        product = ops.mul_Scalar.call(product, alpha)
    if beta == 0:
        return _broadcast_to_self(product, self)
    scaled = self if beta == 1 else ops.mul_Scalar.call(self, beta)
    return ops.add_Tensor.call(scaled, product, 1)


def _broadcast_to_self(product: Tensor, self: Tensor) -> Tensor:
    """beta == 0: self's values are ignored (nan and inf included), its shape still counts."""
    zeros = ops.zeros_like.call(self, None, None, None, None, None)
    return ops.add_Tensor.call(zeros, product, 1)  # type: ignore[no-any-return]
