"""_weight_norm, _weight_norm_interface (and its backward), _weight_norm_differentiable_backward
and norm_except_dim: w = g * v / ||v||, the norm over every dim but `dim`.

Mirrors `aten/src/ATen/native/WeightNorm.cpp`. _weight_norm (CompositeImplicitAutograd) takes
the fused _weight_norm_interface when `dim` is the first or last dim (weight_norm_cpu: w
contiguous, the norms shaped and strided as g, in float when g is half / bfloat16), else the
composite v * (g / norm_except_dim(v, 2, dim)). The interface's derivative is
_weight_norm_interface_backward, or the differentiable composite while grad mode is on
(create_graph). The loops are those of `aten/src/ATen/native/cpu/WeightNormKernel.cpp`.
"""

from __future__ import annotations

from tensortrace.aten import functions as at
from tensortrace.aten.native.cpu.weight_norm_kernel import (
    weight_norm_backward_kernel,
    weight_norm_kernel,
)
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType

SOURCE = "aten/src/ATen/native/WeightNorm.cpp"


@native_function(SOURCE)
def norm_except_dim(v: Tensor, pow: int = 2, dim: int = 0) -> Tensor:  # noqa: A002 - schema
    # v.norm(pow) is aten::norm in torch; here torch.norm's own route, linalg_vector_norm
    if dim == -1:
        return at.linalg_vector_norm(v, pow)
    if dim == 0:
        output_size = [1] * v.dim()
        output_size[0] = v.size(0)
        flat = v.contiguous().view([v.size(0), -1])
        return at.linalg_vector_norm(flat, pow, [1]).view(output_size)
    if dim == v.dim() - 1:
        output_size = [1] * v.dim()
        output_size[v.dim() - 1] = v.size(v.dim() - 1)
        flat = v.contiguous().view([-1, v.size(v.dim() - 1)])
        return at.linalg_vector_norm(flat, pow, [0]).view(output_size)
    return at.norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


@native_function(SOURCE)
def weight_norm_cpu(v: Tensor, g: Tensor, dim: int) -> tuple[Tensor, Tensor]:
    w = at.empty_like(v, memory_format="contiguous_format")
    # align with cuda behavior, keep norm in 'Float' when g is 'BFloat16'/'Half'
    dtype = (
        ScalarType.Float
        if g.scalar_type() in (ScalarType.BFloat16, ScalarType.Half)
        else g.scalar_type()
    )
    norm = at.empty_strided(list(g.sizes()), list(g.strides()), dtype=dtype, device=g.device())
    if v.numel() == 0:
        norm.zero_()
        return w, norm
    weight_norm_kernel(w, norm, v, g, dim)
    return w, norm


@native_function(SOURCE)
def weight_norm_backward_cpu(
    grad_w: Tensor, saved_v: Tensor, saved_g: Tensor, saved_norms: Tensor, dim: int
) -> tuple[Tensor, Tensor]:
    saved_norm = saved_norms  # the C++ parameter's name; the schema's is saved_norms
    TORCH_CHECK(saved_v.is_contiguous(), "saved_v must be contiguous")
    TORCH_CHECK(saved_g.is_contiguous(), "saved_g must be contiguous")
    TORCH_CHECK(saved_norm.is_contiguous(), "saved_norm must be contiguous")
    grad_v = at.empty_like(saved_v, memory_format="contiguous_format")
    grad_g = at.empty_like(saved_g, memory_format="contiguous_format")
    if saved_v.numel() == 0:
        grad_g.zero_()
        return grad_v, grad_g
    weight_norm_backward_kernel(grad_v, grad_g, grad_w, saved_v, saved_g, saved_norm, dim)
    return grad_v, grad_g


@native_function(SOURCE, name="_weight_norm", legacy="at::native::_weight_norm")
def _weight_norm(v: Tensor, g: Tensor, dim: int = 0) -> Tensor:
    # torch's v_in / g_in are the schema's v / g
    TORCH_CHECK(
        v.device() == g.device(),
        "weight_norm: expected v_in and g_in to be on the same device, but v_in is on ",
        v.device(),
        " and g_in is on ",
        g.device(),
    )
    v = v.contiguous()
    g = g.contiguous()
    if dim == 0 or dim == v.dim() - 1:
        # the fused kernel; its derivative is WeightNormInterfaceBackward0
        return at._weight_norm_interface(v, g, dim)[0]
    return v.mul(g.div(at.norm_except_dim(v, 2, dim)))


@native_function(
    SOURCE,
    name="_weight_norm_differentiable_backward",
    legacy="at::native::_weight_norm_differentiable_backward",
)
def _weight_norm_differentiable_backward(
    grad_w: Tensor, saved_v: Tensor, saved_g: Tensor, saved_norms: Tensor, dim: int
) -> tuple[Tensor, Tensor]:
    """The backward in differentiable ops, for a create_graph backward."""
    TORCH_CHECK(grad_w.is_contiguous(), "grad_w must be contiguous")
    TORCH_CHECK(saved_v.is_contiguous(), "saved_v must be contiguous")
    TORCH_CHECK(saved_g.is_contiguous(), "saved_g must be contiguous")
    TORCH_CHECK(saved_norms.is_contiguous(), "saved_norms must be contiguous")
    last_dim = saved_v.dim() - 1
    last_size = saved_v.size(last_dim)
    TORCH_CHECK(dim == 0 or dim == last_dim, "Expected dim to be the first or last dimension")
    norms = saved_norms.to(saved_g.scalar_type())  # Float norms for a half g
    bcast_size = [1] * saved_v.dim()
    if dim == 0:
        bcast_size[0] = saved_v.size(0)
        per_dim_sums = grad_w.mul(saved_v).view([saved_v.size(0), -1]).sum([1]).view(bcast_size)
    else:
        bcast_size[last_dim] = last_size
        per_dim_sums = grad_w.mul(saved_v).view([-1, last_size]).sum([0]).view(bcast_size)
    grad_v = saved_g.div(norms).mul(grad_w.sub(saved_v.mul(per_dim_sums.div(norms.mul(norms)))))
    grad_g = per_dim_sums.div(norms)
    return grad_v, grad_g
