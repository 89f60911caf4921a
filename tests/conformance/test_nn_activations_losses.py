"""Conformance of torch.nn's activations (gelu, leaky_relu, elu, silu, mish, softplus, hardtanh,
relu6, logsigmoid, glu, softsign, tanhshrink) and losses against torch 2.13: values, dtypes,
in-place variants, gradients and grad_fn names, module reprs, errors (type and message)."""

from __future__ import annotations

import pytest

from .harness import check

PRE = "F = torch.nn.functional\nnn = torch.nn\n"
# erf, exp, log1p and tanh are NumPy's (double-rounded for float32 where torch uses SLEEF's
# float32 polynomials), so float32 results may differ in the last bits
CLOSE = {"rtol": 1e-5, "atol": 1e-6}

ACTIVATIONS = {
    "gelu": "x = torch.randn(4, 5) * 3; out = (F.gelu(x), F.gelu(x, approximate='tanh'), "
    "torch._C._nn.gelu(x))",
    "gelu_double_half": "x = torch.randn(6) * 3; out = (F.gelu(x.double()), F.gelu(x.half()), "
    "F.gelu(x.double(), approximate='tanh'))",
    "gelu_inplace": "x = torch.randn(3, 4); y = torch._C._nn.gelu_(x); out = (x, y is x)",
    "leaky_relu": "x = torch.randn(4, 5); out = (F.leaky_relu(x), F.leaky_relu(x, 0.2), "
    "F.leaky_relu(x, -0.5))",
    "leaky_relu_inplace": "x = torch.randn(3, 4); y = F.leaky_relu(x, 0.1, inplace=True); "
    "out = (x, y is x)",
    "elu": "x = torch.randn(4, 5) * 3; out = (F.elu(x), F.elu(x, alpha=0.5), "
    "torch._C._nn.elu(x, 1.5, 2.0, 0.5))",
    "elu_inplace": "x = torch.randn(3, 4); y = F.elu(x, inplace=True); out = (x, y is x)",
    "silu_mish": "x = torch.randn(4, 5) * 4; out = (F.silu(x), F.mish(x))",
    "silu_mish_inplace": "x = torch.randn(3, 4); z = x.clone(); a = F.silu(x, inplace=True); "
    "b = F.mish(z, inplace=True); out = (x, z, a is x, b is z)",
    "softplus": "x = torch.randn(4, 5) * 10; out = (F.softplus(x), F.softplus(x, beta=2), "
    "F.softplus(x, beta=0.5, threshold=3))",
    "hardtanh": "x = torch.randn(4, 5) * 3; out = (F.hardtanh(x), F.hardtanh(x, -2., 0.5), "
    "F.relu6(x * 3))",
    "hardtanh_inplace": "x = torch.randn(3, 4) * 8; z = x.clone(); a = F.hardtanh(x, "
    "inplace=True); b = F.relu6(z, inplace=True); out = (x, z, a is x, b is z)",
    "hardtanh_integer": "x = torch.arange(-4, 8); out = (F.hardtanh(x), F.hardtanh(x, -1.5, 2.5),"
    " F.relu6(x), F.hardtanh(x.to(torch.uint8), 1, 3))",
    "logsigmoid": "x = torch.randn(4, 5) * 30; out = (F.logsigmoid(x), torch._C._nn."
    "log_sigmoid(x.double()))",
    "glu": "x = torch.randn(4, 6); out = (F.glu(x), F.glu(x, 0), F.glu(x.t(), 1), "
    "F.glu(torch.randn(2, 4, 3), 1))",
    "softsign_tanhshrink": "x = torch.randn(4, 5) * 3; out = (F.softsign(x), F.tanhshrink(x), "
    "F.softsign(torch.arange(4)))",
    "noncontiguous": "x = torch.randn(5, 4).t(); out = (F.gelu(x), F.elu(x), F.silu(x), "
    "F.leaky_relu(x), F.softplus(x), F.mish(x), F.hardtanh(x))",
    "empty": "x = torch.randn(0, 3); out = (F.gelu(x), F.elu(x), F.silu(x), F.glu(x))",
    "out_variants": "x = torch.randn(3, 4); o = torch.empty(3, 4); torch._C._nn.gelu(x, "
    "out=o); p = torch.empty(3, 4); torch._C._nn.elu(x, out=p); out = (o, p)",
    "modules": "x = torch.randn(4, 6); ms = [nn.GELU(), nn.GELU('tanh'), nn.LeakyReLU(0.2), "
    "nn.ELU(0.7), nn.SiLU(), nn.Mish(), nn.Softplus(2, 10), nn.Hardtanh(-0.5, 0.5), "
    "nn.ReLU6(), nn.LogSigmoid(), nn.GLU(), nn.Softsign(), nn.Tanhshrink(), "
    "nn.LogSoftmax(1), nn.Softmax(dim=0)]; out = [m(x) for m in ms]",
}

REPRS = {
    "activation_reprs": "out = [repr(m) for m in (nn.GELU(), nn.GELU(approximate='tanh'), "
    "nn.LeakyReLU(), nn.LeakyReLU(0.2, inplace=True), nn.ELU(), nn.ELU(0.5, True), nn.SiLU(), "
    "nn.SiLU(True), nn.Mish(inplace=True), nn.Softplus(), nn.Softplus(2, 5), nn.Hardtanh(), "
    "nn.Hardtanh(-2, 3, True), nn.ReLU6(), nn.ReLU6(True), nn.LogSigmoid(), nn.GLU(), "
    "nn.GLU(0), nn.Softsign(), nn.Tanhshrink(), nn.LogSoftmax(dim=1), nn.Softmax(-1), "
    "nn.Sequential(nn.Linear(2, 3), nn.GELU(), nn.Linear(3, 1), nn.Sigmoid()))]",
    "hardtanh_deprecated_kwargs": "import warnings\nwith warnings.catch_warnings(record=True) "
    "as w:\n    warnings.simplefilter('always')\n    m = nn.Hardtanh(min_value=-2, "
    "max_value=2)\nout = (repr(m), [(c.category.__name__, str(c.message)) for c in w])",
}

ACTIVATION_ERRORS = {
    "gelu_int": "F.gelu(torch.arange(4))",
    "gelu_tanh_int": "F.gelu(torch.arange(4), approximate='tanh')",
    "gelu_bad_approximate": "F.gelu(torch.randn(3), approximate='erf')",
    "leaky_relu_int": "F.leaky_relu(torch.arange(4))",
    "elu_int": "F.elu(torch.arange(4))",
    "silu_int": "F.silu(torch.arange(4))",
    "mish_int": "F.mish(torch.arange(4))",
    "softplus_int": "F.softplus(torch.arange(4))",
    "logsigmoid_int": "F.logsigmoid(torch.arange(4))",
    "glu_int": "F.glu(torch.arange(4))",
    "glu_odd": "F.glu(torch.randn(3, 5))",
    "glu_scalar": "F.glu(torch.tensor(1.))",
    "glu_scalar_binding": "torch._C._nn.glu(torch.tensor(1.))",
    "glu_bad_dim": "F.glu(torch.randn(3, 4), 2)",
    "hardtanh_bool": "F.hardtanh(torch.tensor([True, False]))",
    "hardtanh_uint8_negative": "F.hardtanh(torch.arange(4).to(torch.uint8))",
    "hardtanh_min_gt_max": "F.hardtanh(torch.randn(3), 2., 1.)",
    "hardtanh_module_bounds": "nn.Hardtanh(1., 1.)",
    "elu_inplace_negative_alpha_backward": "x = torch.randn(3, requires_grad=True); "
    "F.elu(x.clone(), alpha=-1., inplace=True).sum().backward()",
    "leaky_relu_inplace_negative_backward": "x = torch.randn(3, requires_grad=True); "
    "F.leaky_relu(x.clone(), -0.1, inplace=True).sum().backward()",
    "leaky_relu_leaf_inplace": "F.leaky_relu(torch.randn(3, requires_grad=True), inplace=True)",
}

GRAD = (
    "x = torch.randn(4, 6, requires_grad=True); g = torch.randn(4, {cols}); y = {expr}; "
    "y.backward(g); out = (y, x.grad, y.grad_fn.name())"
)
ACTIVATION_GRADS = {
    name: GRAD.format(cols=cols, expr=expr)
    for name, cols, expr in (
        ("gelu", 6, "F.gelu(x * 2)"),
        ("gelu_tanh", 6, "F.gelu(x * 2, approximate='tanh')"),
        ("leaky_relu", 6, "F.leaky_relu(x, 0.3)"),
        ("elu", 6, "F.elu(x * 2, alpha=0.7)"),
        ("elu_scaled", 6, "torch._C._nn.elu(x, 1.5, 2.0, 0.5)"),
        ("silu", 6, "F.silu(x * 3)"),
        ("mish", 6, "F.mish(x * 3)"),
        ("softplus", 6, "F.softplus(x * 5, beta=2, threshold=4)"),
        ("hardtanh", 6, "F.hardtanh(x * 2, -1., 0.5)"),
        ("relu6", 6, "F.relu6(x * 6)"),
        ("logsigmoid", 6, "F.logsigmoid(x * 10)"),
        ("glu", 3, "F.glu(x)"),
        ("softsign", 6, "F.softsign(x)"),
        ("tanhshrink", 6, "F.tanhshrink(x)"),
        ("elu_inplace", 6, "F.elu(x * 2, inplace=True)"),
        ("leaky_relu_inplace", 6, "F.leaky_relu(x * 2, 0.2, inplace=True)"),
        ("hardtanh_inplace", 6, "F.hardtanh(x * 2, inplace=True)"),
        ("silu_inplace", 6, "F.silu(x * 2, inplace=True)"),
        ("gelu_inplace", 6, "torch._C._nn.gelu_(x * 2)"),
    )
}
ACTIVATION_GRADS["glu_dim0"] = (
    "x = torch.randn(4, 3, requires_grad=True); y = F.glu(x, 0); y.backward(torch.randn(2, 3)); "
    "out = (x.grad, y.grad_fn.name())"
)
# mish's grad-mode formula needs log1p's derivative, which tensortrace does not have yet
ACTIVATION_GRADS["double_backward_silu_elu"] = (
    "x = torch.randn(5, dtype=torch.float64, requires_grad=True); "
    "gs = [torch.autograd.grad(f(x).sum(), x, create_graph=True)[0] for f in (F.silu, F.elu)]; "
    "out = [torch.autograd.grad(g.sum(), x)[0] for g in gs]"
)


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation(name: str) -> None:
    check(PRE + ACTIVATIONS[name], **CLOSE)


@pytest.mark.parametrize("name", sorted(REPRS))
def test_repr(name: str) -> None:
    check(PRE + REPRS[name])


@pytest.mark.parametrize("name", sorted(ACTIVATION_ERRORS))
def test_activation_error(name: str) -> None:
    check(PRE + ACTIVATION_ERRORS[name])


@pytest.mark.parametrize("name", sorted(ACTIVATION_GRADS))
def test_activation_grad(name: str) -> None:
    check(PRE + ACTIVATION_GRADS[name], rtol=1e-5, atol=1e-6)


# ---- losses ------------------------------------------------------------------------------------
REDUCTIONS = "('none', 'mean', 'sum')"
LOSSES = {
    "l1_loss": f"x = torch.randn(4, 5); y = torch.randn(4, 5); out = [F.l1_loss(x, y, "
    f"reduction=r) for r in {REDUCTIONS}] + [F.l1_loss(x, y, weight=torch.rand(4, 5))]",
    "bce": f"x = torch.rand(4, 5); y = torch.rand(4, 5); out = [F.binary_cross_entropy(x, y, "
    f"reduction=r) for r in {REDUCTIONS}]",
    "bce_weight_edges": "x = torch.tensor([0., 1., 0.5, 1e-30]); y = torch.tensor([0., 1., 1., "
    "1.]); out = [F.binary_cross_entropy(x, y, weight=w, reduction=r) for w in (None, "
    "torch.rand(4)) for r in ('none', 'mean', 'sum')]",
    "bce_weight_broadcast": "x = torch.rand(3, 4); out = F.binary_cross_entropy(x, torch.rand(3, "
    "4), weight=torch.rand(4), reduction='none')",
    "smooth_l1": f"x = torch.randn(4, 5) * 2; y = torch.randn(4, 5); out = [F.smooth_l1_loss(x, "
    f"y, reduction=r, beta=b) for r in {REDUCTIONS} for b in (1.0, 0.3, 0.0)]",
    "kl_div": "x = torch.randn(4, 5).log_softmax(1); y = torch.randn(4, 5).softmax(1); "
    "out = [F.kl_div(x, t, reduction=r, log_target=lt) for r in ('none', 'sum', 'batchmean') "
    "for (t, lt) in ((y, False), (y.log(), True))]",
    "kl_div_mean_warns": "import warnings\nwith warnings.catch_warnings(record=True) as w:\n"
    "    warnings.simplefilter('always')\n    v = F.kl_div(torch.randn(3).log_softmax(0), "
    "torch.rand(3))\nout = (v, [str(c.message) for c in w])",
    "size_warning": "import warnings\nwith warnings.catch_warnings(record=True) as w:\n"
    "    warnings.simplefilter('always')\n    v = (F.l1_loss(torch.randn(3), torch.randn(2, 3)), "
    "F.smooth_l1_loss(torch.randn(3), torch.randn(2, 3)))\nout = (v, [str(c.message) for c in w])",
    "loss_modules": "x = torch.rand(4, 5); y = torch.rand(4, 5); out = [m(x, y) for m in ("
    "nn.L1Loss(), nn.BCELoss(), nn.BCELoss(weight=torch.rand(5), reduction='sum'), "
    "nn.SmoothL1Loss(beta=0.5), nn.KLDivLoss(reduction='batchmean'), nn.L1Loss(reduction='none'))]"
    " + [repr(nn.BCELoss()), repr(nn.SmoothL1Loss()), repr(nn.KLDivLoss())]",
    "legacy_size_average": "x = torch.rand(4); y = torch.rand(4); out = (F.l1_loss(x, y, "
    "size_average=False), F.binary_cross_entropy(x, y, reduce=False))",
}
LOSS_ERRORS = {
    "bce_input_range": "F.binary_cross_entropy(torch.tensor([1.5]), torch.tensor([1.]))",
    "bce_target_range": "F.binary_cross_entropy(torch.tensor([0.5]), torch.tensor([2.]))",
    "bce_int": "F.binary_cross_entropy(torch.arange(3), torch.arange(3))",
    "bce_size": "F.binary_cross_entropy(torch.rand(3), torch.rand(2, 3))",
    "l1_int": "F.l1_loss(torch.arange(3), torch.arange(3))",
    "smooth_l1_int": "F.smooth_l1_loss(torch.arange(3), torch.arange(3))",
    "smooth_l1_negative_beta": "F.smooth_l1_loss(torch.rand(2), torch.rand(2), beta=-1.)",
    "kl_div_int": "F.kl_div(torch.arange(3), torch.arange(3), reduction='sum')",
    "bad_reduction": "F.l1_loss(torch.rand(2), torch.rand(2), reduction='avg')",
}
LOSS_GRADS = {
    "grad_l1": "x = torch.randn(4, 5, requires_grad=True); y = torch.randn(4, 5, requires_grad="
    "True); l = F.l1_loss(x, y); l.backward(); out = (x.grad, y.grad, l.grad_fn.name())",
    "grad_bce": "x = torch.rand(4, 5, requires_grad=True); y = torch.rand(4, 5, requires_grad="
    "True); l = F.binary_cross_entropy(x, y, weight=torch.rand(5)); l.backward(); out = (l, "
    "x.grad, y.grad, l.grad_fn.name())",
    "grad_bce_sum_none": "x = torch.rand(4, requires_grad=True); F.binary_cross_entropy(x, "
    "torch.rand(4), reduction='none').backward(torch.rand(4)); a = x.grad.clone(); x.grad = None;"
    " F.binary_cross_entropy(x, torch.rand(4), reduction='sum').backward(); out = (a, x.grad)",
    "grad_smooth_l1": "x = torch.randn(4, 5, requires_grad=True); y = torch.randn(4, 5, "
    "requires_grad=True); l = F.smooth_l1_loss(x * 2, y, beta=0.5); l.backward(); out = (l, "
    "x.grad, y.grad, l.grad_fn.name())",
    "grad_kl_div": "x = torch.randn(4, 5, requires_grad=True); y = torch.rand(4, 5, "
    "requires_grad=True); l = F.kl_div(x, y, reduction='batchmean'); l.backward(); out = "
    "(x.grad, y.grad)",
}

# the tutorial's shape: an MLP with GELU and LeakyReLU, a sigmoid head trained with BCELoss and a
# regression head with SmoothL1Loss, 5 SGD steps; the losses of every step are compared
TRAINING = """
torch.manual_seed(0)
body = nn.Sequential(nn.Linear(6, 16), nn.GELU(), nn.Linear(16, 8), nn.LeakyReLU(0.1))
cls, reg = nn.Linear(8, 1), nn.Linear(8, 1)
params = [*body.parameters(), *cls.parameters(), *reg.parameters()]
opt = torch.optim.SGD(params, lr=0.1)
bce, sl1 = nn.BCELoss(), nn.SmoothL1Loss(beta=0.5)
x = torch.randn(32, 6); y_cls = (x[:, :1] > 0).float(); y_reg = x[:, 1:2] * 2
losses = []
for _ in range(5):
    opt.zero_grad()
    h = body(x)
    loss = bce(torch.sigmoid(cls(h)), y_cls) + sl1(reg(h), y_reg)
    loss.backward()
    opt.step()
    losses.append(loss.detach())
out = (torch.stack(losses), cls.weight.detach())
"""


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_loss(name: str) -> None:
    check(PRE + LOSSES[name], **CLOSE)


@pytest.mark.parametrize("name", sorted(LOSS_ERRORS))
def test_loss_error(name: str) -> None:
    check(PRE + LOSS_ERRORS[name])


@pytest.mark.parametrize("name", sorted(LOSS_GRADS))
def test_loss_grad(name: str) -> None:
    check(PRE + LOSS_GRADS[name], rtol=1e-5, atol=1e-6)


def test_training_mlp_gelu_leaky_relu_bce_smooth_l1() -> None:
    check(PRE + TRAINING, rtol=1e-4, atol=1e-5)
