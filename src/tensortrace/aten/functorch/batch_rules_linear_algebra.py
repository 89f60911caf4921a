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


def _logical_sizes(value: Tensor, bdim: int | None) -> list[int]:
    sizes = list(value.sizes())
    return sizes[1:] if bdim is not None else sizes


@batch_rule("mm", "bmm")
@traced("dispatch", "at::functorch::mm_batch_rule", SOURCE)
def mm_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    level, ((a, ab, ar), (b, bb, br)) = _operands(args)
    want = 2 if op.schema.name == "mm" else 3
    TORCH_CHECK(ar == want, "self must be a ", want, "D tensor" if want == 3 else "D matrix")
    TORCH_CHECK(br == want, "mat2 must be a ", want, "D tensor" if want == 3 else "D matrix")
    sa, sb = _logical_sizes(a, ab), _logical_sizes(b, bb)
    if want == 3:
        TORCH_CHECK(
            sa[0] == sb[0],
            "batch1 and batch2 must have same number of batches, got ",
            sa[0],
            " and ",
            sb[0],
        )
    TORCH_CHECK(
        sa[-1] == sb[-2],
        "mat1 and mat2 shapes cannot be multiplied (",
        sa[-2],
        "x",
        sa[-1],
        " and ",
        sb[-2],
        "x",
        sb[-1],
        ")",
    )
    return wrap(ops.matmul.call(a, b), 0, level)


@batch_rule("mv")
@traced("dispatch", "at::functorch::mv_batch_rule", SOURCE)
def mv_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    level, ((a, ab, ar), (v, vb, vr)) = _operands(args)
    TORCH_CHECK(
        ar == 2 and vr == 1,
        "vector + matrix @ vector expected, got ",
        1,
        ", ",
        ar,
        ", ",
        vr,
    )
    sa, sv = _logical_sizes(a, ab), _logical_sizes(v, vb)
    TORCH_CHECK(
        sa[1] == sv[0],
        "size mismatch, got input (",
        sa[0],
        "), mat (",
        sa[0],
        "x",
        sa[1],
        "), vec (",
        sv[0],
        ")",
    )
    if vb is None:
        return wrap(ops.matmul.call(a, v), 0, level)
    if ab is None:  # one mm of the matrix and every vector: the batch is the result's dim 1
        return wrap(ops.mm.call(a, ops.t.call(v)), 1, level)
    result = ops.matmul.call(a, ops.unsqueeze.call(v, -1))
    return wrap(ops.squeeze_dim.call(result, -1), 0, level)


@batch_rule("dot")
@traced("dispatch", "at::functorch::dot_batch_rule", SOURCE)
def dot_batch_rule(op: OperatorHandle, args: tuple[Any, ...]) -> Any:
    level, ((a, ab, ar), (b, bb, br)) = _operands(args)
    TORCH_CHECK(
        ar == 1 and br == 1,
        "1D tensors expected, but got ",
        ar,
        "D and ",
        br,
        "D tensors",
    )
    sa, sb = _logical_sizes(a, ab), _logical_sizes(b, bb)
    TORCH_CHECK(
        a.scalar_type() == b.scalar_type(),
        "dot : expected both vectors to have same dtype, but found ",
        a.scalar_type(),
        " and ",
        b.scalar_type(),
    )
    TORCH_CHECK(
        sa[0] == sb[0],
        "inconsistent tensor size, expected tensor [",
        sa[0],
        "] and src [",
        sb[0],
        "] to have the same number of elements, but got ",
        sa[0],
        " and ",
        sb[0],
        " elements respectively",
    )
    product = ops.matmul.call(ops.unsqueeze.call(a, -2), ops.unsqueeze.call(b, -1))
    return wrap(ops.reshape.call(product, list(product.sizes()[:-2])), 0, level)


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
