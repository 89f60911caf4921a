"""The helpers derivatives.yaml's formulas call, with PyTorch's names.

Mirrors `torch/csrc/autograd/FunctionsManual.cpp` (mul_tensor_backward, sum_backward,
mm_mat1_backward, select_backward ...); `at::sum_to` comes from aten/expand_utils.py. Every
helper is written with at:: ops (through the Dispatcher), so a backward pass is traced op by op,
and with grad mode on (create_graph=True) the ops record a graph of their own: double backward.
The formulas conjugate as torch's do (the gradient convention for complex inputs is the
conjugate Wirtinger derivative); on a real tensor conj() returns self without dispatching, as
TensorBody.h's inline Tensor::conj() does, so real backward passes trace no conj at all.

The helpers of the view and join ops are in functions_manual_views.py, torch.nn's in
functions_manual_nn.py, the statistics reductions' in functions_manual_reduce.py and the
complex ones in functions_manual_complex.py (FunctionsManual.cpp
split by op family); this module imports them, so the formulas find every helper here.

Where torch calls an aten op that tensortrace does not declare (select_backward, scatter, flip,
ger ...), the helper computes the same values with ops it has; tanh_backward, sigmoid_backward
and threshold_backward are aten ops here too (aten/native/activation.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from tensortrace.aten import functions as at
from tensortrace.aten.expand_utils import sum_to  # noqa: F401 - for the formulas
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.autograd.functions_manual_complex import (  # noqa: F401 - for the formulas
    angle_backward,
    fft_c2r_backward,
    fft_r2c_backward,
    log1p_backward,
    polar_backward,
    sgn_backward,
    sinc_backward,
)
from tensortrace.autograd.functions_manual_cumprod import (  # noqa: F401 - for the formulas
    cumprod_backward,
    restore_reduced_dims,
    scale_grad_by_count,
)
from tensortrace.autograd.functions_manual_decompositions import (  # noqa: F401 - for the formulas
    cholesky_backward,
    cholesky_inverse_backward,
    cholesky_solve_backward,
    linalg_eig_backward,
    linalg_lu_backward,
    linalg_lu_solve_LU,
    linalg_qr_backward,
    linalg_solve_triangular_backward,
    linalg_svd_backward,
    lu_factor_ex_backward,
    lu_unpack_backward,
    svd_backward,
    triangular_solve_backward,
)
from tensortrace.autograd.functions_manual_forward import (  # noqa: F401 - forward formulas
    amaxamin_jvp,
    apply_loss_reduction,
    batch_norm_jvp,
    cat_jvp,
    convolution_jvp,
    copy_jvp,
    cumprod_jvp,
    evenly_read_jvp,
    gather_with_keepdimed_indices,
    glu_jvp,
    group_norm_jvp,
    layer_norm_jvp,
    linalg_vector_norm_jvp,
    logsumexp_jvp,
    norm_jvp,
    stack_jvp,
)
from tensortrace.autograd.functions_manual_householder import (  # noqa: F401 - for the formulas
    householder_product_backward,
)
from tensortrace.autograd.functions_manual_linalg import (  # noqa: F401 - for the formulas
    linalg_solve_backward,
    linalg_vector_norm_backward,
    norm_backward,
)
from tensortrace.autograd.functions_manual_linalg_functions import (  # noqa: F401 - formulas
    linalg_det_backward,
    linalg_lstsq_backward,
    linalg_matrix_exp_differential,
    pinv_backward,
    slogdet_backward,
)
from tensortrace.autograd.functions_manual_nn import (  # noqa: F401 - for the formulas
    _trilinear_backward,
    binary_cross_entropy_target_backward,
    binary_cross_entropy_with_logits_backward,
    binary_cross_entropy_with_logits_target_backward,
    constant_pad_nd_backward,
    conv_bias_sizes,
    elu_double_backward,
    embedding_dense_double_backward_symint,
    infinitely_differentiable_mish_backward,
    infinitely_differentiable_silu_backward,
    max_pool_double_backward,
    mse_loss_double_backward,
    soft_margin_loss_double_backward,
    soft_margin_loss_double_backward_grad_output,
    softmax_double_backward,
)
from tensortrace.autograd.functions_manual_reduce import (  # noqa: F401 - for the formulas
    _euclidean_dist_backward,
    gather_backward,
    logsumexp_backward,
    masked_select_backward,
    nansum_backward,
    renorm_backward,
    scatter_selected_backward,
    std_mean_backward,
    var_mean_backward,
)
from tensortrace.autograd.functions_manual_special import (  # noqa: F401 - for the formulas
    i1_backward,
    i1e_backward,
    infinitely_differentiable_logit_backward,
    mvlgamma_backward,
)
from tensortrace.autograd.functions_manual_views import (  # noqa: F401 - for the formulas
    _wrap_dims,
    as_strided_backward,
    cat_tensors_backward,
    diagonal_backward,
    index_backward,
    negate_integers,
    permute_backwards,
    repeat_backward,
    reverse_integers,
    select_backward,
    slice_backward_wrapper,
    split_backward,
    split_with_sizes_backward,
    stack_tensors_backward,
    unbind_backward,
    unsqueeze_multiple,
    unsqueeze_to,
)
from tensortrace.autograd.grad_mode import is_grad_enabled  # noqa: F401 - GradMode::is_enabled()
from tensortrace.c10.scalar_type import ScalarType, isComplexType


# ---- small helpers -------------------------------------------------------------------------------
def handle_r_to_c(self_st: Any, gradient_result: Tensor) -> Tensor:
    """A real input of an op with a complex result gets the real part of its gradient."""
    if not isComplexType(self_st) and gradient_result.is_complex():
        return at.real(gradient_result)
    return gradient_result


def conj(x: Any) -> Any:
    """Tensor::conj() (no dispatch for a real tensor) or Scalar::conj()."""
    if isinstance(x, Tensor):
        return x.conj() if x.is_complex() else x
    return x.conjugate() if isinstance(x, complex) else x


def maybe_multiply(t: Tensor, s: Any) -> Tensor:
    return t if s == 1 else t.mul(s)


def not_implemented(name: str) -> Tensor:
    """FunctionsManual.cpp: TORCH_CHECK_NOT_IMPLEMENTED, so a NotImplementedError."""
    raise NotImplementedError(f"the derivative for '{name}' is not implemented.")


def real_only(name: str, self: Tensor, gradient: Any) -> Any:
    """A formula written here for real inputs only: a complex input gets an error, never a
    silently wrong gradient (Python evaluates the gradient first; it is discarded)."""
    if isinstance(self, Tensor) and self.is_complex():
        raise RuntimeError(
            f"tensortrace: the derivative of '{name}' for complex inputs is not implemented"
        )
    return gradient


def index_select_backward_symint(
    grad: Tensor, input_sizes: Sequence[int], dim: int, index: Tensor
) -> Tensor:
    dim = maybe_wrap_dim(dim, len(input_sizes))
    if grad.dim() == 0:
        grad = grad.unsqueeze(0)  # torch: grad.unsqueeze_(0) on its own copy of the handle
    index_ = index.unsqueeze(0) if index.dim() == 0 else index
    zeros = at.zeros(list(input_sizes), dtype=grad.scalar_type(), device=grad.device())
    return zeros.index_add_(dim, index_, grad)  # type: ignore[no-any-return]


def _scalar_zero(like: Tensor) -> Tensor:
    return at.scalar_tensor(0.0, dtype=like.scalar_type(), device=like.device())


# ---- elementwise ---------------------------------------------------------------------------------
def mul_tensor_backward(grad: Tensor, other: Any, self_st: Any) -> Tensor:
    return handle_r_to_c(self_st, grad.mul(conj(other)))


def div_tensor_self_backward(
    grad: Tensor, other: Any, self_st: ScalarType, rounding_mode: str | None = None
) -> Tensor:
    if rounding_mode is not None:
        return at.zeros_like(grad, dtype=self_st)
    return handle_r_to_c(self_st, grad.div(conj(other)))


def div_tensor_other_backward(
    grad: Tensor, self: Tensor, other: Tensor, rounding_mode: str | None = None
) -> Tensor:
    if rounding_mode is not None:
        return at.zeros_like(grad, dtype=other.scalar_type())
    return handle_r_to_c(other.scalar_type(), grad.neg().mul(conj(self.div(other).div(other))))


def abs_backward(grad: Tensor, self: Tensor) -> Tensor:
    """grad * self.sgn() (for real tensors written with where, as it always was here)."""
    if self.is_complex():
        return grad.mul(self.sgn())
    sgn = at.where(self.gt(0), 1.0, at.where(self.lt(0), -1.0, 0.0))
    return grad.mul(sgn)


def pow_backward(grad: Tensor, self: Tensor, exponent: Any) -> Tensor:
    if exponent == 0:
        return at.zeros_like(self)
    if isinstance(exponent, complex) or self.is_complex():
        return grad.mul(conj(self.pow(exponent - 1).mul(exponent)))
    exp = float(exponent)
    return grad.mul(self.pow(exp - 1).mul(exp))


def pow_backward_self(grad: Tensor, self: Tensor, exponent: Tensor) -> Tensor:
    return at.where(
        exponent.eq(0.0),
        _scalar_zero(grad),
        grad.mul(conj(exponent.mul(self.pow(exponent.sub(1))))),
    )


def pow_backward_exponent(grad: Tensor, self: Any, exponent: Tensor, result: Tensor) -> Tensor:
    if isinstance(self, Tensor):
        cond = at.logical_and(self.eq(0), exponent.ge(0))
        promoted = at.result_type(self, exponent)
        self_ = self.to(promoted)
        return grad.mul(conj(at.where(cond, _scalar_zero(grad), result.mul(self_.log()))))
    base = float(self)
    if base == 0.0:
        return grad.mul(
            at.where(
                exponent.ge(0),
                _scalar_zero(grad),
                result.mul(math.log(base) if base > 0 else -math.inf),
            )
        )
    return grad.mul(result.mul(math.log(base) if base > 0 else math.nan))


def tanh_backward(grad: Tensor, result: Tensor) -> Tensor:
    """aten::tanh_backward: grad * (1 - result^2) (conjugated for complex results)."""
    return at.tanh_backward(grad, result)


def sigmoid_backward(grad: Tensor, result: Tensor) -> Tensor:
    """aten::sigmoid_backward: grad * (1 - result) * result (conjugated for complex)."""
    return at.sigmoid_backward(grad, result)


def threshold_backward(grad: Tensor, self: Tensor, threshold: Any) -> Tensor:
    """aten::threshold_backward: 0 where self <= threshold, else grad."""
    return at.threshold_backward(grad, self, threshold)


def clamp_backward(grad: Tensor, self: Tensor, min: Any, max: Any) -> Tensor:
    zero = _scalar_zero(grad)
    if min is not None and max is not None:
        return at.where(at.logical_and(self.ge(min), self.le(max)), grad, zero)
    if min is not None:
        return at.where(self.ge(min), grad, zero)
    if max is not None:
        return at.where(self.le(max), grad, zero)
    return grad


def clamp_backward_min_max(
    grad: Tensor, self: Tensor, min: Any, max: Any, mask: Sequence[bool]
) -> tuple[Tensor | None, Tensor | None]:
    zero = _scalar_zero(grad)
    gmin = gmax = None
    if max is None:
        if mask[0]:
            gmin = at.where(self.lt(min), grad, zero)
    elif min is None:
        if mask[1]:
            gmax = at.where(self.gt(max), grad, zero)
    else:
        if mask[0]:
            gmin = at.where(at.logical_and(self.lt(min), min.lt(max)), grad, zero)
        if mask[1]:
            gmax = at.where(at.logical_or(self.gt(max), max.lt(min)), grad, zero)
    return gmin, gmax


def masked_fill_backward(grad: Tensor, mask: Tensor) -> Tensor:
    return at.where(mask, grad, 0.0).sum()


def _to_copy_backward(grad: Tensor, self_scalar_type: ScalarType) -> Tensor:
    if not isComplexType(self_scalar_type) and grad.is_complex():
        grad = at.real(grad)  # a real -> complex copy: no "discards the imaginary part" warning
    return grad.to(self_scalar_type)


# ---- reductions ----------------------------------------------------------------------------------
def sum_backward(grad: Tensor, sizes: Sequence[int], dims: Any, keepdim: bool) -> Tensor:
    if not keepdim and len(sizes) > 0:
        wrapped = _wrap_dims(dims, len(sizes))
        if len(wrapped) == 1:
            return grad.unsqueeze(wrapped[0]).expand(list(sizes))
        res = grad
        for i in range(len(sizes)):
            if i in wrapped:
                res = res.unsqueeze(i)
        return res.expand(list(sizes))
    return grad.expand(list(sizes))


def _safe_size(sizes: Sequence[int], dims: Sequence[int]) -> int:
    n = 1
    for d in _wrap_dims(dims, len(sizes)):
        n *= sizes[d] if len(sizes) else 1
    return n


def mean_backward(
    grad: Tensor, sizes: Sequence[int], dims: Any, numel: int, keepdim: bool
) -> Tensor:
    is_all = dims is None or len(dims) == 0
    n = numel if is_all else _safe_size(sizes, dims)
    return sum_backward(grad, sizes, dims, keepdim).div(n)


def var_backward(grad: Tensor, self: Tensor, dims: Any, correction: Any, keepdim: bool) -> Tensor:
    corr = 1.0 if correction is None else float(correction)
    if self.dim() == 0 or dims is None:
        dof = self.numel() - corr
        if dof <= 0:
            return grad.mul(math.nan)
        return grad.mul(2.0 / dof).mul(self.sub(self.mean()))
    if not keepdim and self.dim() > 1:
        grad = unsqueeze_multiple(grad, dims, self.dim())
    rnumel = _safe_size(self.sizes(), dims)
    return grad.mul(2.0 / (rnumel - corr)).mul(self.sub(self.mean(list(dims), True)))


def std_backward(
    result: Tensor, grad: Tensor, self: Tensor, dims: Any, correction: Any, keepdim: bool
) -> Tensor:
    grad_var = grad.div(result.mul(2)).masked_fill_(result.eq(0), 0)
    return var_backward(grad_var, self, dims, correction, keepdim)


def evenly_distribute_backward(grad: Tensor, input: Tensor, value: Tensor) -> Tensor:
    mask = input.eq(value)
    return mask.mul(grad.div(mask.sum()))


def _one_hot_along(indices: Tensor, dim: int, sizes: Sequence[int]) -> Tensor:
    """indices (keepdim shape) == arange along `dim`: the mask scatter would write through."""
    shape = [1] * len(sizes)
    shape[dim] = sizes[dim]
    positions = at.arange(sizes[dim], device=indices.device()).view(shape)
    return positions.eq(indices)


def value_selecting_reduction_backward(
    grad: Tensor, dim: int, indices: Tensor, sizes: Sequence[int], keepdim: bool
) -> Tensor:
    """zeros(sizes).scatter(dim, indices, grad), written as a where over a one-hot mask
    (sort's indices select every position of a slice: a real scatter)."""
    if len(sizes) == 0:
        return grad
    dim = maybe_wrap_dim(dim, len(sizes))
    if keepdim and indices.size(dim) != 1:
        return scatter_selected_backward(grad, dim, indices, sizes)
    if not keepdim:
        grad = grad.unsqueeze(dim)
        indices = indices.unsqueeze(dim)
    return at.where(_one_hot_along(indices, dim, sizes), grad, _scalar_zero(grad))


def prod_backward(
    grad: Tensor, input: Tensor, result: Tensor, dim: int | None = None, keepdim: bool = False
) -> Tensor:
    """prod's gradient, the product of the other elements, also where some are zero."""
    if input.dim() == 0:
        return grad
    if dim is None:
        zeros = input.eq(0)
        count = zeros.sum()
        others = at.where(zeros, 1.0, input).prod()
        if int(count.item()) == 0:
            return grad.mul(result.div(input))
        if int(count.item()) > 1:
            return at.zeros_like(input)
        return grad.mul(at.where(zeros, others, 0.0))
    dim = maybe_wrap_dim(dim, input.dim())
    if not keepdim:
        grad = grad.unsqueeze(dim)
        result = result.unsqueeze(dim)
    zeros = input.eq(0)
    count = zeros.sum([dim], True)
    others = at.where(zeros, 1.0, input).prod(dim, True)
    no_zero = result.div(input)
    one_zero = at.where(zeros, others, 0.0)
    picked = at.where(count.eq(0), no_zero, at.where(count.eq(1), one_zero, 0.0))
    return grad.mul(picked)


def cumsum_backward(grad: Tensor, dim: int) -> Tensor:
    """The reversed cumulative sum: total - cumsum + grad (torch flips; there is no flip)."""
    if grad.numel() <= 1 or grad.size(maybe_wrap_dim(dim, grad.dim())) == 1:
        return grad
    return grad.sum([dim], True).sub(grad.cumsum(dim)).add(grad)


# ---- matmul family -------------------------------------------------------------------------------
def mm_mat1_backward(
    grad: Tensor,
    mat2: Tensor,
    sizes: Sequence[int],
    strides: Sequence[int],
    layout: Any,
    alpha: Any,
) -> Tensor:
    if strides[0] == 1 and strides[1] == sizes[0]:  # mat1 column-major: answer column-major
        return maybe_multiply(conj(mat2).mm(grad.t()).t(), conj(alpha))
    return maybe_multiply(grad.mm(conj(mat2.t())), conj(alpha))


def mm_mat2_backward(
    grad: Tensor,
    mat1: Tensor,
    sizes: Sequence[int],
    strides: Sequence[int],
    layout: Any,
    alpha: Any,
) -> Tensor:
    if strides[0] == 1 and strides[1] == sizes[0]:
        return maybe_multiply(grad.t().mm(conj(mat1)).t(), conj(alpha))
    return maybe_multiply(conj(mat1.t()).mm(grad), conj(alpha))


def ger(a: Tensor, b: Tensor) -> Tensor:
    """The outer product a ⊗ b (at::ger), as a broadcast multiply."""
    return a.unsqueeze(1).mul(b.unsqueeze(0))


# The backward ops these formulas name now exist as operators (native/activation.py), so the
# formulas call them, as torch's do: ReluBackward0 records aten::threshold_backward, as
# torch.profiler shows.
threshold_backward = at.threshold_backward  # noqa: F811
sigmoid_backward = at.sigmoid_backward  # noqa: F811
tanh_backward = at.tanh_backward  # noqa: F811
log_sigmoid_backward = at.log_sigmoid_backward
