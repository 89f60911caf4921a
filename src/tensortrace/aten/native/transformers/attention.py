"""scaled_dot_product_attention and its math reference.

Mirrors `aten/src/ATen/native/transformers/attention.cpp` (with the helpers of
`sdp_utils_cpp.h`). scaled_dot_product_attention validates its inputs (validate_sdpa_input),
turns a boolean mask into an additive one (True: 0, False: -inf) and calls
_scaled_dot_product_attention_math, the CompositeImplicitAutograd reference every backend is
tested against: query and key are each scaled by sqrt(scale) (scale defaults to 1/sqrt(E)),
is_causal builds a lower-triangular mask, attn = matmul(q, k^T) plus the mask, _safe_softmax
(a row masked out entirely gives zeros, not NaN), dropout, then matmul with value. Its gradient
is the chain of those ops' derivatives.

torch's CPU dispatch asks _fused_sdp_choice first and takes the fused flash-attention kernel
when the inputs are 4-D with one head dim and no dropout; tensortrace has no fused kernels, so it
always takes the math path. The fused kernel sums in another order (values agree to float
rounding) and does not raise for attn_mask with is_causal; the math path, and torch wherever it
takes it (3-D inputs, dropout, a value head dim of its own), raises.
"""

from __future__ import annotations

import math

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType

SOURCE = "aten/src/ATen/native/transformers/attention.cpp"


def validate_sdpa_input(
    query_: Tensor, key: Tensor, value: Tensor, attn_mask_: Tensor | None
) -> None:
    TORCH_CHECK(
        query_.dtype() == key.dtype() and query_.dtype() == value.dtype(),
        "Expected query, key, and value to have the same dtype, but got query.dtype: ",
        query_.dtype().name,
        " key.dtype: ",
        key.dtype().name,
        " and value.dtype: ",
        value.dtype().name,
        " instead.",
    )
    TORCH_CHECK(
        query_.device() == key.device() and query_.device() == value.device(),
        "Expected query, key, and value to have the same device type, but got query.device: ",
        query_.device(),
        " key.device: ",
        key.device(),
        " and value.device: ",
        value.device(),
        " instead.",
    )
    TORCH_CHECK(
        query_.dim() >= 2 and key.dim() >= 2 and value.dim() >= 2,
        "Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: ",
        query_.dim(),
        " key.dim: ",
        key.dim(),
        " and value.dim: ",
        value.dim(),
        " instead.",
    )
    if attn_mask_ is not None:
        mask_dtype = attn_mask_.scalar_type()
        TORCH_CHECK(
            mask_dtype in (ScalarType.Bool, ScalarType.Float, query_.scalar_type()),
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
            "attn_mask.dtype: ",
            attn_mask_.dtype().name,
            " and  query.dtype: ",
            query_.dtype().name,
            " instead.",
        )


def convert_boolean_attn_mask(attn_mask: Tensor | None, dtype: ScalarType) -> Tensor | None:
    """A boolean mask (True: attend) as the additive one the math takes: 0 or -inf."""
    if attn_mask is None:
        return None
    if attn_mask.scalar_type() == ScalarType.Bool:
        neg_inf = at.scalar_tensor(-math.inf, dtype=dtype, device=attn_mask.device())
        return at.where(attn_mask, 0.0, neg_inf)
    return attn_mask  # already additive


def calculate_scale(query: Tensor, scale: float | None) -> float:
    """sdp::calculate_scale: the given scale, or 1/sqrt(E) of the query's last dim."""
    return scale if scale is not None else 1.0 / math.sqrt(query.size(-1))


def pre_process_group_query_attention_input(
    query: Tensor, key: Tensor, value: Tensor, enable_gqa: bool
) -> tuple[Tensor, Tensor]:
    """Grouped-query attention: key and value heads repeated up to the query's head count."""
    if not enable_gqa:
        return key, value
    q_num_heads, k_num_heads, v_num_heads = query.size(-3), key.size(-3), value.size(-3)
    all_equal = q_num_heads == k_num_heads == v_num_heads
    key_divisible = q_num_heads % k_num_heads == 0
    value_divisible = q_num_heads % v_num_heads == 0
    TORCH_CHECK(
        all_equal or (key_divisible and value_divisible),
        "Number of heads in key and value must divide the number of heads in ",
    )
    if all_equal:
        return key, value
    key_repeated = key.repeat_interleave(q_num_heads // k_num_heads, -3)
    value_repeated = value.repeat_interleave(q_num_heads // v_num_heads, -3)
    return key_repeated, value_repeated


@native_function(SOURCE, name="scaled_dot_product_attention")
def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Tensor:
    validate_sdpa_input(query, key, value, attn_mask)
    # the backend torch's _fused_sdp_choice_stub would pick is always SDPBackend::math here
    additive_mask = convert_boolean_attn_mask(attn_mask, query.scalar_type())
    result: tuple[Tensor, Tensor] = at._scaled_dot_product_attention_math(
        query,
        key,
        value,
        additive_mask,
        dropout_p,
        is_causal,
        None,
        scale=scale,
        enable_gqa=enable_gqa,
    )
    return result[0]


@native_function(SOURCE, name="_scaled_dot_product_attention_math")
def _scaled_dot_product_attention_math(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    dropout_mask: Tensor | None = None,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> tuple[Tensor, Tensor]:
    origin_dtype = query.scalar_type()
    # keep half-precision inputs in float for accuracy
    low_precision = (ScalarType.Half, ScalarType.BFloat16)
    query_acc = query.to(ScalarType.Float) if origin_dtype in low_precision else query
    key_acc = key.to(ScalarType.Float) if key.scalar_type() in low_precision else key
    value_acc = value.to(ScalarType.Float) if value.scalar_type() in low_precision else value
    # scale q and k before the matmul, each by sqrt(scale), for stability
    is_negative_scaling = scale is not None and scale < 0.0
    positive_scale = abs(scale) if scale is not None else None
    scaling_factor = math.sqrt(calculate_scale(query_acc, positive_scale))
    query = query_acc.mul(0.0 - scaling_factor if is_negative_scaling else scaling_factor)
    if is_causal:
        TORCH_CHECK(
            attn_mask is None,
            "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
            "is_causal=True",
        )
        # lower-triangular elements take part in attention
        L, S = query.size(-2), key_acc.size(-2)
        attn_mask = at.ones([L, S], dtype=ScalarType.Bool, device=query.device()).tril()
        attn_mask = convert_boolean_attn_mask(attn_mask, query.scalar_type())
    key_expanded, value_expanded = pre_process_group_query_attention_input(
        query, key_acc, value_acc, enable_gqa
    )
    attn = at.matmul(query, key_expanded.transpose(-2, -1).mul(scaling_factor))
    if attn_mask is not None:
        attn.add_(attn_mask)
    attn = at._safe_softmax(attn, -1)
    if dropout_p > 0.0:
        if dropout_mask is not None:
            attn = attn.masked_fill(dropout_mask.logical_not(), 0.0)
            attn = attn.mul(1.0 / (1.0 - dropout_p))
        else:
            attn = at.dropout(attn, dropout_p, True)
    return at.matmul(attn, value_expanded).to(origin_dtype), attn.to(origin_dtype)
