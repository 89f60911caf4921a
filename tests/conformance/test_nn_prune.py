"""Conformance of torch.nn.utils.prune against torch 2.13: the masks (seeded where the method
draws), weight_orig / weight_mask, the forward pre-hook, containers of several prunings,
global_unstructured, remove, gradients through the mask, and the errors."""

from __future__ import annotations

import pytest

from .harness import check

pytest.importorskip("torch.nn.utils.prune")  # torch's nn.utils does not import it itself

# data and weights from the CPU generator, moved to the harness's device (Linear / Conv2d
# draw from the CPU generator; on the emulated CUDA device randn would draw from its own)
PRE = (
    "nn = torch.nn\nprune = torch.nn.utils.prune\ndev = torch.empty(0).device\n"
    "m = nn.Linear(4, 3, device='cpu').to(dev)\nx = torch.randn(2, 4, device='cpu').to(dev)\n"
)

STATE = "(sorted(n for n, _ in m.named_parameters()), sorted(n for n, _ in m.named_buffers()))"

PROGRAMS = {
    "l1_unstructured": "prune.l1_unstructured(m, 'weight', amount=0.5); "
    f"out = (m.weight_mask, m.weight, {STATE}, 'weight' in m._parameters, "
    "prune.is_pruned(m))",
    "l1_int_amount": "r = prune.l1_unstructured(m, 'bias', amount=2); out = (m.bias, r is m)",
    # rand_like draws on the tensor's device: the randomly pruned modules stay on the CPU (on
    # the emulated CUDA device the draws would come from its own generator), results move to dev
    "random_unstructured": "c = nn.Linear(4, 3, device='cpu'); prune.random_unstructured(c, "
    "'weight', "
    "amount=0.4); out = (c.weight_mask.to(dev), c.weight.to(dev))",
    # random_structured draws torch.rand(nchannels) on the default device: the CPU, as torch's
    "random_structured": "with torch.device('cpu'):\n"
    "    prune.random_structured(m.cpu(), 'weight', amount=1, dim=0)\n"
    "out = m.weight_mask.to(dev)",
    "ln_structured": "prune.ln_structured(m, 'weight', amount=0.5, n=2, dim=1); "
    "out = (m.weight_mask, m.weight)",
    "ln_structured_inf": "c = nn.Conv2d(2, 4, 3, device='cpu').to(dev)\n"
    "prune.ln_structured(c, 'weight', amount=2, n=float('inf'), dim=0); "
    "out = c.weight_mask.sum((1, 2, 3))",
    "custom_from_mask": "mask = torch.tensor([0., 1., 1.]); "
    "prune.custom_from_mask(m, 'bias', mask); out = (m.bias, m.bias_mask)",
    "identity": "prune.identity(m, 'weight'); out = (m.weight, m.weight_mask)",
    "forward_hook_recomputes": "prune.l1_unstructured(m, 'weight', 0.5)\n"
    "with torch.no_grad():\n    m.weight_orig.fill_(2.0)\n"
    "before = m.weight.clone(); y = m(x); out = (before, m.weight, y)",
    "gradient": "prune.l1_unstructured(m, 'weight', 0.5); m(x).sum().backward(); "
    "out = (m.weight_orig.grad, m.bias.grad)",
    "container": "prune.l1_unstructured(m.cpu(), 'weight', 0.25)\n"
    "prune.ln_structured(m, 'weight', amount=1, n=1, dim=0)\n"
    "with torch.device('cpu'):\n    prune.random_structured(m, 'weight', amount=1, dim=1)\n"
    "hook = next(iter(m._forward_pre_hooks.values()))\n"
    "out = (m.weight_mask.to(dev), type(hook).__name__, len(hook), "
    "[type(h).__name__ for h in hook], hook._tensor_name)",
    "importance_scores": "s = torch.arange(12.).view(3, 4).flip(1); "
    "prune.l1_unstructured(m, 'weight', 3, importance_scores=s); out = m.weight_mask",
    "global": "c = nn.Linear(3, 2, device='cpu').to(dev)\n"
    "prune.global_unstructured([(m, 'weight'), (c, 'weight'), (c, 'bias')], "
    "pruning_method=prune.L1Unstructured, amount=0.5)\n"
    "out = (m.weight_mask, c.weight_mask, c.bias_mask)",
    "global_random": "c, d = nn.Linear(3, 2, device='cpu'), nn.Linear(4, 3, device='cpu')\n"
    "prune.global_unstructured([(d, 'weight'), (c, 'weight')], "
    "pruning_method=prune.RandomUnstructured, amount=5)\n"
    "out = (d.weight_mask.to(dev), c.weight_mask.to(dev))",
    "remove": "prune.l1_unstructured(m, 'weight', 0.5); w = m.weight.detach().clone()\n"
    "prune.remove(m, 'weight')\n"
    f"out = (m.weight, type(m.weight).__name__, torch.equal(m.weight, w), {STATE}, "
    "prune.is_pruned(m), len(m._forward_pre_hooks))",
    "state_dict": "prune.l1_unstructured(m, 'weight', 0.5); out = dict(m.state_dict())",
    "method_prune": "p = prune.L1Unstructured(amount=3)\n"
    "t = torch.tensor([3., -1., 2., 0.5, -4.])\n"
    "out = (p.prune(t), p.compute_mask(t, torch.ones(5)))",
    "nested_is_pruned": "s = nn.Sequential(nn.ReLU(), m)\na = prune.is_pruned(s)\n"
    "prune.identity(m, 'bias'); out = (a, prune.is_pruned(s))",
    # ---- errors ----
    "err_amount_float": "out = prune.l1_unstructured(m, 'weight', amount=1.5)",
    "err_amount_negative": "out = prune.random_unstructured(m, 'weight', amount=-1)",
    "err_amount_type": "out = prune.RandomUnstructured(amount='a')",
    "err_amount_too_big": "prune.l1_unstructured(m, 'bias', amount=4)\n"
    "out = (sorted(n for n, _ in m.named_parameters()),)",
    "err_structured_1d": "out = prune.ln_structured(m, 'bias', 1, 2, 0)",
    "err_structured_dim": "out = prune.random_structured(m, 'weight', 1, dim=2)",
    "err_remove_unpruned": "out = prune.remove(m, 'weight')",
    "err_global_not_iterable": "out = prune.global_unstructured(3, prune.L1Unstructured, amount=1)",
    "err_global_structured": "class Rows(prune.RandomStructured):\n    pass\n"
    "out = prune.global_unstructured([(m, 'weight')], Rows, amount=1)",
    "err_importance_shape": "out = prune.l1_unstructured(m, 'weight', 1, "
    "importance_scores=torch.ones(3))",
    "err_custom_mask_shape": "out = prune.custom_from_mask(m, 'weight', torch.ones(2))",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_nn_prune(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], rtol=1e-5, atol=1e-6)
