"""Conformance of torch.nn's margin, embedding and likelihood losses (cosine_embedding_loss,
margin_ranking_loss, triplet_margin_loss, poisson_nll_loss, gaussian_nll_loss, soft_margin_loss,
multilabel_soft_margin_loss, hinge_embedding_loss, multi_margin_loss, multilabel_margin_loss)
against torch 2.13: values for each reduction, float64, gradients and grad_fn names, module
reprs, legacy arguments, errors (type and message)."""

from __future__ import annotations

import pytest

from .harness import check

PRE = "F = torch.nn.functional\nnn = torch.nn\nR = ('none', 'mean', 'sum')\n"
CLOSE = {"rtol": 1e-5, "atol": 1e-6}

LOSSES = {
    "cosine_embedding": "a = torch.randn(5, 4); b = torch.randn(5, 4); "
    "t = torch.tensor([1., -1., 1., -1., 1.]); out = [F.cosine_embedding_loss(a, b, t, "
    "reduction=r) for r in R] + [F.cosine_embedding_loss(a, b, t, margin=0.3), "
    "torch.cosine_embedding_loss(a[0], b[0], torch.tensor(-1.), 0.1, 0), "
    "F.cosine_embedding_loss(a.double(), b.double(), t.double(), -0.2), "
    "F.cosine_embedding_loss(a, b, torch.tensor([1, 0, -1, 1, 2]))]",
    "margin_ranking": "a = torch.randn(6); b = torch.randn(6); t = torch.randn(6).sign(); "
    "out = [F.margin_ranking_loss(a, b, t, reduction=r) for r in R] + "
    "[F.margin_ranking_loss(a, b, t, margin=0.5), torch.margin_ranking_loss(a, b, t, 0.2, 2), "
    "F.margin_ranking_loss(a.double(), b.double(), t.double(), 0.1), "
    "F.margin_ranking_loss(a.view(2, 3), b.view(2, 3), t.view(2, 3))]",
    "hinge_embedding": "x = torch.randn(4, 5); t = torch.randn(4, 5).sign(); "
    "out = [F.hinge_embedding_loss(x, t, reduction=r) for r in R] + "
    "[F.hinge_embedding_loss(x, t, margin=0.5), torch.hinge_embedding_loss(x, t, 2., 0), "
    "F.hinge_embedding_loss(x.double(), t.double()), "
    "F.hinge_embedding_loss(x, torch.tensor([1., -1., 0., 1., 2.]), reduction='none')]",
    "triplet_margin": "a, p, n = torch.randn(5, 8), torch.randn(5, 8), torch.randn(5, 8); "
    "out = [F.triplet_margin_loss(a, p, n, reduction=r) for r in R] + "
    "[F.triplet_margin_loss(a, p, n, margin=2., p=1), F.triplet_margin_loss(a, p, n, swap=True,"
    " reduction='none'), F.triplet_margin_loss(a, p, n, p=3, eps=1e-3), "
    "torch.triplet_margin_loss(a[0], p[0], n[0], 1., 2., 1e-6, False, 1), "
    "F.triplet_margin_loss(a.double(), p.double(), n.double(), swap=True)]",
    "poisson_nll": "x = torch.randn(4, 5); t = torch.rand(4, 5) * 4; "
    "out = [F.poisson_nll_loss(x, t, reduction=r) for r in R] + "
    "[F.poisson_nll_loss(x, t, full=True), F.poisson_nll_loss(x.exp(), t, log_input=False), "
    "F.poisson_nll_loss(x.exp(), t, log_input=False, full=True, eps=1e-3, reduction='none'), "
    "torch.poisson_nll_loss(x, t, True, True, 1e-8, 0), "
    "F.poisson_nll_loss(x.double(), t.double(), full=True)]",
    "gaussian_nll": "x = torch.randn(4, 3); t = torch.randn(4, 3); v = torch.rand(4, 3); "
    "out = [F.gaussian_nll_loss(x, t, v, reduction=r) for r in R] + "
    "[F.gaussian_nll_loss(x, t, v, full=True), F.gaussian_nll_loss(x, t, torch.rand(4)), "
    "F.gaussian_nll_loss(x, t, torch.rand(4, 1), reduction='none'), "
    "F.gaussian_nll_loss(x, t, 0.5), F.gaussian_nll_loss(x, t, torch.zeros(4, 3), eps=1e-2), "
    "F.gaussian_nll_loss(x.double(), t.double(), v.double(), full=True)]",
    "soft_margin": "x = torch.randn(4, 5); t = torch.randn(4, 5).sign(); "
    "out = [F.soft_margin_loss(x, t, reduction=r) for r in R] + "
    "[torch._C._nn.soft_margin_loss(x, t), F.soft_margin_loss(x.double(), t.double())]",
    "soft_margin_out": "x = torch.randn(4, 5); t = torch.randn(4, 5).sign(); o = torch.empty(0);"
    " p = torch.empty(3); torch._C._nn.soft_margin_loss(x, t, 2, out=o); "
    "torch._C._nn.soft_margin_loss(x, t, 0, out=p); out = (o, p)",
    "multilabel_soft_margin": "x = torch.randn(4, 5); t = (torch.rand(4, 5) > 0.5).float(); "
    "w = torch.rand(5); out = [F.multilabel_soft_margin_loss(x, t, reduction=r) for r in R] + "
    "[F.multilabel_soft_margin_loss(x, t, weight=w), F.multilabel_soft_margin_loss(x.double(), "
    "t.double(), reduction='none')]",
    "multi_margin": "x = torch.randn(4, 5); y = torch.tensor([0, 4, 2, 2]); w = torch.rand(5); "
    "out = [F.multi_margin_loss(x, y, reduction=r) for r in R] + "
    "[F.multi_margin_loss(x, y, p=2), F.multi_margin_loss(x, y, margin=0.3, weight=w), "
    "F.multi_margin_loss(x, y, p=2, weight=w, reduction='none'), "
    "F.multi_margin_loss(x[0], y[1]), F.multi_margin_loss(x[0], y[1], reduction='none'), "
    "F.multi_margin_loss(x[0], y[1:2], reduction='none'), "
    "F.multi_margin_loss(x.double(), y, weight=w.double()), "
    "torch._C._nn.multi_margin_loss(x, y, 1, 2.)]",
    # (with a reduction, torch returns the uninitialized scalar: not compared)
    "multi_margin_empty": "out = F.multi_margin_loss(torch.randn(0, 3), torch.zeros(0, "
    "dtype=torch.long), reduction='none')",
    "multilabel_margin": "x = torch.randn(3, 4); y = torch.tensor([[3, 0, -1, 1], [0, 1, 2, 3],"
    " [-1, 0, 0, 0]]); out = [F.multilabel_margin_loss(x, y, reduction=r) for r in R] + "
    "[F.multilabel_margin_loss(x[0], y[0]), F.multilabel_margin_loss(x[0], y[0], "
    "reduction='none'), F.multilabel_margin_loss(x.double(), y), "
    "torch._C._nn.multilabel_margin_loss(x, y, 0)]",
    "scalar_inputs": "out = (F.multi_margin_loss(torch.tensor(0.5), torch.tensor(0)), "
    "F.multi_margin_loss(torch.tensor(0.5), torch.tensor(0), reduction='none'), "
    "F.multilabel_margin_loss(torch.tensor(0.5), torch.tensor(0)), "
    "F.multilabel_margin_loss(torch.randn(0, 3), torch.zeros(0, 3, dtype=torch.long), "
    "reduction='none'), F.cosine_embedding_loss(torch.randn(4), torch.randn(4), "
    "torch.tensor(1.), reduction='none'))",
    "legacy_arguments": "x = torch.randn(4, 5); y = torch.tensor([0, 4, 2, 2]); "
    "t = torch.randn(4, 5).sign(); out = (F.multi_margin_loss(x, y, size_average=False), "
    "F.soft_margin_loss(x, t, reduce=False), F.hinge_embedding_loss(x, t, size_average=False), "
    "F.poisson_nll_loss(x, t.abs(), reduce=False), F.multilabel_soft_margin_loss(x, t.abs(), "
    "size_average=False), F.triplet_margin_loss(x, t, -t, reduce=False))",
    "loss_modules": "x = torch.randn(4, 5); y = torch.randn(4, 5); t = torch.randn(4).sign(); "
    "c = torch.tensor([0, 4, 2, 2]); s = torch.randn(4, 5).sign(); "
    "out = [nn.CosineEmbeddingLoss(0.1)(x, y, t), nn.MarginRankingLoss(0.2)(x[:, 0], y[:, 0], t),"
    " nn.TripletMarginLoss(p=1, swap=True)(x, y, -y), nn.PoissonNLLLoss(full=True)(x, y.abs()), "
    "nn.GaussianNLLLoss(full=True)(x, y, torch.ones(4, 5)), nn.SoftMarginLoss()(x, s), "
    "nn.MultiLabelSoftMarginLoss(weight=torch.rand(5))(x, s.abs()), "
    "nn.HingeEmbeddingLoss(reduction='sum')(x, s), nn.MultiMarginLoss(p=2, margin=0.5)(x, c), "
    "nn.MultiLabelMarginLoss()(x, torch.tensor([[1, 0, -1, 0, 0]] * 4)), "
    "nn.MultiMarginLoss(weight=torch.rand(5), reduction='none')(x, c)]",
}

REPRS = {
    "reprs": "out = [repr(m) for m in (nn.CosineEmbeddingLoss(), nn.MarginRankingLoss(0.5), "
    "nn.TripletMarginLoss(), nn.PoissonNLLLoss(), nn.GaussianNLLLoss(), nn.SoftMarginLoss(), "
    "nn.MultiLabelSoftMarginLoss(), nn.HingeEmbeddingLoss(), nn.MultiMarginLoss(), "
    "nn.MultiLabelMarginLoss())]",
    "attributes": "ms = (nn.CosineEmbeddingLoss(0.2, reduction='sum'), "
    "nn.MarginRankingLoss(size_average=False), nn.TripletMarginLoss(2., 1., 1e-3, True), "
    "nn.PoissonNLLLoss(False, True, eps=1e-4), nn.GaussianNLLLoss(full=True, eps=1e-3), "
    "nn.HingeEmbeddingLoss(0.5, reduce=False), nn.MultiMarginLoss(2, 0.5, torch.ones(3)), "
    "nn.MultiLabelSoftMarginLoss(torch.ones(3))); out = [sorted((k, v) for k, v in "
    "vars(m).items() if not k.startswith('_') and k != 'training') for m in ms] + "
    "[ms[6].weight, ms[7].weight, [n for n, _ in ms[6].named_buffers()]]",
}

ERRORS = {
    "cosine_target_dims": "F.cosine_embedding_loss(torch.randn(4), torch.randn(4), "
    "torch.ones(2, 2))",
    "cosine_1d_target": "F.cosine_embedding_loss(torch.randn(3, 4), torch.randn(4), torch.ones(3))",
    "cosine_0d_target": "F.cosine_embedding_loss(torch.randn(4), torch.randn(3, 4), "
    "torch.tensor(1.))",
    "margin_ranking_dims": "F.margin_ranking_loss(torch.randn(3), torch.randn(3, 1), "
    "torch.ones(3))",
    "margin_ranking_sizes": "torch.margin_ranking_loss(torch.randn(3), torch.randn(2), "
    "torch.ones(3))",
    "triplet_dims": "F.triplet_margin_loss(torch.randn(3, 4), torch.randn(4), torch.randn(3, 4))",
    "triplet_margin": "F.triplet_margin_loss(torch.randn(3, 4), torch.randn(3, 4), "
    "torch.randn(3, 4), margin=0.)",
    "triplet_module_margin": "nn.TripletMarginLoss(margin=-1.)",
    "poisson_reduction": "F.poisson_nll_loss(torch.randn(3), torch.rand(3), reduction='avg')",
    "gaussian_negative_var": "F.gaussian_nll_loss(torch.randn(3, 4), torch.randn(3, 4), "
    "-torch.ones(3, 4))",
    "gaussian_negative_float_var": "F.gaussian_nll_loss(torch.randn(3), torch.randn(3), -1.)",
    "gaussian_var_size": "F.gaussian_nll_loss(torch.randn(3, 4), torch.randn(3, 4), "
    "torch.ones(3, 2))",
    "gaussian_reduction": "F.gaussian_nll_loss(torch.randn(3), torch.randn(3), torch.ones(3), "
    "reduction='x')",
    "hinge_int": "F.hinge_embedding_loss(torch.arange(3), torch.tensor([1, -1, 1]))",
    "soft_margin_int": "F.soft_margin_loss(torch.arange(3), torch.tensor([1, -1, 1]))",
    "multilabel_soft_margin_shape": "F.multilabel_soft_margin_loss(torch.randn(3, 4), "
    "torch.ones(3, 2))",
    "multilabel_soft_margin_reduction": "F.multilabel_soft_margin_loss(torch.randn(3, 4), "
    "torch.ones(3, 4), reduction='x')",
    "multi_margin_p": "F.multi_margin_loss(torch.randn(3, 4), torch.tensor([1, 2, 3]), p=3)",
    "multi_margin_p_binding": "torch._C._nn.multi_margin_loss(torch.randn(3, 4), "
    "torch.tensor([1, 2, 3]), 3)",
    "multi_margin_weight_dims": "F.multi_margin_loss(torch.randn(3, 4), torch.tensor([1, 2, 3]),"
    " weight=torch.ones(1, 4))",
    "multi_margin_weight_size": "F.multi_margin_loss(torch.randn(3, 4), torch.tensor([1, 2, 3]),"
    " weight=torch.ones(3))",
    "multi_margin_target_size": "F.multi_margin_loss(torch.randn(3, 4), torch.tensor([1, 2]))",
    "multi_margin_target_range": "F.multi_margin_loss(torch.randn(3, 4), torch.tensor([1, 2, 4]))",
    "multi_margin_input_dims": "F.multi_margin_loss(torch.randn(3, 4, 2), torch.tensor([1, 2, 3]))",
    "multi_margin_target_dtype": "F.multi_margin_loss(torch.randn(3, 4), torch.tensor([1, 2, 3],"
    " dtype=torch.int32))",
    "multi_margin_weight_dtype": "F.multi_margin_loss(torch.randn(3, 4), torch.tensor([1, 2, 3]),"
    " weight=torch.ones(4).double())",
    "multi_margin_int": "F.multi_margin_loss(torch.arange(12).view(3, 4), torch.tensor([1, 2, 3]))",
    "multi_margin_module_p": "nn.MultiMarginLoss(p=3)",
    "multi_margin_module_weight": "nn.MultiMarginLoss(weight=torch.ones(2, 2))",
    "multilabel_margin_range": "F.multilabel_margin_loss(torch.randn(3, 4), "
    "torch.tensor([[1, 2, -1, 0], [1, 2, -1, 0], [5, 0, 0, 0]]))",
    "multilabel_margin_negative": "F.multilabel_margin_loss(torch.randn(3, 4), "
    "torch.tensor([[1, 2, -2, 0]] * 3))",
    "multilabel_margin_size": "F.multilabel_margin_loss(torch.randn(3, 4), "
    "torch.tensor([[1, 2, -1, 0]] * 2))",
    "multilabel_margin_dtype": "F.multilabel_margin_loss(torch.randn(3, 4), "
    "torch.tensor([[1, 2, -1, 0]] * 3, dtype=torch.int32))",
    "multilabel_margin_int": "F.multilabel_margin_loss(torch.arange(4), torch.tensor([1, -1, 0, "
    "0]))",
    # torch has no derivative for these backward ops: double backward raises
    "multi_margin_double_backward": "x = torch.randn(3, 4, requires_grad=True); "
    "g, = torch.autograd.grad(F.multi_margin_loss(x, torch.tensor([0, 1, 2])), x, "
    "create_graph=True); torch.autograd.grad(g.sum(), x)",
    "multilabel_margin_double_backward": "x = torch.randn(3, 4, requires_grad=True); "
    "g, = torch.autograd.grad(F.multilabel_margin_loss(x, torch.tensor([[0, -1, 0, 0]] * 3)), x,"
    " create_graph=True); torch.autograd.grad(g.sum(), x)",
    "bad_reduction": "F.soft_margin_loss(torch.rand(2), torch.rand(2), reduction='avg')",
}

GRAD = (
    "x = torch.randn(4, 5, requires_grad=True); l = {expr}; l.backward(torch.ones_like(l) * 0.7);"
    " out = (l, x.grad, l.grad_fn.name())"
)
GRADS = {
    f"{name}_{r}": GRAD.format(expr=expr.replace("R_", repr(r)))
    for name, expr in (
        ("soft_margin", "F.soft_margin_loss(x * 2, torch.randn(4, 5).sign(), reduction=R_)"),
        (
            "multi_margin",
            "F.multi_margin_loss(x, torch.tensor([0, 4, 2, 2]), reduction=R_)",
        ),
        (
            "multi_margin_p2_weight",
            "F.multi_margin_loss(x, torch.tensor([1, 3, 2, 0]), p=2, margin=0.7, "
            "weight=torch.rand(5), reduction=R_)",
        ),
        (
            "multilabel_margin",
            "F.multilabel_margin_loss(x, torch.tensor([[3, 0, -1, 1, 0], [0, 1, 2, 3, 4], "
            "[-1, 0, 0, 0, 0], [4, 4, -1, 0, 0]]), reduction=R_)",
        ),
        ("hinge", "F.hinge_embedding_loss(x, torch.randn(4, 5).sign(), reduction=R_)"),
        ("poisson", "F.poisson_nll_loss(x, torch.rand(4, 5) * 3, full=True, reduction=R_)"),
        (
            "multilabel_soft_margin",
            "F.multilabel_soft_margin_loss(x, (torch.rand(4, 5) > 0.5).float(), "
            "weight=torch.rand(5), reduction=R_)",
        ),
    )
    for r in ("none", "mean", "sum")
}
GRADS["cosine_embedding"] = (
    "a = torch.randn(5, 4, requires_grad=True); b = torch.randn(5, 4, requires_grad=True); "
    "l = F.cosine_embedding_loss(a, b, torch.tensor([1., -1., 1., -1., -1.]), margin=-0.5); "
    "l.backward(); out = (l, a.grad, b.grad, l.grad_fn.name())"
)
GRADS["margin_ranking"] = (
    "a = torch.randn(6, requires_grad=True); b = torch.randn(6, requires_grad=True); "
    "t = torch.randn(6, requires_grad=True); l = F.margin_ranking_loss(a, b, t.sign() * t.abs()"
    ", 0.3); l.backward(); out = (l, a.grad, b.grad, t.grad, l.grad_fn.name())"
)
GRADS["triplet"] = (
    "a, p, n = (torch.randn(5, 8, requires_grad=True) for _ in range(3)); "
    "l = F.triplet_margin_loss(a, p, n, margin=2., swap=True); l.backward(); "
    "out = (l, a.grad, p.grad, n.grad, l.grad_fn.name())"
)
GRADS["gaussian"] = (
    "x = torch.randn(4, 3, requires_grad=True); v = torch.rand(4, 1, requires_grad=True); "
    "l = F.gaussian_nll_loss(x, torch.randn(4, 3), v, full=True); l.backward(); "
    "out = (l, x.grad, v.grad, l.grad_fn.name())"
)
GRADS["double_precision"] = (
    "x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True); "
    "l = F.multi_margin_loss(x, torch.tensor([0, 3, 1]), p=2) + F.multilabel_margin_loss(x, "
    "torch.tensor([[1, -1, 0, 0], [2, 3, -1, 0], [0, 1, 2, -1]])) + F.soft_margin_loss(x, "
    "torch.ones(3, 4)); l.backward(); out = (l, x.grad)"
)
GRADS["multilabel_margin_repeated_targets"] = (
    "x = torch.randn(2, 4, requires_grad=True); l = F.multilabel_margin_loss(x, "
    "torch.tensor([[1, 1, 2, -1], [3, 0, 3, 0]]), reduction='sum'); l.backward(); "
    "out = (l, x.grad)"
)
GRADS["double_backward_soft_margin"] = (
    "x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True); "
    "t = torch.randn(3, 4, dtype=torch.float64).sign(); res = []\n"
    "for r in R:\n"
    "    go = torch.rand(3, 4, dtype=torch.float64, requires_grad=True) if r == 'none' else "
    "torch.rand((), dtype=torch.float64, requires_grad=True)\n"
    "    g, = torch.autograd.grad(F.soft_margin_loss(x * 2, t, reduction=r), x, go, "
    "create_graph=True)\n"
    "    res.append((g.grad_fn.name(), torch.autograd.grad((g * g).sum(), [x, go])))\n"
    "out = res"
)

TRAINING = """
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(6, 8), nn.SELU(), nn.Linear(8, 4))
opt = torch.optim.SGD(net.parameters(), lr=0.05)
x = torch.randn(12, 6); y = torch.randint(0, 4, (12,))
mm, sm = nn.MultiMarginLoss(margin=0.5), nn.MultiLabelSoftMarginLoss()
losses = []
for _ in range(4):
    opt.zero_grad()
    h = net(x)
    loss = mm(h, y) + sm(h, F.one_hot(y, 4).float())
    loss.backward()
    opt.step()
    losses.append(loss.detach())
out = (torch.stack(losses), net[2].weight.detach())
"""


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_loss(name: str) -> None:
    check(PRE + LOSSES[name], **CLOSE)


@pytest.mark.parametrize("name", sorted(REPRS))
def test_repr(name: str) -> None:
    check(PRE + REPRS[name])


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error(name: str) -> None:
    check(PRE + ERRORS[name])


@pytest.mark.parametrize("name", sorted(GRADS))
def test_grad(name: str) -> None:
    check(PRE + GRADS[name], **CLOSE)


def test_training_multi_margin_multilabel_soft_margin() -> None:
    check(PRE + TRAINING, rtol=1e-4, atol=1e-5)
