"""Batched matrix products: bmm and baddbmm (beta * self + alpha * batch1 @ batch2).

Mirrors the structured bmm / baddbmm of `aten/src/ATen/native/LinearAlgebra.cpp`: one meta
check (common_checks_baddbmm_bmm) for both, which for baddbmm also copies the expanded self
into the result when beta is not 0, then one batched BLAS gemm (bmm_out_or_baddbmm_).
"""

from __future__ import annotations

from tensortrace.aten.native.cpu import blas
from tensortrace.aten.native.linear_algebra import (
    SOURCE,
    Scalar,
    _check_dispatch_type,
    _options,
    expand_size,
)
from tensortrace.aten.native.registry import impl_function, meta_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.exception import TORCH_CHECK


def common_checks_baddbmm_bmm(
    it: TensorIteratorBase,
    batch1: Tensor,
    batch2: Tensor,
    beta: Scalar,
    is_bmm: bool,
    self_baddbmm: Tensor | None = None,
) -> None:
    TORCH_CHECK(batch1.dim() == 3, "batch1 must be a 3D tensor")
    TORCH_CHECK(batch2.dim() == 3, "batch2 must be a 3D tensor")
    bs, contraction, rows = batch1.size(0), batch1.size(2), batch1.size(1)
    output_size = [bs, rows, batch2.size(2)]
    TORCH_CHECK(
        batch2.size(0) == bs and batch2.size(1) == contraction,
        "Expected size for first two dimensions of batch2 tensor to be: [",
        bs,
        ", ",
        contraction,
        "] but got: [",
        batch2.size(0),
        ", ",
        batch2.size(1),
        "].",
    )
    it.set_output_raw_strided(0, output_size, (), _options(batch2))
    result = it.maybe_get_output(0)
    TORCH_CHECK(
        list(result.sizes()) == output_size,
        "Expected an output tensor with shape ",
        output_size,
        " but got shape ",
        list(result.sizes()),
    )
    if not is_bmm and self_baddbmm is not None:
        if beta != 0 and not result.is_same(self_baddbmm):  # copy_ to itself is a no-op
            result.copy_(self_baddbmm)
        TORCH_CHECK(self_baddbmm.dim() == 3, "self must be a 3D tensor")
        TORCH_CHECK(
            list(self_baddbmm.sizes()) == output_size,
            "Expected an input tensor shape with shape ",
            output_size,
            " but got shape: ",
            list(self_baddbmm.sizes()),
        )


@meta_function("bmm", SOURCE)
def meta_bmm(it: TensorIteratorBase, self: Tensor, mat2: Tensor) -> None:
    common_checks_baddbmm_bmm(it, self, mat2, 0, True)


@meta_function("baddbmm", SOURCE)
def meta_baddbmm(
    it: TensorIteratorBase,
    self: Tensor,
    batch1: Tensor,
    batch2: Tensor,
    beta: Scalar,
    alpha: Scalar,
) -> None:
    self_ = expand_size(self, [batch1.size(0), batch1.size(1), batch2.size(2)], "baddbmm")
    TORCH_CHECK(
        self.dtype() == batch1.dtype(),
        "Input dtypes must be the same, got: input ",
        self.dtype().name,
        ", batch1: ",
        batch1.dtype().name,
        ", batch2: ",
        batch2.dtype().name,
    )
    common_checks_baddbmm_bmm(it, batch1, batch2, beta, False, self_)


def bmm_out_or_baddbmm_(
    result: Tensor, batch1: Tensor, batch2: Tensor, beta: Scalar, alpha: Scalar, is_bmm: bool
) -> None:
    """result = beta * result + alpha * batch1 @ batch2 (result ignored when beta is 0)."""
    batch1 = batch1.resolve_conj()
    batch2 = batch2.resolve_conj()
    if result.numel() == 0:
        return
    if batch1.size(2) == 0:
        if beta == 0 or is_bmm:
            result.zero_()
        elif beta != 1:
            result.mul_(beta)
        return
    dtype = batch1.scalar_type()
    _check_dispatch_type("bmm" if is_bmm else "baddbmm", dtype)
    # baddbmm_cpu_kernel<scalar_t>: result and batch2 are read as batch1's scalar_t
    for t in (result, batch2):
        TORCH_CHECK(
            t.scalar_type() == dtype, "expected scalar type ", dtype, " but found ", t.scalar_type()
        )
    blas.gemm(alpha, batch1.numpy_view(), batch2.numpy_view(), beta, result.numpy_view())


@impl_function("bmm_out_cpu", SOURCE, legacy="at::native::bmm_out")
def bmm_out_cpu(it: TensorIteratorBase, batch1: Tensor, batch2: Tensor, result: Tensor) -> None:
    bmm_out_or_baddbmm_(result, batch1, batch2, 0, 1, True)


@impl_function("baddbmm_out_cpu", SOURCE, legacy="at::native::baddbmm_out")
def baddbmm_out_cpu(
    it: TensorIteratorBase,
    self: Tensor,
    batch1: Tensor,
    batch2: Tensor,
    beta: Scalar,
    alpha: Scalar,
    result: Tensor,
) -> None:
    bmm_out_or_baddbmm_(result, batch1, batch2, beta, alpha, False)
