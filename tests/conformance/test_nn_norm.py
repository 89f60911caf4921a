"""Conformance of embedding, layer_norm and batch_norm (torch.*, F.*, nn.Embedding, nn.LayerNorm,
nn.BatchNorm1d/2d) against torch 2.13: values, gradients of input / weight / bias, the running
statistics after training steps, eval mode, padding_idx, reprs, state_dict keys and errors."""

from __future__ import annotations

import pytest

from .harness import check

PRE = "nn = torch.nn\nF = torch.nn.functional\n"
# sums in another order than torch's kernels: the last bits may differ
CLOSE = {"rtol": 1e-5, "atol": 1e-5}
W = "w = torch.randn(6, 3, requires_grad=True); "
LN = "x = torch.randn(2, 3, 4, requires_grad=True); g = torch.randn(4, requires_grad=True); "
LN += "b = torch.randn(4, requires_grad=True); "
BN = "x = torch.randn(4, 3, 5, requires_grad=True); g = torch.randn(3, requires_grad=True); "
BN += "b = torch.randn(3, requires_grad=True); rm = torch.randn(3); rv = torch.rand(3) + 0.5; "
WEIGHTS = "(y * torch.arange(float(y.numel())).view(y.shape).cos()).sum().backward(); "

PROGRAMS = {
    # ---- embedding ----
    "embedding_1d": W
    + "y = torch.embedding(w, torch.tensor([1, 0, 5, 1])); "
    + WEIGHTS
    + "out = (y.detach(), w.grad)",
    "embedding_2d_padding": W + "y = F.embedding(torch.tensor([[1, 0], [2, 1]]), w, "
    "padding_idx=1); " + WEIGHTS + "out = (y.detach(), w.grad)",
    "embedding_negative_padding": W + "y = F.embedding(torch.tensor([5, 0, 5]), w, padding_idx=-1)"
    "; " + WEIGHTS + "out = (y.detach(), w.grad)",
    "embedding_scale_grad": W + "y = F.embedding(torch.tensor([1, 1, 2, 1]), w, "
    "scale_grad_by_freq=True); " + WEIGHTS + "out = w.grad",
    "embedding_int_indices": W + "out = torch.embedding(w, torch.tensor([[3], [4]], "
    "dtype=torch.int32))",
    "embedding_double_backward": W + "y = F.embedding(torch.tensor([1, 2, 1]), w, padding_idx=2)"
    "; gw, = torch.autograd.grad((y * y.detach()).sum(), w, create_graph=True); "
    "v = torch.randn(6, 3, requires_grad=True); gv, = torch.autograd.grad(gw.mul(v).sum(), "
    "v, create_graph=True); out = (gw.detach(), gv)",
    "embedding_max_norm": "m = nn.Embedding(5, 4, max_norm=1.0); i = torch.tensor([[0, 2], "
    "[2, 4]]); y = m(i); out = (y.detach(), m.weight.detach(), "
    "torch.linalg.vector_norm(m.weight, dim=1))",
    "embedding_renorm": W + "i = torch.tensor([2, 2, 0]); "
    "with torch.no_grad():\n    torch.embedding_renorm_(w, i, 0.5, 1.0)\nout = w.detach()",
    "embedding_module": "m = nn.Embedding(10, 3, padding_idx=0); i = torch.tensor([[0, 1, 9], "
    "[4, 0, 4]]); y = m(i); " + WEIGHTS + "out = (m.weight.detach(), y.detach(), m.weight.grad,"
    " m.weight.grad[0].abs().sum().item())",
    "embedding_from_pretrained": "e = torch.randn(4, 2); m = nn.Embedding.from_pretrained(e); "
    "n = nn.Embedding.from_pretrained(e, freeze=False, padding_idx=1); "
    "out = (m(torch.tensor([3, 1])), m.weight.requires_grad, n.weight.requires_grad, "
    "repr(n), m.weight.data_ptr() == e.data_ptr())",
    "embedding_reprs": "out = [repr(m) for m in (nn.Embedding(10, 3), nn.Embedding(10, 3, "
    "padding_idx=-2), nn.Embedding(5, 2, max_norm=1.0, norm_type=1.0, "
    "scale_grad_by_freq=True))] + [list(nn.Embedding(3, 2).state_dict())]",
    "err_embedding_index": W + "out = F.embedding(torch.tensor([6]), w)",
    "err_embedding_negative_index": W + "out = torch.embedding(w, torch.tensor([[-1, 0]]))",
    "err_embedding_float_indices": W + "out = torch.embedding(w, torch.tensor([1.0]))",
    "err_embedding_weight_1d": "out = torch.embedding(torch.randn(4), torch.tensor([1]))",
    "err_embedding_padding_range": "out = nn.Embedding(4, 2, padding_idx=4)",
    "err_embedding_pretrained_dim": "out = nn.Embedding.from_pretrained(torch.randn(4))",
    # ---- layer_norm ----
    "layer_norm_affine": LN
    + "y = F.layer_norm(x, (4,), g, b); "
    + WEIGHTS
    + "out = (y.detach(), x.grad, g.grad, b.grad)",
    "layer_norm_plain": LN
    + "y = torch.layer_norm(x, [3, 4]); "
    + WEIGHTS
    + "out = (y.detach(), x.grad)",
    "layer_norm_weight_only": LN
    + "y = F.layer_norm(x, [4], g, None, 1e-3); "
    + WEIGHTS
    + "out = (y.detach(), x.grad, g.grad)",
    "native_layer_norm": LN + "out = [t.detach() for t in torch.native_layer_norm(x, [4], g, b, "
    "1e-5)]",
    "native_layer_norm_grad_mask": LN + "y, mean, rstd = torch.native_layer_norm(x, [4], g, b, "
    "1e-5); gy = torch.randn(2, 3, 4); out = torch.autograd.grad(y, (x, g), gy)",
    "layer_norm_double": "x = torch.randn(3, 5, dtype=torch.float64); out = F.layer_norm(x, [5])",
    "layer_norm_module": "m = nn.LayerNorm([3, 4]); x = torch.randn(2, 3, 4, requires_grad=True)"
    "; y = m(x); " + WEIGHTS + "out = (y.detach(), x.grad, m.weight.grad, m.bias.grad, "
    "list(m.state_dict()))",
    "layer_norm_reprs": "out = [repr(m) for m in (nn.LayerNorm(4), nn.LayerNorm([2, 3], eps=1e-3"
    ", elementwise_affine=False), nn.LayerNorm(5, bias=False))] + "
    "[list(nn.LayerNorm(4, bias=False).state_dict())]",
    "err_layer_norm_shape": "out = F.layer_norm(torch.randn(2, 3), [4])",
    "err_layer_norm_empty_shape": "out = torch.layer_norm(torch.randn(2, 3), [])",
    "err_layer_norm_weight": "out = F.layer_norm(torch.randn(2, 3), [3], torch.ones(2))",
    "err_layer_norm_bias": "out = F.layer_norm(torch.randn(2, 3), [3], None, torch.ones(4))",
    "err_layer_norm_long": "out = torch.layer_norm(torch.ones(2, 3, dtype=torch.long), [3])",
    # ---- batch_norm ----
    "batch_norm_train": BN
    + "y = F.batch_norm(x, rm, rv, g, b, training=True); "
    + WEIGHTS
    + "out = (y.detach(), rm, rv, x.grad, g.grad, b.grad)",
    "batch_norm_eval": BN
    + "y = F.batch_norm(x, rm, rv, g, b); "
    + WEIGHTS
    + "out = (y.detach(), rm, rv, x.grad, g.grad, b.grad)",
    "batch_norm_no_stats": BN + "y = torch.batch_norm(x, None, None, None, None, True, 0.1, "
    "1e-5, True); " + WEIGHTS + "out = (y.detach(), x.grad)",
    "native_batch_norm": BN + "out = [t.detach() for t in torch.native_batch_norm(x, g, b, rm, "
    "rv, True, 0.3, 1e-3)] + [rm, rv]",
    "native_batch_norm_grad_mask": BN + "y, sm, si = torch.native_batch_norm(x, g, b, rm, rv, "
    "True, 0.1, 1e-5); gy = torch.randn(4, 3, 5); out = torch.autograd.grad(y, (x, b), gy)",
    "native_batch_norm_eval_grad": BN + "y = torch.native_batch_norm(x, g, b, rm, rv, False, 0.1,"
    " 1e-5)[0]; out = torch.autograd.grad(y, (x, g, b), torch.randn(4, 3, 5))",
    "batch_norm_empty": "x = torch.randn(0, 3, requires_grad=True); "
    "out = torch._batch_norm_impl_index(x, torch.ones(3), torch.zeros(3), torch.zeros(3), "
    "torch.ones(3), True, 0.1, 1e-5, True)[0]",
    "batchnorm1d_steps": "m = nn.BatchNorm1d(3); m.weight.data.uniform_(); out = []\n"
    "for _ in range(3):\n    x = torch.randn(8, 3, 4, requires_grad=True); y = m(x); "
    "(y * y).sum().backward()\n    out += [y.detach(), x.grad]\n"
    "out += [m.running_mean, m.running_var, m.num_batches_tracked, m.weight.grad, m.bias.grad]"
    "\nm.eval(); out.append(m(torch.randn(5, 3)).detach())",
    "batchnorm2d_cumulative": "m = nn.BatchNorm2d(2, momentum=None, affine=False); out = []\n"
    "for _ in range(3):\n    out.append(m(torch.randn(4, 2, 3, 3)))\n"
    "out += [m.running_mean, m.running_var, m.num_batches_tracked]",
    "batchnorm_untracked_eval": "m = nn.BatchNorm1d(3, track_running_stats=False).eval(); "
    "x = torch.randn(6, 3); out = (m(x).detach(), m.running_mean, list(m.state_dict()))",
    "batchnorm_reprs": "out = [repr(m) for m in (nn.BatchNorm1d(4), nn.BatchNorm2d(3, eps=1e-3, "
    "momentum=None, affine=False, track_running_stats=False), nn.BatchNorm2d(8, bias=False))]"
    " + [list(nn.BatchNorm2d(3).state_dict()), nn.BatchNorm2d(3).num_batches_tracked]",
    "err_batchnorm_one_value": "out = nn.BatchNorm1d(3)(torch.randn(1, 3))",
    "err_batchnorm1d_dim": "out = nn.BatchNorm1d(3)(torch.randn(2, 3, 4, 5))",
    "err_batchnorm2d_dim": "out = nn.BatchNorm2d(3)(torch.randn(2, 3))",
    "err_batch_norm_running_size": "out = torch.batch_norm(torch.randn(2, 3), None, None, "
    "torch.zeros(2), torch.ones(3), True, 0.1, 1e-5, True)",
    "err_batch_norm_eval_no_stats": "out = torch.batch_norm(torch.randn(2, 3), None, None, None, "
    "None, False, 0.1, 1e-5, True)",
    "err_batch_norm_eps": "out = F.batch_norm(torch.randn(2, 3), None, None, training=True, "
    "eps=0.0)",
    "err_batch_norm_long": "out = torch.batch_norm(torch.ones(2, 3, dtype=torch.long), None, "
    "None, None, None, True, 0.1, 1e-5, True)",
    # ---- a tutorial-shaped training loop of each ----
    "train_embedding_layernorm": "class M(nn.Module):\n    def __init__(self):\n"
    "        super().__init__()\n        self.emb = nn.Embedding(10, 8, padding_idx=0)\n"
    "        self.ln = nn.LayerNorm(8)\n        self.fc = nn.Linear(8, 3)\n"
    "    def forward(self, x):\n        return self.fc(self.ln(self.emb(x))).mean(1)\n"
    "m = M(); opt = torch.optim.SGD(m.parameters(), lr=0.1)\n"
    "x = torch.randint(0, 10, (4, 5)); t = torch.tensor([0, 1, 2, 1]); out = []\n"
    "for _ in range(5):\n    opt.zero_grad(); loss = F.cross_entropy(m(x), t); "
    "loss.backward(); opt.step(); out.append(loss.detach())\n"
    "out += [m.emb.weight.detach(), m.ln.weight.detach()]",
    "train_conv_batchnorm": "net = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), "
    "nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 2))\n"
    "opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)\n"
    "x = torch.randn(4, 3, 8, 8); t = torch.tensor([0, 1, 1, 0]); out = []\n"
    "for _ in range(5):\n    opt.zero_grad(); loss = F.cross_entropy(net(x), t); "
    "loss.backward(); opt.step(); out.append(loss.detach())\n"
    "out += [net[1].running_mean, net[1].running_var, net[1].num_batches_tracked, "
    "list(net.state_dict())]\nnet.eval(); out.append(net(x).detach())",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_norm_embedding(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], **CLOSE)
