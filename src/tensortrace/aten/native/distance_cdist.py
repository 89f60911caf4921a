"""cdist: the p-norm distance between each pair of rows of two (batched) matrices.

Mirrors `cdist`, `cdist_impl`, `_cdist_forward`, `_cdist_backward` and `_euclidean_dist` of
`aten/src/ATen/native/Distance.cpp` (pairwise_distance and cosine_similarity are in
distance.py). cdist is CompositeImplicitAutograd: for p=2 with compute_mode 1 (or the default 0
and more than 25 rows) it computes through `_euclidean_dist` (a matmul of padded inputs, whose
own derivative is `_euclidean_dist_backward`), else through `_cdist_forward`, whose derivative
is `_cdist_backward`. The batch dims broadcast. The loops (cdist_stub, cdist_backward_stub) are
in native/cpu/distance_ops_kernel.py.
"""

from __future__ import annotations

import math

from tensortrace.aten import functions as at
from tensortrace.aten.expand_utils import infer_size
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import isFloatingType

SOURCE = "aten/src/ATen/native/Distance.cpp"
STUBS = "aten/src/ATen/native/Distance.h"

cdist_stub = DECLARE_DISPATCH("cdist_stub", STUBS)
cdist_backward_stub = DECLARE_DISPATCH("cdist_backward_stub", STUBS)


def _check_dims(x1: Tensor, x2: Tensor) -> None:
    TORCH_CHECK(x1.dim() >= 2, "cdist only supports at least 2D tensors, X1 got: ", x1.dim(), "D")
    TORCH_CHECK(x2.dim() >= 2, "cdist only supports at least 2D tensors, X2 got: ", x2.dim(), "D")
    TORCH_CHECK(
        x1.size(-1) == x2.size(-1),
        "X1 and X2 must have the same number of columns. X1: ",
        x1.size(-1),
        " X2: ",
        x2.size(-1),
    )


def _uses_mm(p: float, mode: int, r1: int, r2: int) -> bool:
    """Note [cdist relies on cdist_impl redispatching]: p=2 through matmul."""
    return p == 2 and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25)))


def cdist_impl(x1: Tensor, x2: Tensor, p: float, compute_mode: int | None) -> Tensor:
    TORCH_CHECK(
        isFloatingType(x1.scalar_type()),
        "cdist only supports floating-point dtypes, X1 got: ",
        x1.scalar_type(),
    )
    TORCH_CHECK(
        isFloatingType(x2.scalar_type()),
        "cdist only supports floating-point dtypes, X2 got: ",
        x2.scalar_type(),
    )
    TORCH_CHECK(p >= 0, "cdist only supports non-negative p values")
    c1, c2 = x1.size(-1), x2.size(-1)
    mode = 0 if compute_mode is None else compute_mode
    TORCH_CHECK(0 <= mode <= 2, "possible modes: 0, 1, 2, but was: ", mode)
    r1, r2 = x1.size(-2), x2.size(-2)
    # the batch dims broadcast, then flatten to one
    batch = list(infer_size(list(x1.sizes())[:-2], list(x2.sizes())[:-2]))
    tensor1_expand_size, tensor2_expand_size = batch + [r1, c1], batch + [r2, c2]
    expand_batch_product = math.prod(batch)
    output_shape = batch + [r1, r2]
    if r1 == 0 or r2 == 0 or expand_batch_product == 0:
        return at.empty(output_shape, dtype=x1.scalar_type(), device=x1.device())
    if c1 == 0:
        return at.zeros(output_shape, dtype=x1.scalar_type(), device=x1.device())
    if _uses_mm(p, mode, r1, r2):
        if expand_batch_product == 1:
            dist = at._euclidean_dist(x1, x2)
        else:
            dist = at._euclidean_dist(
                x1.expand(tensor1_expand_size), x2.expand(tensor2_expand_size)
            )
        return dist.view(output_shape)
    result = at.empty(output_shape, dtype=x1.scalar_type(), device=x1.device())
    tensor1 = x1.expand(tensor1_expand_size).contiguous().view([expand_batch_product, r1, c1])
    tensor2 = x2.expand(tensor2_expand_size).contiguous().view([expand_batch_product, r2, c2])
    cdist_stub(x1.device().type_, result, tensor1, tensor2, p)
    return result


@native_function(SOURCE, name="cdist")
def cdist(x1: Tensor, x2: Tensor, p: float = 2, compute_mode: int | None = None) -> Tensor:
    _check_dims(x1, x2)
    r1, r2 = x1.size(-2), x2.size(-2)
    # an empty input always goes through _cdist_forward, to keep the graph connected
    if x1.numel() == 0 or x2.numel() == 0:
        return at._cdist_forward(x1, x2, p, compute_mode)
    mode = 0 if compute_mode is None else compute_mode
    if _uses_mm(p, mode, r1, r2):
        return cdist_impl(x1, x2, p, compute_mode)
    return at._cdist_forward(x1, x2, p, compute_mode)


@native_function(SOURCE, name="_cdist_forward")
def _cdist_forward(x1: Tensor, x2: Tensor, p: float, compute_mode: int | None) -> Tensor:
    _check_dims(x1, x2)
    return cdist_impl(x1, x2, p, compute_mode)


@native_function(SOURCE, name="_cdist_backward")
def _cdist_backward(grad: Tensor, x1: Tensor, x2: Tensor, p: float, cdist: Tensor) -> Tensor:
    c1, r1, r2 = x1.size(-1), x1.size(-2), x2.size(-2)
    batch = list(infer_size(list(x1.sizes())[:-2], list(x2.sizes())[:-2]))
    tensor1_expand_size = batch + [r1, c1]
    tensor2_expand_size = batch + [r2, x2.size(-1)]
    batch_product = math.prod(batch)
    if r1 == 0 or r2 == 0 or c1 == 0 or batch_product == 0:  # empty tensors
        return at.zeros_like(x1)
    if tensor1_expand_size != list(x1.sizes()):
        x1 = x1.expand(tensor1_expand_size)
    if tensor2_expand_size != list(x2.sizes()):
        x2 = x2.expand(tensor2_expand_size)
    x1, x2 = x1.contiguous(), x2.contiguous()
    cdist, grad = cdist.contiguous(), grad.contiguous()
    n, m = x1.size(-2), x1.size(-1)
    grad_x1 = at.empty([batch_product, n, m], dtype=x1.scalar_type(), device=x1.device())
    cdist_backward_stub(x1.device().type_, grad_x1, grad, x1, x2, p, cdist)
    # the broadcast batch dims are summed away by the autograd engine
    return grad_x1.view(list(x1.sizes()))


@native_function(SOURCE, name="_euclidean_dist")
def _euclidean_dist(x1: Tensor, x2: Tensor) -> Tensor:
    """|x1|^2 - 2 x1.x2 + |x2|^2 as one matmul of padded inputs, clamped at 0, then sqrt."""
    x1_norm = x1.pow(2).sum([-1], True)
    x1_pad = at.ones_like(x1_norm, memory_format="contiguous_format")
    x2_norm = x2.pow(2).sum([-1], True)
    x2_pad = at.ones_like(x2_norm, memory_format="contiguous_format")
    x1_ = at.cat([x1.mul(-2), x1_norm, x1_pad], -1)
    x2_ = at.cat([x2, x2_pad, x2_norm], -1)
    result = x1_.matmul(x2_.mT())
    result.clamp_min_(0).sqrt_()
    return result
