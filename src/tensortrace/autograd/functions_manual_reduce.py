"""The backward helpers of the statistics reductions: logsumexp, nansum, var_mean / std_mean,
sort (and the ops that select through it), gather and masked_select.

Mirrors those functions of `torch/csrc/autograd/FunctionsManual.cpp` (logsumexp_backward,
nansum_backward, var_mean_backward, std_mean_backward, gather_backward, masked_select_backward,
value_selecting_reduction_backward). functions_manual.py imports them into the formulas'
namespace; they call its own helpers (sum_backward, mean_backward, var_backward, std_backward)
lazily, since that module imports this one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tensortrace.aten import functions as at
from tensortrace.aten.expand_utils import infer_size
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.autograd.functions_manual_views import unsqueeze_multiple


def _defined(t: Any) -> bool:
    return t is not None and t.defined()


def logsumexp_backward(
    grad: Tensor, self: Tensor, result: Tensor, dim: Sequence[int], keepdim: bool
) -> Tensor:
    """grad * exp(self - logsumexp(self)): the softmax of self, scaled by grad."""
    if not keepdim and self.dim() != 0:
        grad = unsqueeze_multiple(grad, dim, self.dim())
        result = unsqueeze_multiple(result, dim, self.dim())
    return grad.mul(self.sub(result).exp())


def nansum_backward(grad: Tensor, self: Tensor, dims: Any, keepdim: bool) -> Tensor:
    """sum's gradient, zero where self is NaN (those elements were not summed)."""
    from tensortrace.autograd.functions_manual import sum_backward

    return sum_backward(grad, self.sizes(), dims, keepdim).mul(self.isnan().logical_not())


def var_mean_backward(
    gvar: Any, gmean: Any, self: Tensor, dim: Any, correction: Any, keepdim: bool
) -> Any:
    from tensortrace.autograd.functions_manual import mean_backward, var_backward

    gself = var_backward(gvar, self, dim, correction, keepdim) if _defined(gvar) else None
    if _defined(gmean):
        dims = [] if dim is None else dim
        aux = mean_backward(gmean, self.sizes(), dims, self.numel(), keepdim)
        gself = aux if gself is None else gself.add(aux)
    return gself


def std_mean_backward(
    gstd: Any, gmean: Any, self: Tensor, std: Tensor, dim: Any, correction: Any, keepdim: bool
) -> Any:
    from tensortrace.autograd.functions_manual import mean_backward, std_backward

    gself = std_backward(std, gstd, self, dim, correction, keepdim) if _defined(gstd) else None
    if _defined(gmean):
        dims = [] if dim is None else dim
        aux = mean_backward(gmean, self.sizes(), dims, self.numel(), keepdim)
        gself = aux if gself is None else gself.add(aux)
    return gself


def gather_backward(
    grad: Tensor, self: Tensor, dim: int, index: Tensor, sparse_grad: bool
) -> Tensor:
    """Each gathered gradient added back where it was read from (dense: no sparse tensors)."""
    result = grad.new_zeros(list(self.sizes()))
    result.scatter_add_(dim, index, grad)
    return result


def scatter_selected_backward(
    grad: Tensor, dim: int, indices: Tensor, sizes: Sequence[int]
) -> Tensor:
    """value_selecting_reduction_backward with keepdim=True over several selected positions
    per slice (sort's indices): zeros(sizes).scatter(dim, indices, grad)."""
    dim = maybe_wrap_dim(dim, len(sizes))
    return at.zeros(list(sizes), dtype=grad.scalar_type(), device=grad.device()).scatter(
        dim, indices, grad
    )


def masked_select_backward(grad: Tensor, input: Tensor, mask: Tensor) -> Tensor:
    """The selected gradients scattered back into zeros of the broadcast shape."""
    shape = infer_size(list(input.sizes()), list(mask.sizes()))
    result = at.zeros_like(input.expand(list(shape)), memory_format="contiguous_format")
    result.masked_scatter_(mask, grad)
    return result


def renorm_backward(grad: Tensor, self: Tensor, p: Any, dim: int, maxnorm: Any) -> Tensor:
    """Where a slice was rescaled by f = maxnorm / (norm + 1e-7): f * grad, less the part that
    flows through the norm, f / (norm + 1e-7) * norm_backward(sum(self * grad))."""
    from tensortrace.aten.native.normalization import acc_type_cuda
    from tensortrace.autograd.functions_manual_linalg import norm_backward

    dim = maybe_wrap_dim(dim, self.dim())
    reduce_dims = [d for d in range(self.dim()) if d != dim]
    acc_type = acc_type_cuda(self.scalar_type())
    norm = at.linalg_vector_norm(self, p, reduce_dims, True, dtype=acc_type)
    grad_output = self.mul(grad).sum(reduce_dims, True, dtype=acc_type)
    nb = norm_backward(grad_output, self, p, norm, reduce_dims, True)
    invnorm = norm.add(1e-7).reciprocal()
    factor = invnorm.mul(maxnorm)
    return at.where(norm.gt(maxnorm), factor.mul(grad).sub(factor.mul(invnorm).mul(nb)), grad)


def _euclidean_dist_backward(
    grad: Tensor, x1: Tensor, x2: Tensor, res: Tensor
) -> tuple[Tensor | None, Tensor | None]:
    """cdist's p=2 matmul path: ratio = grad / dist (0 where the distance is 0)."""
    if grad is None or not grad.defined():
        return None, None
    ratio = grad.div(res)
    ratio.masked_fill_(res.eq(0), 0)
    return (
        x1.mul(ratio.sum([-1], True)).sub(ratio.matmul(x2)),
        x2.mul(ratio.sum([-2], False).unsqueeze(-1)).sub(ratio.mT().matmul(x1)),
    )
