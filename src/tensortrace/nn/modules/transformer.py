"""nn.Transformer, nn.TransformerEncoder, nn.TransformerDecoder (torch/nn/modules/transformer.py).

The stacks clone one layer N times (_get_clones: copy.deepcopy, so every layer starts from the
same weights) and apply an optional final norm; nn.Transformer builds an encoder and a decoder
stack, each with a final LayerNorm, then re-initializes every parameter of more than one
dimension with xavier_uniform_ (_reset_parameters), in torch's order, so after manual_seed the
weights are bit-equal. The layers are in transformer_layer.py.

torch's TransformerEncoder.forward converts a padded batch to a NestedTensor (the "sparsity fast
path") in inference with a left-aligned src_key_padding_mask, and its layers then take the fused
torch._transformer_encoder_layer_fwd. tensortrace has no NestedTensor and always takes the
regular path: each layer's _sa_block and _ff_block, the padding mask passed to every layer. The
values agree with torch's to float rounding. TransformerEncoder still decides use_nested_tensor
at construction and warns as torch does.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable
from typing import Any

import tensortrace as torch
from tensortrace.nn import functional as F
from tensortrace.nn.init import xavier_uniform_
from tensortrace.nn.modules.container import ModuleList
from tensortrace.nn.modules.module import Module
from tensortrace.nn.modules.normalization import LayerNorm
from tensortrace.nn.modules.transformer_layer import (
    TransformerDecoderLayer,
    TransformerEncoderLayer,
    _canonical_masks,
    _get_activation_fn,  # noqa: F401 (torch keeps it in this module)
)

__all__ = [
    "Transformer",
    "TransformerEncoder",
    "TransformerDecoder",
    "TransformerEncoderLayer",
    "TransformerDecoderLayer",
]

Tensor = torch.Tensor


def _generate_square_subsequent_mask(
    sz: int,
    device: Any = None,
    dtype: Any = None,
) -> Tensor:
    """A square causal mask: -inf above the diagonal (the future), 0.0 elsewhere."""
    return torch.triu(
        torch.full((sz, sz), float("-inf"), dtype=dtype, device=device),
        diagonal=1,
    )


def _get_seq_len(src: Tensor, batch_first: bool) -> int | None:
    # (torch returns None for a NestedTensor; tensortrace has none)
    src_size = src.size()
    if len(src_size) == 2:
        # unbatched: S, E
        return int(src_size[0])
    # batched: B, S, E if batch_first else S, B, E
    seq_len_pos = 1 if batch_first else 0
    return int(src_size[seq_len_pos])


class Transformer(Module):
    def __init__(
        self,
        d_model: int = 512,
        nhead: int = 8,
        num_encoder_layers: int = 6,
        num_decoder_layers: int = 6,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: str | Callable[[Tensor], Tensor] = F.relu,
        custom_encoder: Any | None = None,
        custom_decoder: Any | None = None,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        layer_args: tuple[Any, ...] = (
            d_model,
            nhead,
            dim_feedforward,
            dropout,
            activation,
            layer_norm_eps,
        )
        layer_args += (batch_first, norm_first, bias)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            encoder_layer = TransformerEncoderLayer(*layer_args, **factory_kwargs)
            encoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
            self.encoder = TransformerEncoder(encoder_layer, num_encoder_layers, encoder_norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            decoder_layer = TransformerDecoderLayer(*layer_args, **factory_kwargs)
            decoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
            self.decoder = TransformerDecoder(decoder_layer, num_decoder_layers, decoder_norm)
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(
        self,
        src: Tensor,
        tgt: Tensor,
        src_mask: Tensor | None = None,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        src_is_causal: bool | None = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        is_batched = src.dim() == 3
        if not self.batch_first and src.size(1) != tgt.size(1) and is_batched:
            raise RuntimeError("the batch number of src and tgt must be equal")
        elif self.batch_first and src.size(0) != tgt.size(0) and is_batched:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(
            src,
            mask=src_mask,
            src_key_padding_mask=src_key_padding_mask,
            is_causal=src_is_causal,
        )
        output: Tensor = self.decoder(
            tgt,
            memory,
            tgt_mask=tgt_mask,
            memory_mask=memory_mask,
            tgt_key_padding_mask=tgt_key_padding_mask,
            memory_key_padding_mask=memory_key_padding_mask,
            tgt_is_causal=tgt_is_causal,
            memory_is_causal=memory_is_causal,
        )
        return output

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None) -> Tensor:
        return _generate_square_subsequent_mask(sz, dtype=dtype, device=device)

    def _reset_parameters(self) -> None:
        """xavier_uniform_ on every parameter of more than one dimension, in parameters() order."""
        for p in self.parameters():
            if p.dim() > 1:
                xavier_uniform_(p)


def _why_not_sparsity_fast_path(encoder_layer: Any) -> str:
    """Why torch's TransformerEncoder would not use nested tensors with this layer ("" if it
    would): torch's checks at construction, in its order."""
    enc_layer = "encoder_layer"
    if not isinstance(encoder_layer, TransformerEncoderLayer):
        return f"{enc_layer} was not TransformerEncoderLayer"
    elif encoder_layer.norm_first:
        return f"{enc_layer}.norm_first was True"
    elif not encoder_layer.self_attn.batch_first:
        return (
            f"{enc_layer}.self_attn.batch_first was not True"
            + "(use batch_first for better inference performance)"
        )
    elif not encoder_layer.self_attn._qkv_same_embed_dim:
        return f"{enc_layer}.self_attn._qkv_same_embed_dim was not True"
    elif encoder_layer.self_attn.in_proj_bias is None:
        return f"{enc_layer}.self_attn was passed bias=False"
    elif not encoder_layer.activation_relu_or_gelu:
        return f"{enc_layer}.activation_relu_or_gelu was not True"
    elif encoder_layer.norm1.eps != encoder_layer.norm2.eps:
        return f"{enc_layer}.norm1.eps was not equal to {enc_layer}.norm2.eps"
    elif encoder_layer.self_attn.num_heads % 2 == 1:
        return f"{enc_layer}.self_attn.num_heads is odd"
    return ""


class TransformerEncoder(Module):
    __constants__ = ["norm"]

    def __init__(
        self,
        encoder_layer: TransformerEncoderLayer,
        num_layers: int,
        norm: Module | None = None,
        enable_nested_tensor: bool = True,
        mask_check: bool = True,
    ) -> None:
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        # this attribute saves the value provided at object construction
        self.enable_nested_tensor = enable_nested_tensor
        # this attribute controls whether nested tensors are used (torch's fast path; tensortrace
        # keeps the decision but always takes the regular path)
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why_not_sparsity_fast_path = _why_not_sparsity_fast_path(encoder_layer)
        if enable_nested_tensor and why_not_sparsity_fast_path:
            warnings.warn(
                "enable_nested_tensor is True, but self.use_nested_tensor is False because "
                f"{why_not_sparsity_fast_path}",
                stacklevel=2,
            )
            self.use_nested_tensor = False

    def forward(
        self,
        src: Tensor,
        mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        is_causal: bool | None = None,
    ) -> Tensor:
        mask, src_key_padding_mask = _canonical_masks(
            mask, "mask", src_key_padding_mask, "src_key_padding_mask", src.dtype
        )
        output = src
        batch_first = self.layers[0].self_attn.batch_first
        # (torch's nested-tensor fast path would be decided here; tensortrace takes the regular
        # path and hands the padding mask to every layer)
        seq_len = _get_seq_len(src, batch_first)
        is_causal = _detect_is_causal_mask(mask, is_causal, seq_len)
        for mod in self.layers:
            output = mod(
                output,
                src_mask=mask,
                is_causal=is_causal,
                src_key_padding_mask=src_key_padding_mask,
            )
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerDecoder(Module):
    __constants__ = ["norm"]

    def __init__(
        self,
        decoder_layer: TransformerDecoderLayer,
        num_layers: int,
        norm: Module | None = None,
    ) -> None:
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        output = tgt
        seq_len = _get_seq_len(tgt, self.layers[0].self_attn.batch_first)
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, seq_len)
        for mod in self.layers:
            output = mod(
                output,
                memory,
                tgt_mask=tgt_mask,
                memory_mask=memory_mask,
                tgt_key_padding_mask=tgt_key_padding_mask,
                memory_key_padding_mask=memory_key_padding_mask,
                tgt_is_causal=tgt_is_causal,
                memory_is_causal=memory_is_causal,
            )
        if self.norm is not None:
            output = self.norm(output)
        return output


def _get_clones(module: Module, N: int) -> ModuleList:  # noqa: N803 (torch's name)
    # FIXME (torch's): copy.deepcopy() is not defined on nn.module
    return ModuleList([copy.deepcopy(module) for i in range(N)])


def _detect_is_causal_mask(
    mask: Tensor | None,
    is_causal: bool | None = None,
    size: int | None = None,
) -> bool:
    """is_causal when given; without it, whether mask is the square causal mask of size (or of
    its own size(-2)), compared elementwise so a batched mask broadcasts."""
    # Prevent type refinement
    make_causal = is_causal is True
    if is_causal is None and mask is not None:
        sz = size if size is not None else mask.size(-2)
        causal_comparison = _generate_square_subsequent_mask(
            sz, device=mask.device, dtype=mask.dtype
        )
        # Do not use `torch.equal` so we handle batched masks by
        # broadcasting the comparison.
        if mask.size() == causal_comparison.size():
            same: Any = mask == causal_comparison  # (a Tensor: mypy sees object.__eq__)
            make_causal = bool(same.all())
        else:
            make_causal = False
    return make_causal
