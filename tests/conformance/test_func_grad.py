"""Conformance of torch.func.grad, grad_and_value, vjp and jacrev against torch 2.13, with vmap:
argnums, has_aux, nested grad, chunk_size, the per-sample-gradients and model-ensembling
tutorial programs (small sizes) and torch's errors."""

from __future__ import annotations

import pytest

from .harness import check

PRE = """func = torch.func
vmap, grad, grad_and_value, vjp, jacrev = func.vmap, func.grad, func.grad_and_value, func.vjp, \
func.jacrev
nn = torch.nn
F = torch.nn.functional
x = torch.randn(4, dtype=torch.float64)
y = torch.randn(3, 4, dtype=torch.float64)
"""

TUTORIAL_PER_SAMPLE = """
class SimpleCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 3, 3, 1)
        self.fc1 = nn.Linear(3 * 3 * 3, 4)
    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        return F.log_softmax(self.fc1(torch.flatten(x, 1)), dim=1)
model = SimpleCNN()
data = torch.randn(5, 1, 8, 8)
targets = torch.randint(4, (5,))
params = {k: v.detach() for k, v in model.named_parameters()}
buffers = {k: v.detach() for k, v in model.named_buffers()}
def compute_loss(params, buffers, sample, target):
    predictions = func.functional_call(model, (params, buffers), (sample.unsqueeze(0),))
    return F.nll_loss(predictions, target.unsqueeze(0))
ft = vmap(grad(compute_loss), in_dims=(None, None, 0, 0))(params, buffers, data, targets)
loop = [torch.autograd.grad(F.nll_loss(model(data[i:i + 1]), targets[i:i + 1]),
                            list(model.parameters())) for i in range(5)]
out = (ft, all(torch.allclose(ft[k], torch.stack([g[j] for g in loop]), atol=1e-6)
               for j, k in enumerate(params)))
"""

TUTORIAL_ENSEMBLE = """
class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 5)
        self.fc2 = nn.Linear(5, 3)
    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x.flatten(1))))
models = [MLP() for _ in range(4)]
minibatches = torch.randn(4, 2, 6)
minibatch = minibatches[0]
params, buffers = func.stack_module_state(models)
def fmodel(params, buffers, x):
    return func.functional_call(models[0], (params, buffers), (x,))
same = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch)
different = vmap(fmodel)(params, buffers, minibatches)
out = (same, different, torch.allclose(same, torch.stack([m(minibatch) for m in models]),
       atol=1e-6), torch.allclose(different, torch.stack([m(b) for m, b in
       zip(models, minibatches)]), atol=1e-6))
"""

PROGRAMS = {
    # ---- grad / grad_and_value ----
    "grad": "out = grad(lambda a: (a.sin() * a).sum())(x)",
    "grad_argnums": "out = grad(lambda a, b: (a * b.exp()).sum(), argnums=1)(x, x.cos())",
    "grad_argnums_tuple": "out = grad(lambda a, b: (a * b * b).sum(), argnums=(0, 1))(x, y)",
    "grad_pytree_input": "out = grad(lambda d: (d['w'] ** 2).sum() + d['b'][0].sum())"
    "({'w': x, 'b': [y]})",
    "grad_has_aux": "out = grad(lambda a: ((a ** 2).sum(), a.detach() * 3), has_aux=True)(x)",
    "grad_and_value": "out = grad_and_value(lambda a: a.tanh().sum())(x)",
    "grad_and_value_aux": "out = grad_and_value(lambda a: (a.sum() ** 2, {'m': a.mean()}), "
    "has_aux=True)(x)",
    "grad_grad": "out = grad(grad(lambda a: a.sin() * a ** 3))(torch.tensor(0.7, "
    "dtype=torch.float64))",
    "grad_grad_grad": "out = grad(grad(grad(lambda a: a.exp() * a)))(torch.tensor(0.3))",
    "grad_closure_over_outer_input": "t = torch.tensor(1.5); "
    "out = (grad(lambda a: grad(lambda b: a * b)(a))(t), "
    "grad(lambda a: grad(lambda b: (a * b) ** 2)(a * 3))(t), "
    "grad(lambda a: a * grad(lambda b: (a + b) ** 2)(a))(t))",
    "grad_closure_requires_grad": "w = torch.tensor(2.0, requires_grad=True); "
    "g = grad(lambda a: (a * w) ** 2)(torch.tensor(1.5)); g.backward(); "
    "out = (g.detach(), g.requires_grad, w.grad)",
    "grad_unused_input": "out = grad(lambda a, b: a.sum(), argnums=(0, 1))(x, y)",
    "grad_no_grad_inside": "def f(a):\n    with torch.no_grad():\n        c = a * 2\n"
    "    return (c * a).sum()\nout = grad(f)(x)",
    "grad_leaves_inputs_alone": "a = x.clone(); g = grad(lambda t: (t * t).sum())(a); "
    "out = (g, a.requires_grad, g.requires_grad)",
    "grad_keeps_outer_graph": "a = x.clone().requires_grad_(); g = grad(lambda t: (t ** 3)"
    ".sum())(a); g.sum().backward(); out = (g.detach(), g.requires_grad, a.grad)",
    "grad_under_no_grad": "with torch.no_grad():\n    out = grad(lambda a: (a ** 2).sum())(x)",
    "vmap_grad": "out = vmap(grad(lambda a: (a ** 3).sum()))(y)",
    "vmap_grad_in_dims": "w = torch.randn(4, dtype=torch.float64); "
    "out = vmap(grad(lambda w, a: (w * a).sin().sum()), in_dims=(None, 0))(w, y)",
    "vmap_grad_cross_entropy": "w = torch.randn(4, 3, dtype=torch.float64); "
    "out = vmap(grad(lambda w, a, t: F.cross_entropy((a @ w).unsqueeze(0), t.unsqueeze(0))), "
    "in_dims=(None, 0, 0))(w, y, torch.tensor([0, 2, 1]))",
    "grad_vmap": "out = grad(lambda a: vmap(lambda r: r.dot(r))(a).sum())(y)",
    # ---- vjp / jacrev ----
    "vjp": "o, fn = vjp(lambda a: a.sin() * a.sum(), x); out = (o, fn(torch.ones_like(o)))",
    "vjp_two_inputs": "o, fn = vjp(lambda a, b: (a * b, a.sum()), x, x.cos()); "
    "out = (o, fn((torch.ones(4, dtype=torch.float64), torch.tensor(2.0, dtype=torch.float64))))",
    "vjp_has_aux": "o, fn, aux = vjp(lambda a: (a.exp(), a.mean()), x, has_aux=True); "
    "out = (o, fn(x), aux)",
    "vmap_vjp": "o, fn = vjp(lambda a: a.sin(), x); out = vmap(fn)(torch.eye(4, dtype=x.dtype))",
    "jacrev": "out = jacrev(lambda a: a.sin() * a.sum())(x)",
    "jacrev_matrix": "out = jacrev(lambda a: a.softmax(1))(y)",
    "jacrev_argnums": "out = jacrev(lambda a, b: a * b.sum(), argnums=(0, 1))(x, y)",
    "jacrev_has_aux": "out = jacrev(lambda a: (a ** 2, a.sum()), has_aux=True)(x)",
    "jacrev_chunks": "out = (jacrev(lambda a: a.exp() * a, chunk_size=3)(x), "
    "jacrev(lambda a: a.exp() * a, chunk_size=1)(x))",
    "jacrev_tuple_out": "out = jacrev(lambda a: (a * 2, a.sum()))(x)",
    "jacrev_jacrev": "out = jacrev(jacrev(lambda a: (a ** 3).sum()))(x)",
    "vmap_jacrev": "out = vmap(jacrev(lambda a: a.sin() * a))(y)",
    # ---- tutorials ----
    "tutorial_per_sample_grads": TUTORIAL_PER_SAMPLE,
    "tutorial_ensembling": TUTORIAL_ENSEMBLE,
    # ---- errors ----
    "err_grad_not_scalar": "out = grad(lambda a: a * 2)(x)",
    "err_grad_not_tensor": "out = grad(lambda a: 1.0)(x)",
    "err_grad_aux_not_tuple": "out = grad(lambda a: a.sum(), has_aux=True)(x)",
    "err_grad_argnum_range": "out = grad(lambda a: a.sum(), argnums=2)(x)",
    "err_grad_argnums_type": "out = grad(lambda a: a.sum(), argnums=1.0)(x)",
    "err_grad_argnums_empty": "out = grad(lambda a: a.sum(), argnums=())(x)",
    "err_grad_argnums_repeat": "out = grad(lambda a, b: a.sum(), argnums=(0, 0))(x, x)",
    "err_grad_int_input": "out = grad(lambda a: a.sum())(torch.ones(3, dtype=torch.long))",
    "err_grad_non_tensor_input": "out = grad(lambda a: a)(3.0)",
    "err_vjp_int_output": "out = vjp(lambda a: (a > 0).long(), x)",
    "err_vjp_cotangent_structure": "o, fn = vjp(lambda a: (a, a), x); out = fn(x)",
    "err_jacrev_chunk_size": "out = jacrev(lambda a: a, chunk_size=0)",
    "err_jacrev_complex": "out = jacrev(lambda a: a)(torch.ones(2, dtype=torch.complex64))",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_func_transforms(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], rtol=1e-5, atol=1e-6)
