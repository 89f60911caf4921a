"""Matrix-vector and vector products: addmv (structured), mv, dot, vdot.

Mirrors `aten/src/ATen/native/Blas.cpp`: addmv's meta and CPU impl (gemv through cpublas,
native/cpu/blas.py), mv as addmv_ into a fresh result, and dot/vdot with dot_check.
"""

from __future__ import annotations

from typing import Any

from tensortrace.aten import functions as at
from tensortrace.aten.native.cpu import blas as cpublas
from tensortrace.aten.native.linear_algebra import (
    SOURCE,
    _check_dispatch_type,
    _options,
    expand_size,
)
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.native.resize import resize_output
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.exception import TORCH_CHECK

BLAS_CPP = "aten/src/ATen/native/Blas.cpp"
Scalar = Any


@meta_function("addmv", BLAS_CPP)
def meta_addmv(
    it: TensorIteratorBase, self: Tensor, mat: Tensor, vec: Tensor, beta: Scalar, alpha: Scalar
) -> None:
    TORCH_CHECK(
        mat.dim() == 2 and vec.dim() == 1 and self.dim() <= 1,
        "vector + matrix @ vector expected, got ",
        self.dim(),
        ", ",
        mat.dim(),
        ", ",
        vec.dim(),
    )
    TORCH_CHECK(
        mat.size(1) == vec.size(0) and (mat.size(0) == self.numel() or self.numel() == 1),
        "size mismatch, got input (",
        self.size(0) if self.dim() else self.numel(),
        "), mat (",
        mat.size(0),
        "x",
        mat.size(1),
        "), vec (",
        vec.size(0),
        ")",
    )
    TORCH_CHECK(
        self.scalar_type() == mat.scalar_type() == vec.scalar_type(),
        "addmv input tensors must have the same dtype, but got ",
        self.scalar_type(),
        ", ",
        mat.scalar_type(),
        ", and ",
        vec.scalar_type(),
    )
    it.set_output_raw_strided(0, [mat.size(0)], (), _options(vec))


@impl_function("addmv_out_cpu", BLAS_CPP, legacy="at::native::addmv_out")
def addmv_out_cpu(
    it: TensorIteratorBase,
    self: Tensor,
    mat: Tensor,
    vec: Tensor,
    beta: Scalar,
    alpha: Scalar,
    result: Tensor,
) -> None:
    self_ = expand_size(self, [mat.size(0)], "addmv")
    if mat.numel() == 0:
        # beta == 0 ignores self; its NaNs and infs must not propagate
        if beta == 0:
            result.zero_()
        else:
            result.copy_(self_)
            result.mul_(beta)
        return
    if not result.is_same(self_) and beta != 0:
        result.copy_(self_)
    if result.numel() != 0:
        _check_dispatch_type("addmv_impl_cpu", mat.scalar_type())
        if not (mat.stride(0) == 1 or mat.stride(1) == 1):
            mat = mat.contiguous()  # gemv needs one unit stride
        cpublas.gemv(alpha, mat.numpy_view(), vec.numpy_view(), beta, result.numpy_view())


@native_function(BLAS_CPP, name="mv")
def mv(self: Tensor, vec: Tensor) -> Tensor:
    result = at.empty([self.size(0)], dtype=vec.scalar_type(), device=vec.device())
    # the in-place version is more efficient if we can use it
    return at.addmv_(result, self, vec, beta=0, alpha=1)


@native_function(BLAS_CPP, name="mv_out")
def mv_out(self: Tensor, vec: Tensor, out: Tensor) -> Tensor:
    addmv_out = at._ops["addmv.out"]
    if out.dim() > 1 or (out.numel() != self.size(0) or out.numel() != 1):
        self_addmv = at.empty([self.size(0)], dtype=vec.scalar_type(), device=vec.device())
        return addmv_out.call(self_addmv, self, vec, 0, 1, out)
    return addmv_out.call(out, self, vec, 0, 1, out)


def dot_check(self: Tensor, other: Tensor) -> None:
    TORCH_CHECK(
        self.dim() == 1 and other.dim() == 1,
        "1D tensors expected, but got ",
        self.dim(),
        "D and ",
        other.dim(),
        "D tensors",
    )
    TORCH_CHECK(
        self.scalar_type() == other.scalar_type(),
        "dot : expected both vectors to have same dtype, but found ",
        self.scalar_type(),
        " and ",
        other.scalar_type(),
    )
    TORCH_CHECK(
        self.numel() == other.numel(),
        "inconsistent tensor size, expected tensor [",
        self.numel(),
        "] and src [",
        other.numel(),
        "] to have the same number of elements, but got ",
        self.numel(),
        " and ",
        other.numel(),
        " elements respectively",
    )


@native_function(BLAS_CPP, name="dot")
def dot(self: Tensor, tensor: Tensor) -> Tensor:
    dot_check(self, tensor)
    _check_dispatch_type("dot", self.scalar_type())
    result = at.empty([], dtype=self.scalar_type(), device=self.device())
    if result.is_meta():  # Note [A meta tensor's kernel is no call]
        return result
    result.fill_(cpublas.dot_impl(self.numpy_view(), tensor.numpy_view()))
    return result


@native_function(BLAS_CPP, name="vdot")
def vdot(self: Tensor, other: Tensor) -> Tensor:
    """sum(conj(self) * other): dot for real dtypes."""
    if not self.is_complex():
        return at.dot(self, other)
    dot_check(self, other)
    result = at.empty([], dtype=self.scalar_type(), device=self.device())
    result.fill_(cpublas.vdot_impl(self.numpy_view(), other.numpy_view()))
    return result


@native_function(SOURCE, name="vdot_out")
def vdot_out(self: Tensor, other: Tensor, out: Tensor) -> Tensor:
    resize_output(out, [])
    TORCH_CHECK(
        out.scalar_type() == self.scalar_type(),
        "result dtype ",
        out.scalar_type(),
        " does not match input dtype ",
        self.scalar_type(),
    )
    return out.fill_(at.vdot(self, other))


@native_function(SOURCE, name="dot_out")
def dot_out(self: Tensor, tensor: Tensor, out: Tensor) -> Tensor:
    resize_output(out, [])
    TORCH_CHECK(
        out.scalar_type() == self.scalar_type(),
        "result dtype ",
        out.scalar_type(),
        " does not match input dtype ",
        self.scalar_type(),
    )
    return out.fill_(self.dot(tensor))
