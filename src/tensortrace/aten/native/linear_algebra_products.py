"""Products of matrices: linalg.matrix_power / torch.matrix_power, linalg.multi_dot,
linalg.tensorinv, linalg.tensorsolve, torch.vander and linalg.vander.

Mirrors `aten/src/ATen/native/LinearAlgebra.cpp` (linalg_matrix_power_impl's binary
decomposition of n, multi_dot_impl with matrix_chain_order, linalg_tensorinv,
linalg_tensorsolve, linalg_vander) and `TensorFactories.cpp`'s vander: composites of matmul /
mm, linalg.inv and linalg.solve, so the trace shows those ops, as torch.profiler does.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from tensortrace.aten import functions as at
from tensortrace.aten.native.batch_linear_algebra import _linalg_check_errors, squareCheckInputs
from tensortrace.aten.native.linear_algebra_det import _copy_into
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType, canCast, isIntegralType, promoteTypes

SOURCE = "aten/src/ATen/native/LinearAlgebra.cpp"


# ---- matrix_power --------------------------------------------------------------------------------
def linalg_matrix_power_impl(self: Tensor, n: int, out: Tensor | None) -> Tensor:
    squareCheckInputs(self, "linalg.matrix_power")
    if out is not None:
        TORCH_CHECK(  # checkLinalgCompatibleDtype
            canCast(self.scalar_type(), out.scalar_type()),
            "matrix_power: Expected result to be safely castable from ",
            self.scalar_type(),
            " dtype, but got result with dtype ",
            out.scalar_type(),
        )
        if list(out.sizes()) != list(self.sizes()):
            out.resize_(list(self.sizes()))
    if n == 0:  # the identity, through a clone so that the result is in the autograd graph
        eye = at.eye(self.size(-2), dtype=self.scalar_type(), device=self.device())
        base = out if out is not None else self.clone(memory_format="contiguous_format")
        return base.copy_(eye)  # type: ignore[no-any-return]
    if n == 1:
        return out.copy_(self) if out is not None else self.clone(memory_format="contiguous_format")  # type: ignore[no-any-return]
    if n == -1:
        return at.linalg_inv(self, out=out) if out is not None else at.linalg_inv(self)  # type: ignore[no-any-return]
    a = at.linalg_inv(self) if n < 0 else self
    n = abs(n)
    if n == 2:
        return at.matmul(a, a, out=out) if out is not None else at.matmul(a, a)  # type: ignore[no-any-return]
    if n == 3:
        aa = at.matmul(a, a)
        return at.matmul(aa, a, out=out) if out is not None else at.matmul(aa, a)  # type: ignore[no-any-return]
    # the binary decomposition of n, least significant bit first: O(log n) products
    z: Tensor | None = None
    result: Tensor | None = None
    while n > 0:
        bit = n % 2
        n //= 2
        z = at.matmul(z, z) if z is not None else a
        if bit == 1:
            if out is not None and n <= 0:  # the last product can write into out
                return at.matmul(result, z, out=out) if result is not None else out.copy_(z)  # type: ignore[no-any-return]
            result = at.matmul(result, z) if result is not None else z
    assert result is not None
    return result


@native_function(SOURCE, name="linalg_matrix_power", legacy="at::native::linalg_matrix_power")
def linalg_matrix_power(self: Tensor, n: int) -> Tensor:
    return linalg_matrix_power_impl(self, n, None)


@native_function(
    SOURCE, name="linalg_matrix_power_out", legacy="at::native::linalg_matrix_power_out"
)
def linalg_matrix_power_out(self: Tensor, n: int, out: Tensor) -> Tensor:
    linalg_matrix_power_impl(self, n, out)
    return out


@native_function(SOURCE, name="matrix_power", legacy="at::native::matrix_power")
def matrix_power(self: Tensor, n: int) -> Tensor:
    return linalg_matrix_power_impl(self, n, None)


@native_function(SOURCE, name="matrix_power_out", legacy="at::native::matrix_power_out")
def matrix_power_out(self: Tensor, n: int, out: Tensor) -> Tensor:
    linalg_matrix_power_impl(self, n, out)
    return out


# ---- multi_dot -----------------------------------------------------------------------------------
def matrix_chain_order(tensors: Sequence[Tensor]) -> list[list[int]]:
    """Cormen et al. 15.2: s[i][j], where to split tensors i..j for the fewest flops."""
    n = len(tensors)
    p = [t.size(0) for t in tensors] + [tensors[-1].size(1)]
    m = [[0] * n for _ in range(n)]
    s = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            m[i][j] = math.inf  # type: ignore[call-overload]
            for k in range(i, j):
                q = m[i][k] + m[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if q < m[i][j]:
                    m[i][j] = q
                    s[i][j] = k
    return s


def matrix_chain_multiplication(
    tensors: Sequence[Tensor], order: list[list[int]], i: int, j: int
) -> Tensor:
    if i == j:
        return tensors[i]
    left = matrix_chain_multiplication(tensors, order, i, order[i][j])
    right = matrix_chain_multiplication(tensors, order, order[i][j] + 1, j)
    return at.mm(left, right)  # type: ignore[no-any-return]


def multi_dot_impl(_tensors: Sequence[Tensor], out: Tensor | None) -> Tensor:
    n = len(_tensors)
    TORCH_CHECK(n >= 2, "multi_dot(): expected at least 2 tensors but got ", n)
    tensors = list(_tensors)
    out_shape: list[int] = []
    first, last = _tensors[0], _tensors[n - 1]
    if first.dim() == 1:  # a row vector (1, n)
        tensors[0] = first.unsqueeze(0)
    elif first.dim() == 2:
        out_shape.append(first.size(0))
    else:
        TORCH_CHECK(
            False, "multi_dot(): the first tensor must be 1D or 2D but got ", first.dim(), "D"
        )
    if last.dim() == 1:  # a column vector (n, 1)
        tensors[n - 1] = last.unsqueeze(-1)
    elif last.dim() == 2:
        out_shape.append(last.size(1))
    else:
        TORCH_CHECK(
            False, "multi_dot(): the last tensor must be 1D or 2D but got ", last.dim(), "D"
        )
    for i in range(1, n - 1):
        TORCH_CHECK(
            _tensors[i].dim() == 2,
            "multi_dot(): tensor ",
            i,
            " must be 2D but got ",
            _tensors[i].dim(),
            "D",
        )
    dtype, device = tensors[0].dtype(), tensors[0].device()
    for i in range(1, n):
        TORCH_CHECK(
            tensors[i].dtype() == dtype,
            "multi_dot(): all tensors must have be the same dtype but tensor 0 is ",
            dtype.name,  # TypeMeta's name: float, double ...
            " and tensor ",
            i,
            " ",
            tensors[i].dtype().name,
        )
        TORCH_CHECK(
            tensors[i].device() == device,
            "multi_dot(): all tensors must be on the same device but tensor 0 is on ",
            device,
            " and tensor ",
            i,
            " on ",
            tensors[i].device(),
        )
        TORCH_CHECK(
            tensors[i - 1].size(-1) == tensors[i].size(0),
            "multi_dot(): tensors ",
            i - 1,
            " and ",
            i,
            " with shapes ",
            _tensors[i - 1].sizes(),
            " and ",
            _tensors[i].sizes(),
            " cannot be multiplied",
        )
    result: Tensor | None = None
    if out is not None:
        TORCH_CHECK(
            out.dtype() == dtype,
            "multi_dot(): expected out tensor to have dtype ",
            dtype.name,
            " but got ",
            out.dtype().name,
        )
        if list(out.sizes()) != out_shape:
            out.resize_(out_shape)
        result = out.view([tensors[0].size(0), tensors[-1].size(-1)])  # out, viewed as 2-D

    def finish(a: Tensor, b: Tensor) -> Tensor:
        if result is not None:
            at.mm(a, b, out=result)
            return out  # type: ignore[return-value]
        return at.mm(a, b).view(out_shape)  # type: ignore[no-any-return]

    if n == 2:
        return finish(tensors[0], tensors[1])
    if n == 3:  # (a x b) (b x c) (c x d): one comparison decides the order
        a, b = tensors[0].size(0), tensors[1].size(0)
        c, d = tensors[2].size(0), tensors[2].size(1)
        if a * c * (b + d) > b * d * (a + c):
            return finish(tensors[0], at.mm(tensors[1], tensors[2]))
        return finish(at.mm(tensors[0], tensors[1]), tensors[2])
    order = matrix_chain_order(tensors)
    left = matrix_chain_multiplication(tensors, order, 0, order[0][n - 1])
    right = matrix_chain_multiplication(tensors, order, order[0][n - 1] + 1, n - 1)
    return finish(left, right)


@native_function(SOURCE, name="linalg_multi_dot", legacy="at::native::linalg_multi_dot")
def linalg_multi_dot(tensors: Sequence[Tensor]) -> Tensor:
    return multi_dot_impl(tensors, None)


@native_function(SOURCE, name="linalg_multi_dot_out", legacy="at::native::linalg_multi_dot_out")
def linalg_multi_dot_out(tensors: Sequence[Tensor], out: Tensor) -> Tensor:
    multi_dot_impl(tensors, out)
    return out


# ---- tensorinv / tensorsolve ---------------------------------------------------------------------
@native_function(SOURCE, name="linalg_tensorinv", legacy="at::native::linalg_tensorinv")
def linalg_tensorinv(self: Tensor, ind: int = 2) -> Tensor:
    """The inverse of self seen as a square matrix: self.shape[:ind] by self.shape[ind:]."""
    TORCH_CHECK(ind > 0, "Expected a strictly positive integer for 'ind', but got ", ind)
    shape_ind_end = list(self.sizes())[ind:]
    shape_start_ind = list(self.sizes())[:ind]
    prod_ind_end = math.prod(shape_ind_end)
    prod_start_ind = math.prod(shape_start_ind)
    TORCH_CHECK(
        prod_ind_end == prod_start_ind,
        "Expected self to satisfy the requirement prod(self.shape[ind:]) == "
        "prod(self.shape[:ind]), but got ",
        prod_ind_end,
        " != ",
        prod_start_ind,
    )
    result, info = at.linalg_inv_ex(self.reshape([prod_ind_end, prod_ind_end]))
    _linalg_check_errors(info, "inv", True)
    return result.reshape(shape_ind_end + shape_start_ind)  # type: ignore[no-any-return]


@native_function(SOURCE, name="linalg_tensorinv_out", legacy="at::native::linalg_tensorinv_out")
def linalg_tensorinv_out(self: Tensor, ind: int, out: Tensor) -> Tensor:
    return _copy_into(out, at.linalg_tensorinv(self, ind), "tensorinv")


@native_function(SOURCE, name="linalg_tensorsolve", legacy="at::native::linalg_tensorsolve")
def linalg_tensorsolve(self: Tensor, other: Tensor, dims: Sequence[int] | None = None) -> Tensor:
    """X with tensordot(self, X, X.ndim) = other, as a solve of self flattened to a matrix."""
    ndim = self.dim()
    self_ = self
    if dims is not None:  # move the dims to the end
        dest = list(range(ndim - len(dims), ndim))
        self_ = at.movedim(self_, list(dims), dest)
    result_shape = list(self_.sizes())[other.dim() :]
    result_product = math.prod(result_shape)
    other_product = math.prod(list(other.sizes()))
    TORCH_CHECK(
        result_product == other_product,
        "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
        "prod(self.shape[:other.ndim]), but got ",
        result_product,
        " != ",
        other_product,
    )
    self_ = self_.reshape([result_product, result_product])
    result = at.linalg_solve(self_, other.flatten())
    return result.reshape(result_shape)  # type: ignore[no-any-return]


@native_function(SOURCE, name="linalg_tensorsolve_out", legacy="at::native::linalg_tensorsolve_out")
def linalg_tensorsolve_out(
    self: Tensor, other: Tensor, dims: Sequence[int] | None, out: Tensor
) -> Tensor:
    return _copy_into(out, at.linalg_tensorsolve(self, other, dims), "tensorsolve")


# ---- vander --------------------------------------------------------------------------------------
@native_function("aten/src/ATen/native/TensorFactories.cpp", name="vander")
def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    TORCH_CHECK(x.dim() == 1, "x must be a one-dimensional tensor.")
    n = x.size(0)
    if N is not None:
        n = N
        TORCH_CHECK(n >= 0, "N must be non-negative.")
    # integer inputs come out as int64: cumprod promotes them
    dtype = promoteTypes(x.scalar_type(), ScalarType.Long)
    result = at.empty([x.size(0), n], dtype=dtype, device=x.device())
    if n > 0:
        result.fill_(1)
        if n > 1:
            result.narrow(1, 1, n - 1).copy_(x.unsqueeze(1))
            result.narrow(1, 1, n - 1).copy_(at.cumprod(result.narrow(1, 1, n - 1), 1))
    return result if increasing else at.flip(result, [1])  # type: ignore[no-any-return]


@native_function(SOURCE, name="linalg_vander_symint", legacy="at::native::linalg_vander")
def linalg_vander_symint(x: Tensor, N: int | None = None) -> Tensor:
    t = x.scalar_type()
    TORCH_CHECK(
        t
        in (ScalarType.Float, ScalarType.Double, ScalarType.ComplexFloat, ScalarType.ComplexDouble)
        or isIntegralType(t, False),
        "linalg.vander supports floating point, complex, and integer tensors, but got ",
        t,
    )
    x_ = x.unsqueeze(-1) if x.dim() == 0 else x
    shape = list(x_.sizes())
    n = shape[-1] if N is None else N
    TORCH_CHECK(n > 1, "N must be greater than 1.")
    # the powers 1 .. n-1 as a cumulative product, after a column of ones
    result = at.cumprod(x_.unsqueeze(-1).expand([*shape, n - 1]), -1)
    ones = result.new_ones([*shape, 1])
    return at.cat([ones, result], -1)  # type: ignore[no-any-return]
