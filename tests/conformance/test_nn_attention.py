"""Conformance of F.scaled_dot_product_attention, torch.baddbmm, torch._safe_softmax and
nn.MultiheadAttention (F.multi_head_attention_forward) against torch 2.13: values, masks,
is_causal, scale, dropout draws, gradients of inputs and parameters, init, reprs and errors.

torch's CPU sdpa takes a fused flash kernel for 4-D inputs with one head dim and no dropout;
tensortrace always takes the math path (aten::_scaled_dot_product_attention_math), so the values
agree to float rounding (CLOSE), not bit for bit. torch's bmm (MKL) also sums in another order.
The errors of the math path are compared on inputs where torch takes it too (3-D, or a value
head dim of its own).
"""

from __future__ import annotations

import pytest

from .harness import check

PRE = "nn = torch.nn\nF = torch.nn.functional\n"
CLOSE = {"rtol": 1e-5, "atol": 1e-6}
QKV = "q = torch.randn(2, 3, 4, 8, requires_grad=True); k = torch.randn(2, 3, 5, 8, "
QKV += "requires_grad=True); v = torch.randn(2, 3, 5, 8, requires_grad=True); "
QKV3 = "q = torch.randn(3, 4, 8); k = torch.randn(3, 5, 8); v = torch.randn(3, 5, 6); "
GRADS = "(y * torch.arange(float(y.numel())).view(y.shape).cos()).sum().backward(); "
X = "x = torch.randn(5, 3, 8, requires_grad=True); "

PROGRAMS = {
    # ---- scaled_dot_product_attention ----
    "sdpa_plain": QKV
    + "y = F.scaled_dot_product_attention(q, k, v); "
    + GRADS
    + "out = (y.detach(), q.grad, k.grad, v.grad)",
    "sdpa_bool_mask": QKV + "m = torch.rand(4, 5) > 0.3; y = F.scaled_dot_product_attention("
    "q, k, v, attn_mask=m); " + GRADS + "out = (y.detach(), q.grad, k.grad, v.grad)",
    "sdpa_float_mask_broadcast": QKV + "m = torch.randn(2, 1, 4, 5); y = "
    "F.scaled_dot_product_attention(q, k, v, m); " + GRADS + "out = (y.detach(), q.grad)",
    "sdpa_causal": QKV
    + "y = F.scaled_dot_product_attention(q, k, v, is_causal=True); "
    + GRADS
    + "out = (y.detach(), q.grad, k.grad, v.grad)",
    "sdpa_scale": QKV3 + "out = [F.scaled_dot_product_attention(q, k, v, scale=s) "
    "for s in (0.5, -0.3, 2.0)]",
    "sdpa_fully_masked_row": QKV3 + "m = torch.ones(4, 5, dtype=torch.bool); m[1] = False; "
    "out = F.scaled_dot_product_attention(q, k, v, attn_mask=m)",
    "sdpa_3d_value_dim": QKV3 + "out = F.scaled_dot_product_attention(q, k, v, is_causal=True)",
    "sdpa_dropout_draws": QKV3 + "out = F.scaled_dot_product_attention(q, k, v, dropout_p=0.4)",
    "sdpa_2d": "q = torch.randn(4, 8); out = F.scaled_dot_product_attention(q, q, q)",
    "sdpa_double": "q = torch.randn(2, 4, 8, dtype=torch.float64); "
    "out = F.scaled_dot_product_attention(q, q, q, is_causal=True)",
    "sdpa_gqa": "q = torch.randn(2, 4, 3, 8); k = torch.randn(2, 2, 5, 8); "
    "v = torch.randn(2, 2, 5, 6); out = F.scaled_dot_product_attention(q, k, v, "
    "enable_gqa=True)",
    "safe_softmax": "x = torch.randn(3, 4); x[1] = float('-inf'); x.requires_grad_(); "
    "y = torch._safe_softmax(x, -1); y.sum().backward(); out = (y.detach(), x.grad, "
    "torch.softmax(x.detach(), -1))",
    "err_sdpa_mask_and_causal": QKV3 + "out = F.scaled_dot_product_attention(q, k, v, "
    "attn_mask=torch.ones(4, 5, dtype=torch.bool), is_causal=True)",
    "err_sdpa_key_dim": QKV3 + "out = F.scaled_dot_product_attention(q, torch.randn(3, 5, 7), v)",
    "err_sdpa_value_len": QKV3 + "out = F.scaled_dot_product_attention(q, k, torch.randn(3, 6, 6))",
    "err_sdpa_1d": QKV3 + "out = F.scaled_dot_product_attention(torch.randn(8), k, v)",
    "err_sdpa_dtype": QKV3 + "out = F.scaled_dot_product_attention(q, k.double(), v)",
    "err_sdpa_mask_dtype": QKV3 + "out = F.scaled_dot_product_attention(q, k, v, "
    "attn_mask=torch.ones(4, 5, dtype=torch.long))",
    "err_sdpa_gqa_heads": "q = torch.randn(2, 3, 3, 8); k = torch.randn(2, 2, 5, 8); "
    "out = F.scaled_dot_product_attention(q, k, k, enable_gqa=True)",
    # ---- baddbmm (MultiheadAttention's masked scores) ----
    "baddbmm_grads": "a = torch.randn(2, 3, 4, requires_grad=True); b = torch.randn(2, 3, 5, "
    "requires_grad=True); c = torch.randn(2, 5, 4, requires_grad=True); "
    "y = torch.baddbmm(a, b, c, beta=0.5, alpha=2); "
    + GRADS
    + "out = (y.detach(), a.grad, b.grad, c.grad)",
    "baddbmm_broadcast_inplace": "a = torch.randn(3, 4); b = torch.randn(2, 3, 5); "
    "c = torch.randn(2, 5, 4); d = torch.randn(2, 3, 4); "
    "out = (torch.baddbmm(a, b, c), d.baddbmm_(b, c, alpha=0.5), d)",
    "baddbmm_beta_zero_nan": "a = torch.full((2, 3, 4), float('nan')); "
    "out = torch.baddbmm(a, torch.randn(2, 3, 5), torch.randn(2, 5, 4), beta=0)",
    "err_baddbmm_dtype": "out = torch.baddbmm(torch.randn(2, 3, 4).double(), "
    "torch.randn(2, 3, 5), torch.randn(2, 5, 4))",
    "err_baddbmm_shape": "out = torch.baddbmm(torch.randn(2, 3, 3), torch.randn(2, 3, 5), "
    "torch.randn(2, 5, 4))",
    # ---- MultiheadAttention ----
    "mha_self": "m = nn.MultiheadAttention(8, 2); " + X + "y, w = m(x, x, x); "
    "(y.sum() + (w * w).sum()).backward(); out = (y.detach(), w.detach(), x.grad, "
    "m.in_proj_weight.grad, m.in_proj_bias.grad, m.out_proj.weight.grad, "
    "m.out_proj.bias.grad)",
    "mha_init_bit_equal": "m = nn.MultiheadAttention(12, 3); n = nn.MultiheadAttention(6, 2, "
    "kdim=4, vdim=5, add_bias_kv=True); out = dict(m.state_dict()) | "
    "{'n.' + k: t for k, t in n.state_dict().items()}",
    "mha_parameters": "m = nn.MultiheadAttention(8, 4, bias=False, kdim=6); "
    "out = [(n, list(p.shape)) for n, p in m.named_parameters()] + [repr(m), "
    "repr(nn.MultiheadAttention(8, 2, dropout=0.1, batch_first=True))]",
    "mha_masks_batch_first": "m = nn.MultiheadAttention(8, 2, batch_first=True); "
    "x = torch.randn(3, 5, 8, requires_grad=True); kpm = torch.tensor([[False] * 5, "
    "[False] * 3 + [True] * 2, [False] * 4 + [True]]); am = torch.ones(5, 5, "
    "dtype=torch.bool).triu(1); y, w = m(x, x, x, key_padding_mask=kpm, attn_mask=am); "
    + GRADS
    + "out = (y.detach(), w.detach(), x.grad, m.in_proj_weight.grad)",
    "mha_float_mask_per_head": "m = nn.MultiheadAttention(8, 2); "
    + X
    + "am = torch.randn(6, 5, 5); y, w = m(x, x, x, attn_mask=am, average_attn_weights=False)"
    "; out = (y, w)",
    "mha_no_weights_sdpa": "m = nn.MultiheadAttention(8, 2, batch_first=True); "
    "x = torch.randn(3, 5, 8, requires_grad=True); kpm = torch.rand(3, 5) > 0.7; "
    "kpm[:, 0] = False; y, w = m(x, x, x, key_padding_mask=kpm, need_weights=False); "
    + GRADS
    + "out = (y.detach(), w, x.grad, m.out_proj.weight.grad)",
    "mha_causal_hint": "m = nn.MultiheadAttention(8, 2); " + X + "am = torch.full((5, 5),"
    " float('-inf')).triu(1); y, w = m(x, x, x, attn_mask=am, is_causal=True, "
    "need_weights=False); out = y",
    "mha_cross_kdim_vdim_dropout": "m = nn.MultiheadAttention(8, 4, dropout=0.3, kdim=6, "
    "vdim=5, add_bias_kv=True, add_zero_attn=True); q = torch.randn(5, 3, 8); "
    "k = torch.randn(4, 3, 6); v = torch.randn(4, 3, 5); y, w = m(q, k, v); "
    "m.eval(); y2, w2 = m(q, k, v); out = (y, w, y2, w2)",
    "mha_encoder_decoder": "m = nn.MultiheadAttention(8, 2); q = torch.randn(4, 2, 8); "
    "kv = torch.randn(6, 2, 8, requires_grad=True); y, w = m(q, kv, kv); "
    + GRADS
    + "out = (y.detach(), w.detach(), kv.grad, m.in_proj_weight.grad)",
    "mha_unbatched": "m = nn.MultiheadAttention(8, 2); x = torch.randn(5, 8); "
    "kpm = torch.tensor([False, False, True, False, False]); out = m(x, x, x, "
    "key_padding_mask=kpm)",
    "err_mha_heads": "out = nn.MultiheadAttention(8, 3)",
    "err_mha_zero": "out = nn.MultiheadAttention(0, 3)",
    "err_mha_embed_dim": "m = nn.MultiheadAttention(8, 2); x = torch.randn(5, 3, 6); "
    "out = m(x, x, x)",
    "err_mha_4d": "m = nn.MultiheadAttention(8, 2); x = torch.randn(5, 3, 2, 8); out = m(x, x, x)",
    "err_mha_mask_shape": "m = nn.MultiheadAttention(8, 2); x = torch.randn(5, 3, 8); "
    "out = m(x, x, x, attn_mask=torch.zeros(4, 5))",
    "err_mha_mask_dtype": "m = nn.MultiheadAttention(8, 2); x = torch.randn(5, 3, 8); "
    "out = m(x, x, x, attn_mask=torch.zeros(5, 5, dtype=torch.long))",
    "err_mha_kpm_shape": "m = nn.MultiheadAttention(8, 2); x = torch.randn(5, 3, 8); "
    "out = m(x, x, x, key_padding_mask=torch.zeros(3, 4, dtype=torch.bool))",
    "err_mha_causal_no_mask": "m = nn.MultiheadAttention(8, 2); x = torch.randn(5, 3, 8); "
    "out = m(x, x, x, is_causal=True)",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_attention(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], **CLOSE)
