"""nn.TransformerEncoderLayer and nn.TransformerDecoderLayer (torch/nn/modules/transformer.py).

The layers of nn.Transformer: self-attention (and, in the decoder, attention over the encoder's
memory) then a feed-forward block, each with dropout, a residual and a LayerNorm, applied after
the residual (norm_first=False, the paper's order) or before the block (norm_first=True, Fig. 1
of https://arxiv.org/pdf/2002.04745v1.pdf). Submodules are made in torch's order, so after
manual_seed the weights are bit-equal.

torch's TransformerEncoderLayer.forward takes a "sparsity fast path"
(torch._transformer_encoder_layer_fwd, one fused kernel) in inference, with batch_first, an even
number of heads, relu or gelu and no grad required; it computes the same values in another
order. tensortrace always takes the regular path: _sa_block and _ff_block.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensortrace as torch
from tensortrace.nn import functional as F
from tensortrace.nn.modules.activation import GELU, MultiheadAttention, ReLU
from tensortrace.nn.modules.dropout import Dropout
from tensortrace.nn.modules.linear import Linear
from tensortrace.nn.modules.module import Module
from tensortrace.nn.modules.normalization import LayerNorm

Tensor = torch.Tensor


def _get_activation_fn(activation: str) -> Callable[[Tensor], Tensor]:
    if activation == "relu":
        return F.relu
    elif activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


class _TransformerLayerBase(Module):
    """What both layers share: the constructor (attention modules, then the feed-forward block,
    the norms and the dropouts), the attention and feed-forward blocks. torch writes it out in
    each layer; the submodules are made in its order."""

    norm_first: bool
    activation: Any
    # the attention modules, made first in this order; one norm and one dropout each, and one
    # more of each for the feed-forward block
    _attention_names: tuple[str, ...] = ("self_attn",)

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: str | Callable[[Tensor], Tensor] = F.relu,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        for name in self._attention_names:
            attn = MultiheadAttention(
                d_model,
                nhead,
                dropout=dropout,
                bias=bias,
                batch_first=batch_first,
                **factory_kwargs,
            )
            setattr(self, name, attn)
        # Implementation of Feedforward model. torch's order: linear1, dropout, linear2,
        # norm1..normN, dropout1..dropoutN
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **factory_kwargs)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **factory_kwargs)
        self.norm_first = norm_first
        blocks = len(self._attention_names) + 1
        for i in range(1, blocks + 1):
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
            setattr(self, f"norm{i}", norm)
        for i in range(1, blocks + 1):
            setattr(self, f"dropout{i}", Dropout(dropout))
        # Legacy string support for activation function.
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        self._set_activation(activation)

    def _set_activation(self, activation: Callable[[Tensor], Tensor]) -> None:
        self.activation = activation

    def _attention_block(
        self,
        attn: MultiheadAttention,
        dropout: Module,
        x: Tensor,
        mem: Tensor,
        attn_mask: Tensor | None,
        key_padding_mask: Tensor | None,
        is_causal: bool = False,
    ) -> Tensor:
        """torch's _sa_block (mem is x) and _mha_block: attention without weights, then dropout."""
        out = attn(
            x,
            mem,
            mem,
            attn_mask=attn_mask,
            key_padding_mask=key_padding_mask,
            need_weights=False,
            is_causal=is_causal,
        )[0]
        result: Tensor = dropout(out)
        return result

    def _feedforward(self, x: Tensor, dropout: Module) -> Tensor:
        result: Tensor = dropout(self.linear2(self.dropout(self.activation(self.linear1(x)))))
        return result


class TransformerEncoderLayer(_TransformerLayerBase):
    __constants__ = ["norm_first"]

    def _set_activation(self, activation: Callable[[Tensor], Tensor]) -> None:
        # We can't test self.activation in forward() in TorchScript, so stash some information
        # about it instead (torch's fast path reads it; tensortrace keeps the attribute)
        if activation is F.relu or isinstance(activation, ReLU):
            self.activation_relu_or_gelu = 1
        elif activation is F.gelu or isinstance(activation, GELU):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = activation

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)  # torch's Module.__setstate__
        if not hasattr(self, "activation"):
            self.activation = F.relu

    def forward(
        self,
        src: Tensor,
        src_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        is_causal: bool = False,
    ) -> Tensor:
        src_mask, src_key_padding_mask = _canonical_masks(
            src_mask, "src_mask", src_key_padding_mask, "src_key_padding_mask", src.dtype
        )
        # (torch's sparsity fast path would be decided here; tensortrace takes the regular path)
        x: Any = src  # (Tensor's operators are bound at run time: mypy does not see them)
        if self.norm_first:
            x = x + self._sa_block(
                self.norm1(x), src_mask, src_key_padding_mask, is_causal=is_causal
            )
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(
                x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal=is_causal)
            )
            x = self.norm2(x + self._ff_block(x))
        return x

    # self-attention block
    def _sa_block(
        self,
        x: Tensor,
        attn_mask: Tensor | None,
        key_padding_mask: Tensor | None,
        is_causal: bool = False,
    ) -> Tensor:
        return self._attention_block(
            self.self_attn, self.dropout1, x, x, attn_mask, key_padding_mask, is_causal
        )

    # feed forward block
    def _ff_block(self, x: Tensor) -> Tensor:
        return self._feedforward(x, self.dropout2)


class TransformerDecoderLayer(_TransformerLayerBase):
    __constants__ = ["norm_first"]
    _attention_names = ("self_attn", "multihead_attn")

    def __setstate__(self, state: dict[str, Any]) -> None:
        if "activation" not in state:
            state["activation"] = F.relu
        self.__dict__.update(state)  # torch's Module.__setstate__

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        tgt_is_causal: bool = False,
        memory_is_causal: bool = False,
    ) -> Tensor:
        # see Fig. 1 of https://arxiv.org/pdf/2002.04745v1.pdf
        x: Any = tgt  # (Tensor's operators are bound at run time: mypy does not see them)
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(
                self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal
            )
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(
                x
                + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            )
            x = self.norm3(x + self._ff_block(x))
        return x

    # self-attention block
    def _sa_block(
        self,
        x: Tensor,
        attn_mask: Tensor | None,
        key_padding_mask: Tensor | None,
        is_causal: bool = False,
    ) -> Tensor:
        return self._attention_block(
            self.self_attn, self.dropout1, x, x, attn_mask, key_padding_mask, is_causal
        )

    # multihead attention block
    def _mha_block(
        self,
        x: Tensor,
        mem: Tensor,
        attn_mask: Tensor | None,
        key_padding_mask: Tensor | None,
        is_causal: bool = False,
    ) -> Tensor:
        return self._attention_block(
            self.multihead_attn, self.dropout2, x, mem, attn_mask, key_padding_mask, is_causal
        )

    # feed forward block
    def _ff_block(self, x: Tensor) -> Tensor:
        return self._feedforward(x, self.dropout3)


def _canonical_masks(
    mask: Tensor | None,
    mask_name: str,
    key_padding_mask: Tensor | None,
    key_padding_mask_name: str,
    target_type: Any,
) -> tuple[Tensor | None, Tensor | None]:
    """The attention mask and the key padding mask made additive, as TransformerEncoder and
    TransformerEncoderLayer do first (the padding mask checked against the mask's dtype)."""
    key_padding_mask = F._canonical_mask(
        mask=key_padding_mask,
        mask_name=key_padding_mask_name,
        other_type=F._none_or_dtype(mask),
        other_name=mask_name,
        target_type=target_type,
    )
    mask = F._canonical_mask(
        mask=mask,
        mask_name=mask_name,
        other_type=None,
        other_name="",
        target_type=target_type,
        check_other=False,
    )
    return mask, key_padding_mask
