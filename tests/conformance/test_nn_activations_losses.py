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
