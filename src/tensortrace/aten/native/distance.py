"""pairwise_distance and cosine_similarity.

Mirrors `aten/src/ATen/native/Distance.cpp`, both composites: pairwise_distance is the p-norm of
x1 - x2 + eps over the innermost dim of the broadcast shape (torch calls at::norm, whose CPU
implementation is linalg_vector_norm: tensortrace declares no aten::norm and calls
linalg_vector_norm directly); cosine_similarity divides each input by its 2-norm along dim,
clamped (without grad) to eps, and sums the product of the two along dim, which keeps the result
within [-1, 1].
"""

from __future__ import annotations

from tensortrace.aten import functions as at
from tensortrace.aten.expand_utils import infer_size
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.autograd_state import autograd_state
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType, isFloatingType, isIntegralType

SOURCE = "aten/src/ATen/native/Distance.cpp"


@native_function(SOURCE, name="pairwise_distance")
def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2, eps: float = 1e-06, keepdim: bool = False
) -> Tensor:
    # either input may be broadcast: the innermost dim is that of the larger rank
    innermost_dim = max(x1.dim(), x2.dim()) - 1
    return at.linalg_vector_norm(x1.sub(x2).add(eps), p, [innermost_dim], keepdim)


@native_function(SOURCE, name="cosine_similarity")
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-08) -> Tensor:
    x1_, x2_ = x1, x2
    common_dtype = at.result_type(x1_, x2_)
    TORCH_CHECK(
        isFloatingType(common_dtype),
        "expected common dtype to be floating point, yet common dtype is ",
        common_dtype,
    )
    TORCH_CHECK(eps >= 0, "eps must be non-negative, got: ", eps)
    # integral (and bool) inputs are accepted, but vector_norm does not take them
    x1_t = x1_.to(common_dtype) if isIntegralType(x1_.scalar_type(), True) else x1_
    x2_t = x2_.to(common_dtype) if isIntegralType(x2_.scalar_type(), True) else x2_
    x1, x2 = x1_t, x2_t
    if list(x1.sizes()) != list(x2.sizes()):  # expand_outplace (ExpandUtils.h)
        size = list(infer_size(list(x1.sizes()), list(x2.sizes())))
        x1, x2 = x1.expand(size), x2.expand(size)
    # divide each by its norm first (cloned: the norms are clamped in place)
    x1_norm = at.linalg_vector_norm(x1, 2, [dim], True).clone()
    x2_norm = at.linalg_vector_norm(x2, 2, [dim], True).clone()
    reduced = common_dtype in (ScalarType.Half, ScalarType.BFloat16)
    eps_tensor = at.scalar_tensor(
        eps, dtype=ScalarType.Float if reduced else common_dtype, device=x1_norm.device()
    )
    grad_mode = autograd_state.grad_mode  # at::NoGradGuard
    autograd_state.grad_mode = False
    try:
        x1_norm.clamp_min_(eps_tensor)
        x2_norm.clamp_min_(eps_tensor)
    finally:
        autograd_state.grad_mode = grad_mode
    return x1.div(x1_norm).mul(x2.div(x2_norm)).sum([dim])
