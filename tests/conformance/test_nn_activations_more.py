"""Conformance of more of torch.nn's activations (threshold, selu, celu, hardsigmoid, hardswish,
hardshrink, softshrink, prelu, rrelu, softmin, Softmax2d) against torch 2.13: values, dtypes,
in-place variants, rrelu's random slopes in training mode, gradients and grad_fn names, module
reprs, errors (type and message)."""

from __future__ import annotations

import pytest

from .harness import check

PRE = "F = torch.nn.functional\nnn = torch.nn\n"
# exp and expm1 are NumPy's where torch uses SLEEF's float32 polynomials: the last bits differ
CLOSE = {"rtol": 1e-5, "atol": 1e-6}

ACTIVATIONS = {
    "threshold": "x = torch.randn(4, 5); out = (F.threshold(x, 0.1, 20.), torch.threshold(x, "
    "-0.5, -1), F.threshold(x.double(), 0., 2.))",
    "threshold_integer": "x = torch.arange(-4, 5); out = (torch.threshold(x, 1, 20), "
    "F.threshold(x, 0, -7), F.threshold(x.to(torch.uint8), 2, 9))",
    "threshold_inplace": "x = torch.randn(3, 4); z = x.clone(); w = x.clone(); "
    "a = F.threshold(x, 0., -1., inplace=True); b = F.threshold_(z, 0.5, 5.); "
    "c = torch.threshold_(w, -0.5, 0.); out = (x, z, w, a is x, b is z, c is w)",
    "threshold_nan": "x = torch.tensor([float('nan'), -1., 0., 1.]); out = F.threshold(x, 0., 9.)",
    "selu_celu": "x = torch.randn(4, 5) * 3; out = (F.selu(x), torch.selu(x), F.celu(x), "
    "F.celu(x, alpha=0.5), torch.celu(x, 2.), F.selu(x.double()), F.celu(x.double(), 1.5))",
    "selu_celu_inplace": "x = torch.randn(3, 4); z = x.clone(); w = x.clone(); v = x.clone(); "
    "a = F.selu(x, inplace=True); b = F.celu(z, 0.7, inplace=True); c = torch.selu_(w); "
    "d = F.celu_(v, 2.); out = (x, z, w, v, a is x, b is z, c is w, d is v, "
    "torch.celu_(x.clone()), F.selu_(x.clone()))",
    "hardsigmoid_hardswish": "x = torch.linspace(-5, 5, 21); out = (F.hardsigmoid(x), "
    "F.hardswish(x), F.hardsigmoid(x.double()), F.hardswish(x.double()), "
    "torch._C._nn.hardswish(x), torch._C._nn.hardsigmoid(x))",
    "hardsigmoid_hardswish_half": "x = torch.linspace(-5, 5, 11); out = (F.hardsigmoid(x.half()),"
    " F.hardswish(x.half()), F.hardswish(x.bfloat16()))",
    "hardsigmoid_hardswish_inplace": "x = torch.randn(3, 4) * 4; z = x.clone(); "
    "a = F.hardsigmoid(x, inplace=True); b = F.hardswish(z, inplace=True); "
    "w = torch.empty(3, 4); torch._C._nn.hardswish(z, out=w); out = (x, z, w, a is x, b is z)",
    "shrinks": "x = torch.randn(4, 5); out = (F.hardshrink(x), F.hardshrink(x, 1.), "
    "torch.hardshrink(x, 0.2), x.hardshrink(), F.softshrink(x), F.softshrink(x, 1.), "
    "torch._C._nn.softshrink(x.double(), 0.3), F.softshrink(x, 0.))",
    "shrinks_half": "x = torch.linspace(-2, 2, 9); out = (F.hardshrink(x.half()), "
    "F.softshrink(x.half()), F.softshrink(x.bfloat16(), 0.25))",
    "shrinks_nan": "x = torch.tensor([float('nan'), -1., 0.2, 1.]); out = (F.softshrink(x), "
    "F.hardshrink(x))",
    "prelu": "x = torch.randn(2, 3, 4, 5); out = (F.prelu(x, torch.tensor([0.25])), "
    "F.prelu(x, torch.tensor([0.1, -0.5, 2.])), torch.prelu(torch.randn(6), torch.tensor(0.3)), "
    "torch.randn(4, 3).prelu(torch.tensor([0.1, 0.2, 0.3])), F.prelu(torch.randn(5), "
    "torch.tensor([0.2, 0.2, 0.2, 0.2, 0.2])), F.prelu(x.double(), torch.tensor([0.2]).double()))",
    "prelu_scalar_input": "out = F.prelu(torch.tensor(-2.), torch.tensor([0.25]))",
    "rrelu_eval": "x = torch.randn(4, 5); out = (F.rrelu(x), F.rrelu(x, 0.1, 0.3), "
    "torch.rrelu(x), F.rrelu(x.double(), 0.2, 0.2))",
    # training mode: one uniform draw per non-positive element, in order, from the generator
    "rrelu_training": "x = torch.randn(4, 5); a = F.rrelu(x, training=True); "
    "b = F.rrelu(x.double(), 0.05, 0.5, training=True); c = torch.rrelu(x, training=True); "
    "out = (a, b, c, torch.rand(3))",
    "rrelu_training_noncontiguous": "x = torch.randn(5, 4).t(); out = (F.rrelu(x, "
    "training=True), F.rrelu(x.bfloat16(), training=True))",
    "rrelu_inplace": "x = torch.randn(3, 4); z = x.clone(); w = x.clone(); "
    "a = F.rrelu(x, inplace=True); b = F.rrelu_(z, 0.1, 0.2, True); c = torch.rrelu_(w, "
    "training=True); out = (x, z, w, a is x, b is z, c is w)",
    "rrelu_generator_state": "torch.manual_seed(3); a = F.rrelu(-torch.rand(6), training=True); "
    "torch.manual_seed(3); b = F.rrelu(-torch.rand(6), training=True); out = (a, b)",
    "rrelu_generator_argument": "g = torch.Generator().manual_seed(7); x = torch.randn(5) - 1; "
    "out = (torch.rrelu(x, 0.1, 0.3, True, g), torch.rrelu(x, 0.1, 0.3, True, g), "
    "F.rrelu(torch.tensor([float('nan'), -1., 0., 2.]), training=True))",
    "softmin": "x = torch.randn(3, 4); out = (F.softmin(x, 0), F.softmin(x, dim=1), "
    "F.softmin(x, -1, dtype=torch.float64), nn.Softmin(dim=1)(x))",
    "softmin_implicit_dim": "import warnings\nwith warnings.catch_warnings(record=True) as w:\n"
    "    warnings.simplefilter('always')\n    v = F.softmin(torch.randn(3, 4))\n"
    "out = (v, [str(c.message) for c in w])",
    "softmax2d": "m = nn.Softmax2d(); out = (m(torch.randn(2, 3, 4, 5)), m(torch.randn(3, 2, 2)))",
    "modules": "x = torch.randn(2, 3, 4); ms = [nn.Threshold(0.1, 20.), nn.ReLU(), "
    "nn.SELU(), nn.CELU(0.5), nn.Hardsigmoid(), nn.Hardswish(), nn.Hardshrink(0.3), "
    "nn.Softshrink(), nn.PReLU(), nn.PReLU(3, init=0.1), nn.Softmin(dim=2), nn.Softmax2d(), "
    "nn.RReLU().eval(), nn.RReLU(0.1, 0.3)]; out = [m(x) for m in ms]",
    "modules_inplace": "x = torch.randn(3, 4); ms = [nn.Threshold(0., -2., True), "
    "nn.SELU(True), nn.CELU(inplace=True), nn.Hardsigmoid(True), nn.Hardswish(True), "
    "nn.RReLU(inplace=True)]; out = [(m(y), y) for m in ms for y in [x.clone()]]",
    "prelu_module_parameters": "m = nn.PReLU(4, init=0.3); out = (m.weight, "
    "[n for n, _ in m.named_parameters()], m.num_parameters, m.init, "
    "nn.PReLU(dtype=torch.float64).weight)",
}

REPRS = {
    "reprs": "out = [repr(m) for m in (nn.Threshold(0.1, 20), nn.Threshold(0., -1., True), "
    "nn.SELU(), nn.SELU(inplace=True), nn.CELU(), nn.CELU(0.5, True), nn.Hardsigmoid(), "
    "nn.Hardsigmoid(True), nn.Hardswish(), nn.Hardshrink(), nn.Hardshrink(1), nn.Softshrink(), "
    "nn.Softshrink(0.25), nn.PReLU(), nn.PReLU(3, 0.1), nn.Softmin(), nn.Softmin(1), "
    "nn.Softmax2d(), nn.RReLU(), nn.RReLU(0.1, 0.3, True), "
    "nn.Sequential(nn.Linear(2, 3), nn.PReLU(3), nn.Linear(3, 2), nn.Softmin(1)))]",
}

ERRORS = {
    "hardsigmoid_int": "F.hardsigmoid(torch.arange(4))",
    "hardswish_int": "F.hardswish(torch.arange(4))",
    "hardshrink_int": "F.hardshrink(torch.arange(4))",
    "softshrink_int": "F.softshrink(torch.arange(4))",
    "softshrink_negative": "F.softshrink(torch.randn(3), -1.)",
    "softshrink_too_large_half": "F.softshrink(torch.randn(3).half(), 1e5)",
    "softshrink_negative_double": "F.softshrink(torch.randn(3).double(), -0.5)",
    "threshold_bool": "F.threshold(torch.tensor([True, False]), 0, 1)",
    "selu_int": "F.selu(torch.arange(4))",
    "celu_int": "F.celu(torch.arange(4))",
    "celu_zero_alpha": "F.celu(torch.randn(3), 0.)",
    "celu_zero_alpha_inplace": "F.celu(torch.randn(3), 0., inplace=True)",
    "prelu_int": "F.prelu(torch.arange(4), torch.tensor([1]))",
    "prelu_mismatch": "F.prelu(torch.randn(2, 3), torch.randn(2))",
    "prelu_dtypes": "F.prelu(torch.randn(2, 3), torch.randn(3).double())",
    "prelu_zero_dim": "F.prelu(torch.tensor(1.), torch.randn(3))",
    "prelu_2d_weight": "F.prelu(torch.randn(2, 3), torch.randn(1, 1))",
    "rrelu_bounds": "F.rrelu(torch.randn(3), 0.5, 0.1)",
    "rrelu_int": "F.rrelu(torch.arange(4))",
    "softmax2d_dims": "nn.Softmax2d()(torch.randn(3))",
    "hardsigmoid_double_backward": "x = torch.randn(3, requires_grad=True); "
    "g, = torch.autograd.grad(F.hardsigmoid(x).sum(), x, create_graph=True); "
    "torch.autograd.grad(g.sum(), x)",
    "rrelu_inplace_leaf": "F.rrelu(torch.randn(3, requires_grad=True), inplace=True)",
}

GRAD = (
    "x = torch.randn(4, 6, requires_grad=True); g = torch.randn(4, 6); y = {expr}; "
    "y.backward(g); out = (y, x.grad, y.grad_fn.name())"
)
GRADS = {
    name: GRAD.format(expr=expr)
    for name, expr in (
        ("threshold", "F.threshold(x, 0.2, 5.)"),
        ("threshold_inplace", "F.threshold(x * 2, 0.2, 5., inplace=True)"),
        ("selu", "F.selu(x * 2)"),
        ("selu_inplace", "F.selu(x * 2, inplace=True)"),
        ("celu", "F.celu(x * 2, 0.5)"),
        ("celu_inplace", "F.celu(x * 2, 0.5, inplace=True)"),
        ("hardsigmoid", "F.hardsigmoid(x * 4)"),
        ("hardsigmoid_inplace", "F.hardsigmoid(x * 4, inplace=True)"),
        ("hardswish", "F.hardswish(x * 4)"),
        ("hardswish_inplace", "F.hardswish(x * 4, inplace=True)"),
        ("hardshrink", "F.hardshrink(x, 0.7)"),
        ("softshrink", "F.softshrink(x, 0.3)"),
        ("rrelu_eval", "F.rrelu(x, 0.1, 0.4)"),
        ("rrelu_training", "F.rrelu(x, 0.1, 0.4, training=True)"),
        ("rrelu_inplace_training", "F.rrelu(x * 1, training=True, inplace=True)"),
        ("rrelu_inplace_eval", "F.rrelu(x * 1, inplace=True)"),
        ("softmin", "F.softmin(x, 1)"),
        ("double", "F.hardswish(F.celu(F.selu(x.double())))"),
    )
}
GRADS["prelu"] = (
    "x = torch.randn(2, 3, 4, requires_grad=True); w = torch.tensor([0.25, -0.1, 0.5], "
    "requires_grad=True); y = F.prelu(x, w); y.backward(torch.randn(2, 3, 4)); "
    "out = (y, x.grad, w.grad, y.grad_fn.name())"
)
GRADS["prelu_single_weight"] = (
    "m = nn.PReLU(); x = torch.randn(5, 2, requires_grad=True); y = m(x); y.sum().backward(); "
    "out = (x.grad, m.weight.grad)"
)
GRADS["double_backward_prelu"] = (
    "x = torch.randn(2, 3, 4, dtype=torch.float64, requires_grad=True); "
    "w = torch.tensor([0.25, -0.1, 0.5], dtype=torch.float64, requires_grad=True); "
    "y = F.prelu(x, w); gx, gw = torch.autograd.grad((y * y).sum(), [x, w], create_graph=True);"
    " a = torch.autograd.grad((gx * gx).sum() + gw.sum(), [x, w], retain_graph=True); "
    "b = torch.autograd.grad(gx.sum(), [x, w], retain_graph=True); "
    "c = torch.autograd.grad(gw.sum(), [x, w]); out = (gx.grad_fn.name(), a, b, c)"
)
GRADS["double_backward_threshold_shrink"] = (
    "x = torch.randn(6, dtype=torch.float64, requires_grad=True); "
    "gs = [torch.autograd.grad(f(x).sum(), x, create_graph=True)[0] for f in "
    "(lambda t: F.threshold(t * t, 0.5, 0.), lambda t: F.softshrink(t * t), "
    "lambda t: F.hardshrink(t * t), lambda t: F.hardswish(t * t), lambda t: F.celu(t * t))]; "
    "out = [torch.autograd.grad(g.sum(), x)[0] for g in gs]"
)

TRAINING = """
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(5, 8), nn.PReLU(8), nn.Linear(8, 8), nn.Hardswish(),
                    nn.Linear(8, 8), nn.CELU(0.5), nn.Linear(8, 3))
opt = torch.optim.SGD(net.parameters(), lr=0.1)
x = torch.randn(16, 5); y = torch.randint(0, 3, (16,))
losses = []
for _ in range(4):
    opt.zero_grad()
    loss = F.cross_entropy(net(x), y)
    loss.backward()
    opt.step()
    losses.append(loss.detach())
out = (torch.stack(losses), net[1].weight.detach())
"""


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation(name: str) -> None:
    check(PRE + ACTIVATIONS[name], **CLOSE)


@pytest.mark.parametrize("name", sorted(REPRS))
def test_repr(name: str) -> None:
    check(PRE + REPRS[name])


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error(name: str) -> None:
    check(PRE + ERRORS[name])


@pytest.mark.parametrize("name", sorted(GRADS))
def test_grad(name: str) -> None:
    check(PRE + GRADS[name], **CLOSE)


def test_training_prelu_hardswish_celu() -> None:
    check(PRE + TRAINING, rtol=1e-4, atol=1e-5)
