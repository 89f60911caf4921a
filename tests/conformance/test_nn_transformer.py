"""Conformance of nn.TransformerEncoderLayer, nn.TransformerEncoder, nn.TransformerDecoderLayer,
nn.TransformerDecoder and nn.Transformer against torch 2.13: values in eval mode (and dropout
draws in training), norm_first, batch_first, activations, masks (causal, key padding, bool and
float), gradients of inputs and parameters, init (bit-equal), parameter names, reprs, warnings
and errors, and a small model trained a few steps.

torch's attention on CPU is a fused kernel (and, in inference, the encoder layer's sparsity fast
path); tensortrace always takes the regular path, so values agree to float rounding (CLOSE).
"""

from __future__ import annotations

import warnings

import pytest

import tensortrace

from .harness import check, torch

PRE = "nn = torch.nn\nF = torch.nn.functional\n"
CLOSE = {"rtol": 1e-5, "atol": 1e-6}
GRADS = "(y * torch.arange(float(y.numel())).view(y.shape).cos()).sum().backward(); "
ENC = "nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0"
DEC = "nn.TransformerDecoderLayer(16, 4, 32, dropout=0.0"
X = "x = torch.randn(5, 3, 16, requires_grad=True); "
MEM = "mem = torch.randn(6, 3, 16, requires_grad=True); "
KPM = "kpm = torch.tensor([[False] * 5, [False] * 3 + [True] * 2, [False] * 4 + [True]]); "
CAUSAL = "cm = nn.Transformer.generate_square_subsequent_mask(5); "

PROGRAMS = {
    # ---- TransformerEncoderLayer ----
    "enc_layer": "m = " + ENC + "); " + X + "y = m(x); " + GRADS + "out = (y.detach(), "
    "x.grad, m.self_attn.in_proj_weight.grad, m.linear1.weight.grad, m.norm2.bias.grad)",
    "enc_layer_norm_first_gelu_batch_first": "m = nn.TransformerEncoderLayer(16, 4, 32, "
    "activation='gelu', batch_first=True, norm_first=True).eval(); "
    "x = torch.randn(3, 5, 16, requires_grad=True); " + KPM + "y = m(x, "
    "src_key_padding_mask=kpm); " + GRADS + "out = (y.detach(), x.grad, m.linear2.weight.grad)",
    "enc_layer_causal_masks": "m = " + ENC + "); " + X + CAUSAL + "bm = torch.ones(5, 5, "
    "dtype=torch.bool).triu(1); out = (m(x, cm), m(x, cm, is_causal=True), m(x, bm), "
    "m(x, src_mask=cm, src_key_padding_mask=" + KPM[6:-2] + ".float() * -1e9))",
    "enc_layer_callable_activation_no_bias": "m = " + ENC + ", activation=nn.GELU(), "
    "bias=False, layer_norm_eps=1e-3); n = "
    + ENC
    + ", activation=torch.tanh); "
    + X
    + "out = (m(x), n(x), m.activation_relu_or_gelu, n.activation_relu_or_gelu, repr(m), "
    "[k for k, _ in m.named_parameters()])",
    "enc_layer_unbatched_double": "m = " + ENC + ", dtype=torch.float64); "
    "x = torch.randn(5, 16, dtype=torch.float64); out = m(x, src_key_padding_mask=torch.tensor("
    "[False, True, False, False, True]))",
    "enc_layer_dropout_draws": "m = nn.TransformerEncoderLayer(16, 4, 32, dropout=0.3); "
    + X
    + "out = (m(x), m(x))",
    # ---- TransformerEncoder ----
    "encoder_stack_norm_causal": "m = nn.TransformerEncoder(" + ENC + "), 2, norm=nn.LayerNorm("
    "16), enable_nested_tensor=False); "
    + X
    + CAUSAL
    + "y = m(x, mask=cm); "
    + GRADS
    + "out = (y.detach(), x.grad, m.layers[0].linear1.weight.grad, "
    "m.layers[1].self_attn.out_proj.weight.grad, m.norm.weight.grad, "
    "m(x, cm, is_causal=True).detach(), m.use_nested_tensor)",
    "encoder_stack_padding_batch_first": "m = nn.TransformerEncoder("
    "nn.TransformerEncoderLayer(16, 4, 32, batch_first=True), 3).eval(); "
    "x = torch.randn(3, 5, 16); " + KPM + "out = (m(x, src_key_padding_mask=kpm), "
    "m(x, src_key_padding_mask=kpm.float()), m.use_nested_tensor, m.num_layers)",
    "encoder_clones_equal": "m = nn.TransformerEncoder(" + ENC + "), 3, "
    "enable_nested_tensor=False); out = [dict(m.state_dict()), "
    "m.layers[0].linear1.weight is m.layers[1].linear1.weight]",
    "detect_is_causal_mask": "f = torch.nn.modules.transformer._detect_is_causal_mask; "
    + CAUSAL
    + "out = [f(cm), f(cm, None, 4), f(cm, False), f(None, True), f(cm.expand(2, 5, 5)), "
    "f(torch.zeros(5, 5)), f(None)]",
    # ---- TransformerDecoderLayer / TransformerDecoder ----
    "dec_layer": "m = "
    + DEC
    + "); "
    + X
    + MEM
    + CAUSAL
    + "y = m(x, mem, tgt_mask=cm); "
    + GRADS
    + "out = (y.detach(), x.grad, mem.grad, m.multihead_attn.in_proj_weight.grad, "
    "m.norm3.weight.grad)",
    "dec_layer_norm_first_batch_first_masks": "m = " + DEC + ", norm_first=True, "
    "batch_first=True, activation='gelu'); x = torch.randn(3, 5, 16); mem = torch.randn(3, 6, "
    "16); " + KPM + "mkpm = torch.rand(3, 6) > 0.6; mkpm[:, 0] = False; out = (m(x, mem, "
    "tgt_key_padding_mask=kpm, memory_key_padding_mask=mkpm), m(x, mem, "
    "memory_mask=torch.randn(5, 6)), [k for k, _ in m.named_parameters()])",
    "decoder_stack": "m = nn.TransformerDecoder("
    + DEC
    + "), 2, norm=nn.LayerNorm(16)); "
    + X
    + MEM
    + CAUSAL
    + "y = m(x, mem, tgt_mask=cm); "
    + GRADS
    + "out = (y.detach(), x.grad, mem.grad, m.layers[1].linear2.weight.grad, "
    "m(x, mem, tgt_mask=cm, tgt_is_causal=True).detach(), repr(m))",
    "dec_layer_dropout_draws": "m = nn.TransformerDecoderLayer(16, 4, 32, dropout=0.2); "
    + X
    + MEM
    + "out = m(x, mem)",
    # ---- Transformer ----
    "transformer_forward": "m = nn.Transformer(16, 4, 2, 2, 32, dropout=0.0); "
    + X
    + MEM
    + CAUSAL
    + "y = m(mem, x, tgt_mask=cm, src_key_padding_mask=torch.zeros(3, 6, "
    "dtype=torch.bool)); " + GRADS + "out = (y.detach(), x.grad, mem.grad, "
    "m.encoder.layers[0].self_attn.in_proj_weight.grad, m.decoder.norm.weight.grad)",
    "transformer_batch_first_norm_first_eval": "m = nn.Transformer(16, 2, 1, 2, 24, "
    "batch_first=True, norm_first=True, activation='gelu').eval(); src = torch.randn(2, 6, 16);"
    " tgt = torch.randn(2, 4, 16); out = (m(src, tgt, tgt_is_causal=True, "
    "tgt_mask=m.generate_square_subsequent_mask(4)), m(src[0], tgt[0]))",
    "transformer_params_state_dict_repr": "m = nn.Transformer(8, 2, 1, 1, 12, bias=False); "
    "out = [[(k, list(p.shape)) for k, p in m.named_parameters()], list(m.state_dict()), "
    "repr(m), m.d_model, m.nhead, m.batch_first]",
    "transformer_custom_encoder": "enc = nn.TransformerEncoder(" + ENC + "), 1, "
    "enable_nested_tensor=False); m = nn.Transformer(16, 4, 1, 1, 32, custom_encoder=enc, "
    "dropout=0.0); x = torch.randn(5, 3, 16); out = (m(x, x), m.encoder is enc)",
    "square_subsequent_mask": "out = (nn.Transformer.generate_square_subsequent_mask(4), "
    "nn.Transformer.generate_square_subsequent_mask(3, dtype=torch.float64), "
    "nn.Transformer.generate_square_subsequent_mask(0))",
    # ---- errors ----
    "err_activation": "out = nn.TransformerEncoderLayer(16, 4, activation='tanh')",
    "err_dec_activation": "out = nn.TransformerDecoderLayer(16, 4, activation='silu')",
    "err_heads": "out = nn.TransformerEncoderLayer(16, 3)",
    "err_transformer_batch": "m = nn.Transformer(16, 4, 1, 1, 32); "
    "out = m(torch.randn(5, 3, 16), torch.randn(4, 2, 16))",
    "err_transformer_batch_first": "m = nn.Transformer(16, 4, 1, 1, 32, batch_first=True); "
    "out = m(torch.randn(3, 5, 16), torch.randn(2, 5, 16))",
    "err_transformer_d_model": "m = nn.Transformer(16, 4, 1, 1, 32); "
    "out = m(torch.randn(5, 3, 16), torch.randn(4, 3, 8))",
    "err_encoder_mask_dtype": "m = nn.TransformerEncoder("
    + ENC
    + "), 1); "
    + X
    + "out = m(x, mask=torch.zeros(5, 5, dtype=torch.long))",
    "err_layer_kpm_dtype": "m = "
    + ENC
    + "); "
    + X
    + "out = m(x, src_key_padding_mask=torch.zeros(3, 5, dtype=torch.int32))",
    "err_layer_mask_shape": "m = " + ENC + "); " + X + "out = m(x, torch.zeros(4, 5))",
}

TUTORIAL = """
torch.manual_seed(0)
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 16)
        self.encoder = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0), 2, enable_nested_tensor=False)
        self.head = nn.Linear(16, 50)
    def forward(self, tokens, mask):
        return self.head(self.encoder(self.emb(tokens), mask=mask))
model = Model()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
tokens = torch.randint(0, 50, (7, 4))
targets = torch.randint(0, 50, (7, 4))
mask = nn.Transformer.generate_square_subsequent_mask(7)
losses = []
for _ in range(5):
    opt.zero_grad()
    loss = F.cross_entropy(model(tokens, mask).view(-1, 50), targets.view(-1))
    loss.backward()
    opt.step()
    losses.append(loss.detach())
out = torch.stack(losses)
"""


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_transformer(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], **CLOSE)


def test_init_bit_equal() -> None:
    """The same draws in torch's order: every weight equal to the bit after manual_seed."""
    check(
        "torch.manual_seed(0)\n" + PRE + "m = nn.Transformer(16, 4, 2, 1, 24); "
        "e = nn.TransformerEncoderLayer(8, 2, 12); d = nn.TransformerDecoderLayer(8, 2, 12); "
        "out = dict(m.state_dict()) | {'e.' + k: t for k, t in e.state_dict().items()} | "
        "{'d.' + k: t for k, t in d.state_dict().items()}"
    )


def test_tutorial_training() -> None:
    check(PRE + TUTORIAL, rtol=1e-4)


def _warnings(lib: object, program: str) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(PRE + program, {"torch": lib})
    return [str(w.message) for w in caught]


@pytest.mark.parametrize(
    "program",
    [
        "nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 12), 2)",
        "nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 12, batch_first=True), 2)",
        "nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, batch_first=True, "
        "norm_first=True), 1)",
        "nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 1, batch_first=True), 1)",
        "nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, batch_first=True, "
        "activation=torch.tanh), 1)",
        "nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, batch_first=True, bias=False), 1)",
        "nn.TransformerEncoder(nn.TransformerDecoderLayer(8, 2, batch_first=True), 1)",
        "nn.Transformer(8, 2, 1, 1, 12)",
        "m = nn.TransformerEncoderLayer(8, 2, 12); x = torch.randn(5, 3, 8); "
        "m(x, src_mask=torch.zeros(5, 5), src_key_padding_mask=torch.zeros(3, 5).bool())",
    ],
)
def test_warnings(program: str) -> None:
    """torch's warnings (enable_nested_tensor, mismatched mask types), message for message."""
    assert _warnings(tensortrace, program) == _warnings(torch, program)
