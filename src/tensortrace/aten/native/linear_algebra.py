"""Matrix products: mm, addmm, matmul for every rank combination, tensordot, outer, kron.

Mirrors `aten/src/ATen/native/LinearAlgebra.cpp` (the structured mm/bmm/addmm kernels,
addmm_impl_cpu_, the CompositeImplicitAutograd matmul with _matmul_impl, and the composites
tensordot, inner, outer / ger, kron). bmm and baddbmm are in linear_algebra_bmm.py; addmv, mv
and dot are Blas.cpp's (native/blas.py); the BLAS calls are in native/cpu/blas.py.

Note [matmul decomposes]
matmul has no kernel of its own: it is CompositeImplicitAutograd, so aten::matmul's children
in the trace are the ops it decomposes into, chosen by the operands' ranks: 1D @ 1D is dot,
2D @ 1D is mv, 1D @ 2D is unsqueeze(0) + mm + squeeze_(0), 2D @ 2D is mm, an ND operand
against a 1D/2D one is folded into a matrix (reshape + mm/mv + _unsafe_view) when that needs
no copy, and anything else is broadcast and batched (expand + reshape + bmm + _unsafe_view).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tensortrace.aten import functions as at
from tensortrace.aten.expand_utils import infer_size
from tensortrace.aten.native.cpu import blas
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.native.resize import resize_output
from tensortrace.aten.native.tensor_transformations import dim_list_to_bitset
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar_type import ScalarType, kBool
from tensortrace.c10.tensor_options import TensorOptions

SOURCE = "aten/src/ATen/native/LinearAlgebra.cpp"
Scalar = Any


def _check_dispatch_type(name: str, dtype: ScalarType) -> None:
    """AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND*: bool has no matrix product."""
    TORCH_CHECK_NOT_IMPLEMENTED(
        dtype is not kBool, '"', name, "\" not implemented for '", dtype, "'"
    )


def expand_size(to_expand: Tensor, sizes: Sequence[int], api_name: str) -> Tensor:
    """ExpandUtils.h expand_size: borrow when the sizes already match, else expand (a view)."""
    if tuple(to_expand.sizes()) == tuple(sizes):
        return to_expand
    return to_expand.expand(list(sizes))


# ---- mm / addmm ----------------------------------------------------------------------------------
def _options(t: Tensor) -> TensorOptions:
    return TensorOptions(t.scalar_type(), t.device())


@meta_function("mm", SOURCE)
def meta_mm(it: TensorIteratorBase, self: Tensor, mat2: Tensor) -> None:
    TORCH_CHECK(self.dim() == 2, "self must be a matrix")
    TORCH_CHECK(mat2.dim() == 2, "mat2 must be a matrix")
    TORCH_CHECK(
        self.size(1) == mat2.size(0),
        "mat1 and mat2 shapes cannot be multiplied (",
        self.size(0),
        "x",
        self.size(1),
        " and ",
        mat2.size(0),
        "x",
        mat2.size(1),
        ")",
    )
    it.set_output_raw_strided(0, [self.size(0), mat2.size(1)], (), _options(self))


@meta_function("addmm", SOURCE)
def meta_addmm(
    it: TensorIteratorBase, self: Tensor, mat1: Tensor, mat2: Tensor, beta: Scalar, alpha: Scalar
) -> None:
    TORCH_CHECK(
        self.scalar_type() == mat2.scalar_type(),
        "self and mat2 must have the same dtype, but got ",
        self.scalar_type(),
        " and ",
        mat2.scalar_type(),
    )
    TORCH_CHECK(
        mat1.scalar_type() == mat2.scalar_type(),
        "mat1 and mat2 must have the same dtype, but got ",
        mat1.scalar_type(),
        " and ",
        mat2.scalar_type(),
    )
    TORCH_CHECK(mat1.dim() == 2, "mat1 must be a matrix, got ", mat1.dim(), "-D tensor")
    TORCH_CHECK(mat2.dim() == 2, "mat2 must be a matrix, got ", mat2.dim(), "-D tensor")
    TORCH_CHECK(
        mat1.size(1) == mat2.size(0),
        "mat1 and mat2 shapes cannot be multiplied (",
        mat1.size(0),
        "x",
        mat1.size(1),
        " and ",
        mat2.size(0),
        "x",
        mat2.size(1),
        ")",
    )
    it.set_output_raw_strided(0, [mat1.size(0), mat2.size(1)], (), _options(mat1))


def addmm_impl_cpu_(
    result: Tensor, self: Tensor, m1: Tensor, m2: Tensor, beta: Scalar, alpha: Scalar
) -> None:
    """result = beta * self + alpha * (m1 @ m2), through one BLAS gemm.

    The branches pick, as PyTorch does, which operands BLAS can read in place (a row- or
    column-major matrix, resolve_conj'd) and which need a contiguous copy first; the result
    is computed on the matrices as they are, so only the trace shows the choice.
    """
    TORCH_CHECK(
        m1.dtype() == m2.dtype(),
        "expected m1 and m2 to have the same dtype, but got: ",
        m1.dtype().name,
        " != ",
        m2.dtype().name,
    )
    self_sizes = self.sizes()
    TORCH_CHECK(
        self_sizes[0] == m1.size(0) and self_sizes[1] == m2.size(1),
        "input shape is incompatible with matrix multiplication (",
        m1.size(0),
        "x",
        m1.size(1),
        " @ ",
        m2.size(0),
        "x",
        m2.size(1),
        " != ",
        self_sizes[0],
        "x",
        self_sizes[1],
        ")",
    )
    resize_output(result, self_sizes)
    if result.numel() == 0:
        return
    if m1.size(1) == 0:  # [a, 0] x [0, b]: no product to compute
        if beta == 0:
            result.zero_()
        else:
            if not self.is_same(result):
                result.copy_(self)
            result.mul_(beta)
        return
    if beta != 0 and not self.is_same(result):
        result.copy_(self)

    rs, rz = result.strides(), result.sizes()
    mat1, mat2 = m1, m2  # the logical operands, whatever BLAS layout is chosen below
    if rs[0] == 1 and (rz[1] == 1 or rs[1] >= max(1, rz[0])):
        transpose_c = False
        c = result.resolve_conj()
    elif rs[1] == 1 and (rz[0] == 1 or rs[0] >= max(1, rz[1])):
        m1, m2 = m2, m1  # a row-major result is the transpose of a column-major one
        transpose_c = True
        c = result.resolve_conj()
    else:
        transpose_c = False
        c = result.resolve_conj().transpose(0, 1).contiguous().transpose_(0, 1)
    m = rz[1 if transpose_c else 0]
    n = rz[0 if transpose_c else 1]
    k = m1.size(0 if transpose_c else 1)

    def blas_operand(t: Tensor, ld_min: int, ld_min_t: int) -> Tensor:
        st = t.strides()
        if st[1 if transpose_c else 0] == 1 and st[0 if transpose_c else 1] >= max(1, ld_min):
            return t.resolve_conj()
        if st[0 if transpose_c else 1] == 1 and st[1 if transpose_c else 0] >= max(1, ld_min_t):
            return t
        return t.clone(memory_format="contiguous_format")

    a = blas_operand(m1, m, k)
    b = blas_operand(m2, k, n)
    del a, b  # the layouts BLAS would read; the product below uses the logical operands
    _check_dispatch_type("addmm_impl_cpu_", result.scalar_type())
    blas.gemm(alpha, mat1.numpy_view(), mat2.numpy_view(), beta, c.numpy_view())
    if not c.is_same(result):
        result.copy_(c)


@impl_function("addmm_out_cpu", SOURCE, legacy="at::native::addmm_out")
def addmm_out_cpu(
    it: TensorIteratorBase,
    self: Tensor,
    mat1: Tensor,
    mat2: Tensor,
    beta: Scalar,
    alpha: Scalar,
    result: Tensor,
) -> None:
    b_self = expand_size(self, [mat1.size(0), mat2.size(1)], "addmm_out")
    addmm_impl_cpu_(result, b_self, mat1, mat2, beta, alpha)


@impl_function("mm_out_cpu", SOURCE, legacy="at::native::mm_out")
def mm_out_cpu(it: TensorIteratorBase, self: Tensor, mat2: Tensor, result: Tensor) -> None:
    addmm_impl_cpu_(result, result, self, mat2, 0, 1)


# ---- matmul (Note [matmul decomposes]) -----------------------------------------------------------
def should_fold(tensor1: Tensor, tensor2: Tensor, has_out: bool) -> bool:
    """Fold the larger (>= 3D) operand into a matrix and use mm/mv, if that needs no copy."""
    tensor1_larger = tensor1.dim() >= tensor2.dim()
    t1 = tensor1 if tensor1_larger else tensor2.mT()
    dim_t1 = t1.dim()
    dim_t2 = tensor2.dim() if tensor1_larger else tensor1.dim()
    if not (dim_t1 >= 3 and dim_t2 <= 2):
        return False
    t2_requires_grad = tensor2.requires_grad() if tensor1_larger else tensor1.requires_grad()
    if t2_requires_grad and not has_out:
        return True
    if tensor1.dim() == 2:
        return False
    if t1.numel() == 0:
        return True
    shape, strides = t1.sizes(), t1.strides()
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(dim_t1 - 2))


def is_alias_of(a: Tensor, b: Tensor) -> bool:
    """TensorBase::is_alias_of: the two share a storage."""
    return (
        a.unsafeGetTensorImpl().storage_.unsafeGetStorageImpl()
        is b.unsafeGetTensorImpl().storage_.unsafeGetStorageImpl()
    )


def _prod(values: Sequence[int]) -> int:
    n = 1
    for v in values:
        n *= v
    return n


def _matmul_impl(out: Tensor, tensor1: Tensor, tensor2: Tensor) -> Tensor:
    dim_tensor1, dim_tensor2 = tensor1.dim(), tensor2.dim()
    TORCH_CHECK(
        dim_tensor1 != 0 and dim_tensor2 != 0,
        "both arguments to matmul need to be at least 1D, but they are ",
        dim_tensor1,
        "D and ",
        dim_tensor2,
        "D",
    )
    has_out = out.defined()

    if dim_tensor1 == 1 and dim_tensor2 == 1:
        return at._ops["dot.out"].call(tensor1, tensor2, out) if has_out else tensor1.dot(tensor2)
    if dim_tensor1 == 2 and dim_tensor2 == 1:
        return at._ops["mv.out"].call(tensor1, tensor2, out) if has_out else tensor1.mv(tensor2)
    if dim_tensor1 == 1 and dim_tensor2 == 2:
        if has_out:
            return at._ops["mm.out"].call(tensor1.unsqueeze(0), tensor2, out).squeeze_(0)
        return tensor1.unsqueeze(0).mm(tensor2).squeeze_(0)
    if dim_tensor1 == 2 and dim_tensor2 == 2:
        return at._ops["mm.out"].call(tensor1, tensor2, out) if has_out else tensor1.mm(tensor2)

    if should_fold(tensor1, tensor2, has_out):
        transpose = dim_tensor2 > dim_tensor1
        t1 = tensor2.mT() if transpose else tensor1
        t2 = tensor2 if not transpose else tensor1.t() if dim_tensor1 == 2 else tensor1
        sizes_1 = list(t1.sizes())
        output_shape = sizes_1[:-1]
        folded_dim1 = _prod(output_shape)
        t2_is_matrix = t2.dim() == 2
        if t2_is_matrix:
            output_shape.append(t2.size(1))
        t1_folded = t1.reshape([folded_dim1, sizes_1[-1]])
        if not has_out:
            if t2_is_matrix:
                output = at._unsafe_view(t1_folded.mm(t2), output_shape)
                return output.mT().contiguous() if transpose else output
            return at._unsafe_view(t1_folded.mv(t2), output_shape)
        resize_output(out, output_shape)
        reshaped_out = (
            out.reshape([folded_dim1, t2.size(-1)]) if t2_is_matrix else out.reshape([folded_dim1])
        )
        if t2_is_matrix:
            at._ops["mm.out"].call(t1_folded, t2, reshaped_out)
        else:
            at._ops["mv.out"].call(t1_folded, t2, reshaped_out)
        if not is_alias_of(reshaped_out, out):
            out.copy_(reshaped_out)
        return out

    # dim_tensor1 >= 3 or dim_tensor2 >= 3: broadcast the batch dims and use bmm
    sizes1, sizes2 = list(tensor1.sizes()), list(tensor2.sizes())
    n = sizes1[-2] if dim_tensor1 > 1 else 1
    m1 = sizes1[-1]
    batch_tensor1 = sizes1[: max(dim_tensor1 - 2, 0)]
    m2 = sizes2[-2] if dim_tensor2 > 1 else sizes2[0]
    p = sizes2[-1] if dim_tensor2 > 1 else 1
    batch_tensor2 = sizes2[: max(dim_tensor2 - 2, 0)]

    # the same gradient optimisation as should_fold: a broadcast size-1 batch that requires
    # grad is squeezed rather than expanded
    if dim_tensor1 == 3 and dim_tensor2 == 3 and batch_tensor1[0] != batch_tensor2[0]:
        if batch_tensor1[0] == 1 and tensor1.requires_grad():
            return _matmul_impl(out, tensor1.squeeze(0), tensor2)
        if batch_tensor2[0] == 1 and tensor2.requires_grad():
            return _matmul_impl(out, tensor1, tensor2.squeeze(0))

    output_shape = list(infer_size(batch_tensor1, batch_tensor2))
    expand_batch_product = _prod(output_shape)
    tensor1_expanded = tensor1.expand(output_shape + [n, m1]).reshape([expand_batch_product, n, m1])
    vector_rhs = dim_tensor2 == 1
    tensor2_expand_size = output_shape + ([m2] if vector_rhs else [m2, p])
    tensor2_expanded = tensor2.expand(tensor2_expand_size)
    if vector_rhs:
        tensor2_expanded = tensor2_expanded.reshape([expand_batch_product, m2]).unsqueeze(2)
    else:
        tensor2_expanded = tensor2_expanded.reshape([expand_batch_product, m2, p])
    if dim_tensor1 > 1:
        output_shape.append(n)
    if dim_tensor2 > 1:
        output_shape.append(p)

    if not has_out:
        product = tensor1_expanded.bmm(tensor2_expanded)
        if vector_rhs:
            product = product.squeeze(-1)
        return at._unsafe_view(product, output_shape)
    resize_output(out, output_shape)
    reshaped_out = out.reshape([expand_batch_product, n, p])
    at._ops["bmm.out"].call(tensor1_expanded, tensor2_expanded, reshaped_out)
    if vector_rhs:
        reshaped_out = reshaped_out.squeeze(-1)
    if not is_alias_of(reshaped_out, out):
        out.copy_(reshaped_out.view_as(out))
    return out


@native_function(SOURCE, name="matmul")
def matmul(self: Tensor, other: Tensor) -> Tensor:
    return _matmul_impl(Tensor(), self, other)


@native_function(SOURCE, name="matmul_out")
def matmul_out(self: Tensor, other: Tensor, out: Tensor) -> Tensor:
    _matmul_impl(out, self, other)
    return out


# ---- tensordot, inner, outer / ger, kron ---------------------------------------------------------
@native_function(SOURCE)
def tensordot(
    self: Tensor, other: Tensor, dims_self: Sequence[int], dims_other: Sequence[int]
) -> Tensor:
    TORCH_CHECK(len(dims_self) == len(dims_other), "both dimension lists should have same length")
    TORCH_CHECK(self.scalar_type() == other.scalar_type(), "both inputs should have same dtype")
    csize = 1
    t1, t2 = self, other
    for d1, d2 in zip(dims_self, dims_other):
        s1, s2 = self.size(d1), other.size(d2)
        if s2 == 1:
            t1 = t1.sum([d1], True, dtype=t1.scalar_type())
        elif s1 == 1:
            t2 = t2.sum([d2], True, dtype=t2.scalar_type())
        else:
            TORCH_CHECK(
                s1 == s2,
                "contracted dimensions need to match, but first has size ",
                s1,
                " in dim ",
                d1,
                " and second has size ",
                s2,
                " in dim ",
                d2,
            )
            csize *= s1
    cdims1 = dim_list_to_bitset(dims_self, self.dim())
    cdims2 = dim_list_to_bitset(dims_other, other.dim())
    p1 = [i for i in range(self.dim()) if not cdims1[i]]
    p2_rest = [i for i in range(other.dim()) if not cdims2[i]]
    rsizes = [t1.size(i) for i in p1] + [t2.size(i) for i in p2_rest]
    size1 = _prod([t1.size(i) for i in p1])
    size2 = _prod([t2.size(i) for i in p2_rest])
    t1 = t1.permute(p1 + [maybe_wrap_dim(d, self.dim()) for d in dims_self]).reshape([size1, csize])
    t2 = t2.permute([maybe_wrap_dim(d, other.dim()) for d in dims_other] + p2_rest).reshape(
        [csize, size2]
    )
    return at.mm(t1, t2).reshape(rsizes)


@native_function(SOURCE)
def inner(self: Tensor, other: Tensor) -> Tensor:
    if self.dim() == 0 or other.dim() == 0:
        return at.mul(self, other)
    TORCH_CHECK(
        self.size(-1) == other.size(-1),
        "inner() the last dimension must match on both input tensors but got shapes ",
        list(self.sizes()),
        " and ",
        list(other.sizes()),
    )
    return at.tensordot(self, other, [-1], [-1])


def _check_1d(t: Tensor, arg: str, fn: str) -> None:
    TORCH_CHECK(t.dim() == 1, fn, ": Expected 1-D argument ", arg, ", but got ", t.dim(), "-D")


@native_function(SOURCE)
def outer(self: Tensor, vec2: Tensor) -> Tensor:
    _check_1d(self, "self", "outer")
    _check_1d(vec2, "vec2", "outer")
    return at.mul(self.reshape([self.size(0), 1]), vec2)


@native_function(SOURCE)
def ger(self: Tensor, vec2: Tensor) -> Tensor:
    return self.outer(vec2)


@native_function(SOURCE)
def kron(self: Tensor, other: Tensor) -> Tensor:
    """KronImpl: self as (s0, 1, s1, 1, ...) times other as (1, o0, 1, o1, ...), flattened."""
    maxdim = max(self.dim(), other.dim())
    pad_self, pad_other = maxdim - self.dim(), maxdim - other.dim()
    a_reshape = [1] * (2 * maxdim)
    b_reshape = [1] * (2 * maxdim)
    result_reshape = [1] * maxdim
    for i in range(maxdim):
        a_reshape[2 * i] = self.size(i - pad_self) if i >= pad_self else 1
        b_reshape[2 * i + 1] = other.size(i - pad_other) if i >= pad_other else 1
        result_reshape[i] = a_reshape[2 * i] * b_reshape[2 * i + 1]

    def view(t: Tensor, shape: list[int]) -> Tensor:  # _unsafe_view needs viewable strides
        return at._unsafe_view(t, shape) if t.is_contiguous() else t.reshape(shape)

    product = at.mul(view(self, a_reshape), view(other, b_reshape))
    return at._unsafe_view(product, result_reshape)
