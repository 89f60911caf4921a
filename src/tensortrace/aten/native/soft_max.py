"""softmax and log_softmax along one dim, and their backward ops.

Mirrors `aten/src/ATen/native/SoftMax.cpp`: TORCH_META_FUNC(_softmax) / (_log_softmax) declare a
contiguous output of the input's shape; TORCH_IMPL_FUNC(softmax_cpu_out) makes the input
contiguous and calls the last-dim kernel when `dim` is the last dim, the strided one otherwise
(host_softmax); the CompositeImplicitAutograd softmax(input, dim, dtype) converts to `dtype`
first, so `x.softmax(1, dtype=torch.float64)` records aten::to before aten::_softmax. The
backward ops (_softmax_backward_data, _log_softmax_backward_data) are what SoftmaxBackward0 and
LogSoftmaxBackward0 call. The kernels are in native/cpu/soft_max_kernel.py.
"""

from __future__ import annotations

from tensortrace.aten import functions as at
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.tensor_body import Tensor, expect_contiguous
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType
from tensortrace.c10.tensor_options import TensorOptions

SOURCE = "aten/src/ATen/native/SoftMax.cpp"
HEADER = "aten/src/ATen/native/cpu/SoftmaxKernel.h"

softmax_lastdim_kernel = DECLARE_DISPATCH("softmax_lastdim_kernel", HEADER)
log_softmax_lastdim_kernel = DECLARE_DISPATCH("log_softmax_lastdim_kernel", HEADER)
softmax_kernel = DECLARE_DISPATCH("softmax_kernel", HEADER)
log_softmax_kernel = DECLARE_DISPATCH("log_softmax_kernel", HEADER)
softmax_backward_lastdim_kernel = DECLARE_DISPATCH("softmax_backward_lastdim_kernel", HEADER)
log_softmax_backward_lastdim_kernel = DECLARE_DISPATCH(
    "log_softmax_backward_lastdim_kernel", HEADER
)
softmax_backward_kernel = DECLARE_DISPATCH("softmax_backward_kernel", HEADER)
log_softmax_backward_kernel = DECLARE_DISPATCH("log_softmax_backward_kernel", HEADER)


def _meta_softmax(it: TensorIteratorBase, input: Tensor, dim: int, half_to_float: bool) -> None:
    dim_ = maybe_wrap_dim(dim, input.dim())
    dtype = ScalarType.Float if half_to_float else input.scalar_type()
    input_dim = input.dim() if input.dim() > 0 else 1
    TORCH_CHECK(0 <= dim_ < input_dim, "dim must be non-negative and less than input dimensions")
    it.set_output_raw_strided(0, input.sizes(), (), TensorOptions(dtype, input.device()))


@meta_function("_softmax", SOURCE)
def meta_softmax(it: TensorIteratorBase, input: Tensor, dim: int, half_to_float: bool) -> None:
    _meta_softmax(it, input, dim, half_to_float)


@meta_function("_log_softmax", SOURCE)
def meta_log_softmax(it: TensorIteratorBase, input: Tensor, dim: int, half_to_float: bool) -> None:
    _meta_softmax(it, input, dim, half_to_float)


def host_softmax(
    output: Tensor, input_: Tensor, dim: int, log: bool, half_to_float: bool, op: str
) -> None:
    """The shared body of softmax_cpu_out / log_softmax_cpu_out."""
    TORCH_CHECK(not half_to_float, op, " with half to float conversion is not supported on CPU")
    input = expect_contiguous(input_)
    dim_ = maybe_wrap_dim(dim, input.dim())
    if input.dim() == 0:
        input = input.view([1])
    if input.numel() == 0:
        return
    lastdim = dim_ == input.dim() - 1
    if log:
        stub = log_softmax_lastdim_kernel if lastdim else log_softmax_kernel
    else:
        stub = softmax_lastdim_kernel if lastdim else softmax_kernel
    stub(input.device().type_, output, input, dim_)


@impl_function("softmax_cpu_out", SOURCE, legacy="at::native::softmax_cpu")
def softmax_cpu_out(
    it: TensorIteratorBase, input: Tensor, dim: int, half_to_float: bool, output: Tensor
) -> None:
    host_softmax(output, input, dim, False, half_to_float, "softmax")


@impl_function("log_softmax_cpu_out", SOURCE, legacy="at::native::log_softmax_cpu")
def log_softmax_cpu_out(
    it: TensorIteratorBase, input: Tensor, dim: int, half_to_float: bool, output: Tensor
) -> None:
    host_softmax(output, input, dim, True, half_to_float, "softmax")


@native_function(SOURCE)
def softmax(self: Tensor, dim: int, dtype: ScalarType | None = None) -> Tensor:
    converted = self.toType(dtype) if dtype is not None else self
    return at._softmax(converted, dim, False)


@native_function(SOURCE)
def log_softmax(self: Tensor, dim: int, dtype: ScalarType | None = None) -> Tensor:
    converted = self.toType(dtype) if dtype is not None else self
    return at._log_softmax(converted, dim, False)


@native_function(SOURCE)
def _safe_softmax(self: Tensor, dim: int, dtype: ScalarType | None = None) -> Tensor:
    """softmax, with 0 (not NaN) along a row whose inputs are all -inf (a fully masked row of
    attention)."""
    out = at.softmax(self, dim, dtype)
    masked = self.isneginf()
    masked_rows = at.all(masked, dim, True)
    zero = at.scalar_tensor(0.0, dtype=out.scalar_type(), device=out.device())
    return at.where(masked_rows, zero, out)


def _softmax_into(
    out: Tensor, self: Tensor, dim: int, dtype: ScalarType | None, log: bool
) -> Tensor:
    """softmax_out / log_softmax_out: _softmax_out into out, or into a temporary that is
    copied over when out is not contiguous."""
    converted = self.toType(dtype) if dtype is not None else self
    kernel = at._log_softmax if log else at._softmax
    if out.is_contiguous():
        kernel(converted, dim, False, out=out)
        return out
    temp = at.empty(list(out.sizes()), dtype=out.scalar_type(), device=out.device())
    kernel(converted, dim, False, out=temp)
    out.resize_(list(temp.sizes()))
    return out.copy_(temp)


@native_function(SOURCE)
def softmax_out(self: Tensor, dim: int, dtype: ScalarType | None, out: Tensor) -> Tensor:
    return _softmax_into(out, self, dim, dtype, log=False)


@native_function(SOURCE)
def log_softmax_out(self: Tensor, dim: int, dtype: ScalarType | None, out: Tensor) -> Tensor:
    return _softmax_into(out, self, dim, dtype, log=True)


# ---- backward ------------------------------------------------------------------------------------
def _meta_softmax_backward(
    it: TensorIteratorBase,
    grad: Tensor,
    output: Tensor,
    dim: int,
    input_dtype: ScalarType,
    name: str,
) -> None:
    TORCH_CHECK(
        tuple(grad.sizes()) == tuple(output.sizes()), "grad and output must have the same shape"
    )  # checkSameSize
    dim_ = maybe_wrap_dim(dim, grad.dim())
    grad_dim = grad.dim() if grad.dim() > 0 else 1
    TORCH_CHECK(0 <= dim_ < grad_dim, "dim must be non-negative and less than input dimensions")
    it.set_output_raw_strided(0, output.sizes(), (), TensorOptions(input_dtype, grad.device()))


@meta_function("_softmax_backward_data", SOURCE)
def meta_softmax_backward_data(
    it: TensorIteratorBase, grad: Tensor, output: Tensor, dim: int, input_dtype: ScalarType
) -> None:
    _meta_softmax_backward(it, grad, output, dim, input_dtype, "softmax")


@meta_function("_log_softmax_backward_data", SOURCE)
def meta_log_softmax_backward_data(
    it: TensorIteratorBase, grad: Tensor, output: Tensor, dim: int, input_dtype: ScalarType
) -> None:
    _meta_softmax_backward(it, grad, output, dim, input_dtype, "log_softmax")


def host_softmax_backward(
    grad_input: Tensor, grad_: Tensor, output_: Tensor, dim: int, log: bool
) -> None:
    dim_ = maybe_wrap_dim(dim, grad_.dim())
    grad = expect_contiguous(grad_)
    output = expect_contiguous(output_)
    if grad.dim() == 0:
        grad, output = grad.view([1]), output.view([1])
    if output.numel() == 0:
        return
    lastdim = dim_ == grad.dim() - 1
    if log:
        stub = log_softmax_backward_lastdim_kernel if lastdim else log_softmax_backward_kernel
    else:
        stub = softmax_backward_lastdim_kernel if lastdim else softmax_backward_kernel
    stub(grad.device().type_, grad_input, grad, output, dim_)


@impl_function("softmax_backward_cpu_out", SOURCE)
def softmax_backward_cpu_out(
    it: TensorIteratorBase,
    grad: Tensor,
    output: Tensor,
    dim: int,
    input_dtype: ScalarType,
    grad_input: Tensor,
) -> None:
    host_softmax_backward(grad_input, grad, output, dim, False)


@impl_function("log_softmax_backward_cpu_out", SOURCE)
def log_softmax_backward_cpu_out(
    it: TensorIteratorBase,
    grad: Tensor,
    output: Tensor,
    dim: int,
    input_dtype: ScalarType,
    out: Tensor,
) -> None:
    host_softmax_backward(out, grad, output, dim, True)
