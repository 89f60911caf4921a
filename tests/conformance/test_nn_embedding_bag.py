"""Conformance of F.embedding_bag / nn.EmbeddingBag (aten::embedding_bag > _embedding_bag or
_embedding_bag_forward_only, and their backward) against torch 2.13: the four results of
torch.embedding_bag, gradients of the weight and of per_sample_weights, reprs and errors."""

from __future__ import annotations

import pytest

from .harness import check

PRE = (
    "nn = torch.nn\nF = torch.nn.functional\n"
    "w = torch.arange(10.).reshape(5, 2); ix = torch.tensor([0, 1, 4, 2, 2])\n"
)

PROGRAMS = {
    "all_results_sum": "out = torch.embedding_bag(w, ix, torch.tensor([0, 2, 2]), False, 0)",
    "all_results_mean": "out = torch.embedding_bag(w, ix, torch.tensor([0, 2, 2]), False, 1)",
    "all_results_max": "out = torch.embedding_bag(w, ix, torch.tensor([0, 2, 2]), False, 2)",
    "all_results_grad": "out = [torch.embedding_bag(w.clone().requires_grad_(), ix, "
    "torch.tensor([0, 2, 2]), False, m)[1:] for m in range(3)]",
    "all_results_padding_last": "out = [torch.embedding_bag(w, ix, torch.tensor([0, 2, 5]), "
    "False, m, False, None, True, 2) for m in range(3)]",
    "all_results_psw": "out = (torch.embedding_bag(w, ix, torch.tensor([0, 2]), False, 0, False, "
    "torch.ones(5), False, 2), torch.embedding_bag(w, ix, torch.tensor([0, 2]), False, 0, "
    "False, torch.linspace(0, 1, 5), False))",
    "int32": "out = (torch.embedding_bag(w, ix.int(), torch.tensor([0, 2], dtype=torch.int32)), "
    "torch.embedding_bag(w, ix.int(), torch.tensor([0, 3]), False, 1))",
    "modes_grad": "res = []\nfor mode in ['sum', 'mean', 'max']:\n"
    "    W = torch.randn(6, 3, requires_grad=True)\n"
    "    y = F.embedding_bag(torch.tensor([1, 2, 2, 5, 0, 2, 3]), W, torch.tensor([0, 3, 3, 5]), "
    "mode=mode)\n    (y * torch.randn(y.shape)).sum().backward()\n"
    "    res.append((y.detach(), W.grad, y.grad_fn.name()))\nout = res",
    "padding_idx_grad": "res = []\nfor mode in ['sum', 'mean', 'max']:\n"
    "    W = torch.randn(6, 3, requires_grad=True)\n"
    "    y = F.embedding_bag(torch.tensor([1, 2, 2, 5, 0, 2, 3]), W, torch.tensor([0, 3, 3, 5]), "
    "mode=mode, padding_idx=2)\n    (y * torch.randn(y.shape)).sum().backward()\n"
    "    res.append((y.detach(), W.grad))\nout = res",
    "per_sample_weights": "W = torch.randn(6, 3, requires_grad=True); "
    "p = torch.randn(7, requires_grad=True); x = torch.tensor([1, 2, 2, 5, 0, 2, 3]); "
    "y = F.embedding_bag(x, W, torch.tensor([0, 3, 3, 5]), mode='sum', per_sample_weights=p); "
    "(y * torch.randn(y.shape)).sum().backward(); out = (y.detach(), W.grad, p.grad)",
    "per_sample_weights_padding": "W = torch.randn(6, 3, requires_grad=True); "
    "p = torch.randn(7, requires_grad=True); x = torch.tensor([1, 2, 2, 5, 0, 2, 3]); "
    "y = F.embedding_bag(x, W, torch.tensor([0, 3]), mode='sum', per_sample_weights=p, "
    "padding_idx=5); y.pow(2).sum().backward(); out = (y.detach(), W.grad, p.grad)",
    "per_sample_weights_only": "W = torch.randn(6, 3); p = torch.randn(2, 3, requires_grad=True); "
    "y = F.embedding_bag(torch.tensor([[1, 2, 2], [5, 0, 3]]), W, mode='sum', "
    "per_sample_weights=p); y.sum().backward(); out = (y.detach(), p.grad)",
    "scale_grad_by_freq": "res = []\nfor mode in ['sum', 'mean']:\n"
    "    W = torch.randn(6, 3, requires_grad=True)\n"
    "    y = F.embedding_bag(torch.tensor([[1, 2, 2, 5, 0, 2, 3], [3, 3, 4, 0, 0, 1, 1]]), W, "
    "mode=mode, scale_grad_by_freq=True)\n    (y * torch.randn(y.shape)).sum().backward()\n"
    "    res.append((y.detach(), W.grad))\nout = res",
    "input_2d": "x = torch.tensor([[0, 2, 4], [1, 1, 3]]); "
    "out = [F.embedding_bag(x, w, mode=m) for m in ('sum', 'mean', 'max')]",
    "include_last_offset": "out = [F.embedding_bag(ix, w, torch.tensor([0, 1, 3, 5]), mode=m, "
    "include_last_offset=True) for m in ('sum', 'mean', 'max')]",
    "empty_bags": "out = [F.embedding_bag(ix, w, torch.tensor([0, 0, 5, 5]), mode=m) "
    "for m in ('sum', 'mean', 'max')]",
    "float64": "W = torch.randn(5, 4, dtype=torch.float64, requires_grad=True); "
    "y = F.embedding_bag(ix, W, torch.tensor([0, 3])); y.pow(2).sum().backward(); "
    "out = (y.detach(), W.grad)",
    "max_norm": "W = torch.randn(5, 4) * 3; y = F.embedding_bag(ix, W, torch.tensor([0, 3]), "
    "max_norm=1.0); out = (y, W)",
    "legacy_order": "out = F.embedding_bag(w, ix.view(1, -1))",
    "module": "m = nn.EmbeddingBag(10, 3, mode='sum'); x = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]); "
    "y = m(x, torch.tensor([0, 4])); y.sum().backward(); out = (y.detach(), m.weight.grad)",
    "module_padding": "m = nn.EmbeddingBag(10, 3, mode='max', padding_idx=-2); "
    "y = m(torch.tensor([[1, 8, 3], [8, 8, 8]])); out = (y, m.weight[8], m.padding_idx)",
    "module_reprs": "out = [repr(nn.EmbeddingBag(10, 3, mode='max', padding_idx=-2)), "
    "repr(nn.EmbeddingBag(4, 2)), repr(nn.EmbeddingBag(4, 2, max_norm=1.0, norm_type=3, "
    "scale_grad_by_freq=True, mode='sum'))]",
    "from_pretrained": "m = nn.EmbeddingBag.from_pretrained(torch.arange(6.).view(3, 2), "
    "include_last_offset=True); out = (m(torch.tensor([0, 1, 2]), torch.tensor([0, 1, 3])), "
    "m.weight.requires_grad, nn.EmbeddingBag.from_pretrained(w, freeze=False, "
    "mode='max').weight.requires_grad)",
    # ---- errors ----
    "err_index_range": "out = F.embedding_bag(torch.tensor([0, 1, 7]), w, torch.tensor([0, 2]), "
    "mode='max')",
    "err_index_range_mean": "out = F.embedding_bag(torch.tensor([0, 1, 7]), w, "
    "torch.tensor([0, 2]))",
    "err_index_range_double": "out = F.embedding_bag(torch.tensor([0, -1]), w.double(), "
    "torch.tensor([0]))",
    "err_float_indices": "out = torch.embedding_bag(w, torch.tensor([0., 1]), torch.tensor([0]))",
    "err_long_weight": "out = torch.embedding_bag(w.long(), ix, torch.tensor([0]))",
    "err_offsets_start": "out = F.embedding_bag(ix, w, torch.tensor([1, 2]))",
    "err_offsets_end": "out = F.embedding_bag(ix, w, torch.tensor([0, 7]))",
    "err_psw_mode": "out = torch.embedding_bag(w, ix, torch.tensor([0]), False, 1, False, "
    "torch.ones(5))",
    "err_psw_dtype": "out = torch.embedding_bag(w, ix, torch.tensor([0]), False, 0, False, "
    "torch.ones(5).double())",
    "err_padding_idx": "out = torch.embedding_bag(w, ix, torch.tensor([0]), False, 0, False, "
    "None, False, 9)",
    "err_f_psw_shape": "out = F.embedding_bag(ix, w, torch.tensor([0]), mode='sum', "
    "per_sample_weights=torch.ones(4))",
    "err_f_psw_mode": "out = F.embedding_bag(ix, w, torch.tensor([0]), "
    "per_sample_weights=torch.ones(5))",
    "err_f_weight_dim": "out = F.embedding_bag(ix, w.view(-1), torch.tensor([0]))",
    "err_f_offsets_2d": "out = F.embedding_bag(ix.view(1, -1), w, [0])",
    "err_f_offsets_none": "out = F.embedding_bag(ix, w)",
    "err_f_offsets_dim": "out = F.embedding_bag(ix, w, torch.tensor([[0]]))",
    "err_f_input_dim": "out = F.embedding_bag(ix.view(1, 1, -1), w)",
    "err_f_mode": "out = F.embedding_bag(ix, w, torch.tensor([0]), mode='min')",
    "err_f_max_freq": "out = F.embedding_bag(ix, w, torch.tensor([0]), mode='max', "
    "scale_grad_by_freq=True)",
    "err_module_padding": "out = nn.EmbeddingBag(4, 2, padding_idx=4)",
    "err_from_pretrained": "out = nn.EmbeddingBag.from_pretrained(torch.ones(3))",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_embedding_bag(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], rtol=1e-5, atol=1e-5)
