"""Autograd against torch 2.13: gradients, grad_fn graphs and errors, program by program.

Each program runs in tensortrace and in torch (tests/conformance/harness.py) and leaves in `out`
what is compared: `.grad` tensors (values, dtype, shape, strides), the grad_fn graph as
`graph(t)` (the Node class names, name() and next_functions, recursively), flags, or the error
(type and message). Gradients are compared to float32 rounding: the backward formulas are
torch's, but a reduction may sum in another order.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "conformance"))
from harness import check  # noqa: E402

PRELUDE = """
def graph(t):
    fn = t.grad_fn if hasattr(t, "grad_fn") else t
    def walk(fn):
        if fn is None:
            return None
        return (type(fn).__name__, fn.name(),
                tuple((walk(f), n) for f, n in fn.next_functions))
    return walk(fn)
def leaf(*shape, dtype=None):
    return torch.rand(*shape, dtype=dtype).requires_grad_()
"""

GRADS: dict[str, str] = {
    # ---- norms: linalg_vector_norm_backward, order by order ----
    "vector_norm_2": "a = leaf(3, 4); torch.linalg.vector_norm(a).backward(); out = a.grad",
    "vector_norm_orders_dims": "a = leaf(3, 4); a.data[0, 0] = 0.0\n"
    "for p in (1, 3, 1.5, 0.5, math.inf, -math.inf):\n"
    "    torch.linalg.vector_norm(a, p, 1).sum().backward()\nout = a.grad",
    "vector_norm_keepdim": "a = leaf(2, 3, 2); torch.linalg.vector_norm(a, 2, (0, 2), True)"
    ".mul(torch.arange(3.).view(1, 3, 1)).sum().backward(); out = a.grad",
    "vector_norm_zero": "a = torch.zeros(3, requires_grad=True); "
    "torch.linalg.vector_norm(a).backward(); out = a.grad",
    "tensor_norm": "a = leaf(4, 3); a.norm().backward(); out = (a.grad, a.norm().grad_fn.name())",
    # ---- elementwise, broadcasting, scalars, type promotion ----
    "add": "a, b = leaf(2, 3), leaf(2, 3); (a + b).sum().backward(); out = (a.grad, b.grad)",
    "add_alpha": "a, b = leaf(2, 3), leaf(2, 3); torch.add(a, b, alpha=3).sum().backward(); "
    "out = (a.grad, b.grad)",
    "add_broadcast": "a, b = leaf(2, 3), leaf(3); (a + b).sum().backward(); out = (a.grad, b.grad)",
    "add_broadcast_both": "a, b = leaf(2, 1), leaf(1, 3); (a + b).sum().backward(); "
    "out = (a.grad, b.grad)",
    "add_scalar": "a = leaf(4); (a + 2).sum().backward(); out = a.grad",
    "radd_scalar": "a = leaf(4); (2 + a).sum().backward(); out = a.grad",
    "sub": "a, b = leaf(2, 3), leaf(2, 3); (a - b).sum().backward(); out = (a.grad, b.grad)",
    "sub_alpha": "a, b = leaf(3), leaf(3); torch.sub(a, b, alpha=2).sum().backward(); "
    "out = (a.grad, b.grad)",
    "rsub_scalar": "a = leaf(3); (1 - a).sum().backward(); out = a.grad",
    "mul": "a, b = leaf(2, 3), leaf(2, 3); (a * b).sum().backward(); out = (a.grad, b.grad)",
    "mul_broadcast": "a, b = leaf(4, 1, 3), leaf(2, 1); (a * b).sum().backward(); "
    "out = (a.grad, b.grad)",
    "mul_scalar": "a = leaf(3); (a * 2.5).sum().backward(); out = a.grad",
    "mul_self": "a = leaf(3); (a * a).sum().backward(); out = a.grad",
    "div": "a, b = leaf(2, 3), leaf(2, 3); (a / (b + 1)).sum().backward(); out = (a.grad, b.grad)",
    "div_scalar": "a = leaf(3); (a / 4).sum().backward(); out = a.grad",
    "rdiv_scalar": "a = leaf(3); (2 / (a + 1)).sum().backward(); out = a.grad",
    "div_floor": "a, b = leaf(3), leaf(3); torch.div(a, b + 1, rounding_mode='floor').sum()"
    ".backward(); out = (a.grad, b.grad)",
    "neg": "a = leaf(3); (-a).sum().backward(); out = a.grad",
    "pow_scalar": "a = leaf(3); (a ** 3).sum().backward(); out = a.grad",
    "pow_zero": "a = leaf(3); (a ** 0).sum().backward(); out = a.grad",
    "pow_tensor": "a, b = leaf(3), leaf(3); (a ** b).sum().backward(); out = (a.grad, b.grad)",
    "rpow": "a = leaf(3); (2 ** a).sum().backward(); out = a.grad",
    "exp": "a = leaf(2, 3); a.exp().sum().backward(); out = a.grad",
    "log": "a = leaf(2, 3); (a + 1).log().sum().backward(); out = a.grad",
    "sqrt": "a = leaf(2, 3); (a + 1).sqrt().sum().backward(); out = a.grad",
    "sin": "a = leaf(5); a.sin().sum().backward(); out = a.grad",
    "cos": "a = leaf(5); a.cos().sum().backward(); out = a.grad",
    "tanh": "a = leaf(5); a.tanh().sum().backward(); out = a.grad",
    "sigmoid": "a = leaf(5); a.sigmoid().sum().backward(); out = a.grad",
    "relu": "a = leaf(5); (a - 0.5).relu().sum().backward(); out = a.grad",
    "abs": "a = leaf(5); (a - 0.5).abs().sum().backward(); out = a.grad",
    "reciprocal": "a = leaf(5); (a + 1).reciprocal().sum().backward(); out = a.grad",
    "maximum": "a, b = leaf(5), leaf(5); torch.maximum(a, b).sum().backward(); "
    "out = (a.grad, b.grad)",
    "minimum": "a, b = leaf(5), leaf(5); torch.minimum(a, b).sum().backward(); "
    "out = (a.grad, b.grad)",
    "maximum_ties": "a = leaf(3); b = a.detach().clone().requires_grad_(); "
    "torch.maximum(a, b).sum().backward(); out = (a.grad, b.grad)",
    "remainder": "a = leaf(5); torch.remainder(a * 5, 2).sum().backward(); out = a.grad",
    "clamp": "a = leaf(6); a.clamp(0.2, 0.7).sum().backward(); out = a.grad",
    "clamp_min": "a = leaf(6); a.clamp(min=0.4).sum().backward(); out = a.grad",
    "clamp_max": "a = leaf(6); a.clamp(max=0.4).sum().backward(); out = a.grad",
    "clamp_tensor": "a, lo = leaf(6), leaf(6); a.clamp(min=lo).sum().backward(); "
    "out = (a.grad, lo.grad)",
    "where": "a, b = leaf(6), leaf(6); torch.where(a > 0.5, a, b).sum().backward(); "
    "out = (a.grad, b.grad)",
    "where_scalar": "a = leaf(6); torch.where(a > 0.5, a, 0.0).sum().backward(); out = a.grad",
    "masked_fill": "a = leaf(6); a.masked_fill(a > 0.5, 0.0).sum().backward(); out = a.grad",
    "promote_double": "a = leaf(3); b = leaf(3, dtype=torch.float64); (a * b).sum().backward(); "
    "out = (a.grad, b.grad)",
    "promote_int": "a = leaf(3); (a * torch.arange(3)).sum().backward(); out = a.grad",
    "to_double": "a = leaf(3); a.to(torch.float64).sum().backward(); out = a.grad",
    "to_half_and_back": "a = leaf(3); (a.double() * 2).float().sum().backward(); out = a.grad",
    "float64_leaf": "a = leaf(2, 2, dtype=torch.float64); (a * a).sum().backward(); out = a.grad",
    "chain": "a = leaf(3); b = a * 2; c = b * b + b.exp(); c.sum().backward(); out = a.grad",
    "reuse": "a = leaf(3); b = a.sin(); (b * b.cos() + b).sum().backward(); out = a.grad",
    "clone": "a = leaf(3); a.clone().sum().backward(); out = a.grad",
    # ---- in-place on non-leaves ----
    "add_": "a = leaf(3); b = a * 1; b.add_(2); b.sum().backward(); out = a.grad",
    "mul_": "a, c = leaf(3), leaf(3); b = a * 1; b.mul_(c); b.sum().backward(); "
    "out = (a.grad, c.grad)",
    "div_": "a = leaf(3); b = a * 1; b.div_(3); b.sum().backward(); out = a.grad",
    "sub_": "a, c = leaf(3), leaf(3); b = a * 1; b.sub_(c, alpha=2); b.sum().backward(); "
    "out = (a.grad, c.grad)",
    "exp_": "a = leaf(3); b = a * 1; b.exp_(); b.sum().backward(); out = a.grad",
    "sigmoid_": "a = leaf(3); b = a * 2; b.sigmoid_(); b.sum().backward(); out = a.grad",
    "relu_": "a = leaf(5); b = a - 0.5; b.relu_(); b.sum().backward(); out = a.grad",
    "clamp_": "a = leaf(5); b = a * 1; b.clamp_(0.3, 0.6); b.sum().backward(); out = a.grad",
    "pow_": "a = leaf(5); b = a * 1; b.pow_(2); b.sum().backward(); out = a.grad",
    "iadd": "a = leaf(3); b = a * 2; b += a; b.sum().backward(); out = a.grad",
    "imul": "a = leaf(3); b = a * 2; b *= a; b.sum().backward(); out = a.grad",
    "zero_": "a = leaf(3); b = a * 2; b.zero_(); (b + a).sum().backward(); out = a.grad",
    "fill_": "a = leaf(3); b = a * 2; b.fill_(1.5); (b * a).sum().backward(); out = a.grad",
    "inplace_on_view": "a = leaf(3, 4); b = a * 1; b[0].mul_(2); b.sum().backward(); out = a.grad",
    "inplace_on_view_other": "a, c = leaf(3, 4), leaf(4); b = a * 1; b[1].add_(c); "
    "(b * b).sum().backward(); out = (a.grad, c.grad)",
    "setitem": "a, c = leaf(3, 4), leaf(4); b = a * 1; b[0] = c; (b * 2).sum().backward(); "
    "out = (a.grad, c.grad)",
    "setitem_scalar": "a = leaf(3, 4); b = a * 1; b[:, 1] = 0.0; b.sum().backward(); out = a.grad",
    "copy_": "a, c = leaf(3), leaf(3); b = a * 1; b.copy_(c * 3); b.sum().backward(); "
    "out = (a.grad, c.grad)",
    "copy_broadcast": "a, c = leaf(2, 3), leaf(3); b = a * 1; b.copy_(c); b.sum().backward(); "
    "out = (a.grad, c.grad)",
    # ---- views ----
    "select": "a = leaf(3, 4); a[1].sum().backward(); out = a.grad",
    "select_neg": "a = leaf(3, 4); a[:, -1].sum().backward(); out = a.grad",
    "slice": "a = leaf(6, 2); a[1:5:2].sum().backward(); out = a.grad",
    "t": "a, b = leaf(3, 4), leaf(3, 4); (a.t() * b.t()).sum().backward(); out = (a.grad, b.grad)",
    "transpose": "a = leaf(2, 3, 4); (a.transpose(0, 2) * torch.arange(24.).view(4, 3, 2))"
    ".sum().backward(); out = a.grad",
    "permute": "a = leaf(2, 3, 4); (a.permute(2, 0, 1) * torch.arange(24.).view(4, 2, 3))"
    ".sum().backward(); out = a.grad",
    "view": "a = leaf(2, 6); (a.view(3, 4) * torch.arange(12.).view(3, 4)).sum().backward(); "
    "out = a.grad",
    "reshape_copy": "a = leaf(3, 4); (a.t().reshape(12) * torch.arange(12.)).sum().backward(); "
    "out = a.grad",
    "flatten": "a = leaf(2, 3, 2); (a.flatten() * torch.arange(12.)).sum().backward(); "
    "out = a.grad",
    "expand": "a = leaf(3, 1); (a.expand(3, 4) * torch.arange(12.).view(3, 4)).sum()"
    ".backward(); out = a.grad",
    "expand_new_dim": "a = leaf(3); (a.expand(2, 3) * torch.arange(6.).view(2, 3)).sum()"
    ".backward(); out = a.grad",
    "unsqueeze": "a = leaf(3); (a.unsqueeze(1) * torch.ones(3, 2)).sum().backward(); out = a.grad",
    "squeeze": "a = leaf(3, 1, 2); (a.squeeze() * 2).sum().backward(); out = a.grad",
    "squeeze_dim": "a = leaf(3, 1); a.squeeze(1).sum().backward(); out = a.grad",
    "diagonal": "a = leaf(3, 3); a.diagonal().sum().backward(); out = a.grad",
    "as_strided": "a = leaf(6); a.as_strided((2, 2), (1, 2)).sum().backward(); out = a.grad",
    "as_strided_overlap": "a = leaf(4); a.as_strided((3, 2), (1, 1)).sum().backward(); "
    "out = a.grad",
    "split": "a = leaf(5, 2); p, q, r = a.split(2); (p * 1 + q * 2).sum().backward(); out = a.grad",
    "split_sizes": "a = leaf(5); p, q = a.split([2, 3]); (q * 3).sum().backward(); out = a.grad",
    "chunk": "a = leaf(6); p, q = a.chunk(2); (p * q).sum().backward(); out = a.grad",
    "unbind": "a = leaf(3, 2); x, y, z = a.unbind(); (x * 2 + z).sum().backward(); out = a.grad",
    "narrow": "a = leaf(5, 3); a.narrow(0, 1, 3).sum().backward(); out = a.grad",
    "mT": "a = leaf(2, 3); (a.mT * torch.arange(6.).view(3, 2)).sum().backward(); out = a.grad",
    "view_chain": "a = leaf(4, 4); a[1:3].t()[0].sum().backward(); out = a.grad",
    "contiguous": "a = leaf(3, 4); (a.t().contiguous() * torch.arange(12.).view(4, 3)).sum()"
    ".backward(); out = a.grad",
    "noncontig_leaf": "a = torch.rand(4, 3).t().requires_grad_(); (a * 2).sum().backward(); "
    "out = a.grad",
    "expanded_leaf_grad_layout": "a = leaf(3, 4); a.sum().backward(); out = a.grad",
    # ---- reductions ----
    "sum": "a = leaf(3, 4); a.sum().backward(); out = a.grad",
    "sum_dim": "a = leaf(3, 4); (a.sum(1) * torch.arange(3.)).sum().backward(); out = a.grad",
    "sum_dims_keepdim": "a = leaf(2, 3, 4); (a.sum((0, 2), keepdim=True) * 2).sum().backward(); "
    "out = a.grad",
    "sum_neg_dim": "a = leaf(2, 3); (a.sum(-1) * torch.arange(2.)).sum().backward(); out = a.grad",
    "sum_dtype": "a = leaf(3); a.sum(dtype=torch.float64).backward(); out = a.grad",
    "mean": "a = leaf(3, 4); a.mean().backward(); out = a.grad",
    "mean_dim": "a = leaf(3, 4); (a.mean(0) * torch.arange(4.)).sum().backward(); out = a.grad",
    "mean_keepdim": "a = leaf(3, 4); a.mean(1, keepdim=True).sum().backward(); out = a.grad",
    "prod": "a = leaf(4); a.prod().backward(); out = a.grad",
    "prod_zero": "a = torch.tensor([1., 0., 3.], requires_grad=True); a.prod().backward(); "
    "out = a.grad",
    "prod_two_zeros": "a = torch.tensor([0., 0., 3.], requires_grad=True); a.prod().backward(); "
    "out = a.grad",
    "prod_dim": "a = leaf(3, 4); a.prod(1).sum().backward(); out = a.grad",
    "max": "a = leaf(5); a.max().backward(); out = a.grad",
    "max_ties": "a = torch.tensor([1., 3., 3.], requires_grad=True); a.max().backward(); "
    "out = a.grad",
    "min": "a = leaf(5); a.min().backward(); out = a.grad",
    "max_dim": "a = leaf(3, 4); a.max(1).values.sum().backward(); out = a.grad",
    "max_dim_keepdim": "a = leaf(3, 4); a.max(0, keepdim=True)[0].sum().backward(); out = a.grad",
    "min_dim": "a = leaf(3, 4); (a.min(1)[0] * torch.arange(3.)).sum().backward(); out = a.grad",
    "var": "a = leaf(6); a.var().backward(); out = a.grad",
    "var_dim": "a = leaf(3, 4); a.var(1).sum().backward(); out = a.grad",
    "var_correction0": "a = leaf(3, 4); a.var(0, correction=0).sum().backward(); out = a.grad",
    "std": "a = leaf(6); a.std().backward(); out = a.grad",
    "std_dim_keepdim": "a = leaf(3, 4); a.std(1, keepdim=True).sum().backward(); out = a.grad",
    "cumsum": "a = leaf(5); (a.cumsum(0) * torch.arange(5.)).sum().backward(); out = a.grad",
    "cumsum_2d": "a = leaf(3, 4); (a.cumsum(1) * torch.arange(12.).view(3, 4)).sum()"
    ".backward(); out = a.grad",
    # ---- matmul family ----
    "mm": "a, b = leaf(3, 4), leaf(4, 5); a.mm(b).sum().backward(); out = (a.grad, b.grad)",
    "mm_transposed": "a, b = leaf(4, 3), leaf(5, 4); a.t().mm(b.t()).sum().backward(); "
    "out = (a.grad, b.grad)",
    "bmm": "a, b = leaf(2, 3, 4), leaf(2, 4, 5); a.bmm(b).sum().backward(); out = (a.grad, b.grad)",
    "mv": "a, v = leaf(3, 4), leaf(4); a.mv(v).sum().backward(); out = (a.grad, v.grad)",
    "dot": "a, b = leaf(4), leaf(4); a.dot(b).backward(); out = (a.grad, b.grad)",
    "matmul_2d": "a, b = leaf(3, 4), leaf(4, 2); (a @ b).sum().backward(); out = (a.grad, b.grad)",
    "matmul_1d_2d": "a, b = leaf(4), leaf(4, 2); (a @ b).sum().backward(); out = (a.grad, b.grad)",
    "matmul_2d_1d": "a, b = leaf(3, 4), leaf(4); (a @ b).sum().backward(); out = (a.grad, b.grad)",
    "matmul_3d_2d": "a, b = leaf(2, 3, 4), leaf(4, 5); (a @ b).sum().backward(); "
    "out = (a.grad, b.grad)",
    "matmul_3d_3d": "a, b = leaf(2, 3, 4), leaf(2, 4, 5); (a @ b).sum().backward(); "
    "out = (a.grad, b.grad)",
    "addmm": "c, a, b = leaf(5), leaf(3, 4), leaf(4, 5); torch.addmm(c, a, b).sum().backward(); "
    "out = (c.grad, a.grad, b.grad)",
    "addmm_alpha_beta": "c, a, b = leaf(3, 5), leaf(3, 4), leaf(4, 5); "
    "torch.addmm(c, a, b, beta=0.5, alpha=2).sum().backward(); "
    "out = (c.grad, a.grad, b.grad)",
    "addmv": "c, a, v = leaf(3), leaf(3, 4), leaf(4); torch.addmv(c, a, v).sum().backward(); "
    "out = (c.grad, a.grad, v.grad)",
    "linear_like": "x, w, b = leaf(5, 4), leaf(3, 4), leaf(3); (x @ w.t() + b).relu().mean()"
    ".backward(); out = (x.grad, w.grad, b.grad)",
    # ---- indexing, cat, stack ----
    "index_tensor": "a = leaf(5); a[torch.tensor([0, 2, 2])].sum().backward(); out = a.grad",
    "index_2d": "a = leaf(4, 3); a[torch.tensor([3, 1])].sum().backward(); out = a.grad",
    "index_bool": "a = leaf(5); a[a > 0.5].sum().backward(); out = a.grad",
    "index_put_": "a, v = leaf(5), leaf(2); b = a * 1; b[torch.tensor([1, 3])] = v; "
    "(b * 2).sum().backward(); out = (a.grad, v.grad)",
    "index_iadd": "a, v = leaf(5), leaf(2); b = a * 1; b[torch.tensor([1, 3])] += v; "
    "(b * b).sum().backward(); out = (a.grad, v.grad)",
    "cat": "a, b = leaf(2, 3), leaf(1, 3); (torch.cat([a, b]) * torch.arange(9.).view(3, 3))"
    ".sum().backward(); out = (a.grad, b.grad)",
    "cat_dim1": "a, b = leaf(2, 1), leaf(2, 3); torch.cat([a, b], 1).sum().backward(); "
    "out = (a.grad, b.grad)",
    "cat_partial": "a, b = leaf(2), torch.rand(3); torch.cat([a, b]).sum().backward(); "
    "out = a.grad",
    "stack": "a, b = leaf(3), leaf(3); (torch.stack([a, b], 1) * torch.arange(6.).view(3, 2))"
    ".sum().backward(); out = (a.grad, b.grad)",
    # ---- accumulation and retain_graph ----
    "accumulate_twice": "a = leaf(3); (a * 2).sum().backward(); (a * 3).sum().backward(); "
    "out = a.grad",
    "retain_graph": "a = leaf(3); l = (a * a).sum(); l.backward(retain_graph=True); "
    "l.backward(); out = a.grad",
    "zero_grad_none": "a = leaf(3); (a * 2).sum().backward(); a.grad = None; "
    "(a * 5).sum().backward(); out = a.grad",
    "grad_setter": "a = leaf(3); a.grad = torch.ones(3); (a * 2).sum().backward(); out = a.grad",
    "backward_gradient": "a = leaf(3); (a * 2).backward(torch.tensor([1., 2., 3.])); out = a.grad",
    "backward_inputs": "a, b = leaf(3), leaf(3); (a * b).sum().backward(inputs=[a]); "
    "out = (a.grad, b.grad)",
    "backward_two_roots": "a = leaf(3); torch.autograd.backward([(a * 2).sum(), (a * a).sum()]); "
    "out = a.grad",
    "unused_branch": "a, b = leaf(3), leaf(3); c = a * 2; d = b * 3; c.sum().backward(); "
    "out = (a.grad, b.grad)",
    "retain_grad": "a = leaf(3); b = a * 2; b.retain_grad(); (b * b).sum().backward(); "
    "out = (b.grad, b.retains_grad, a.grad)",
    "nonleaf_grad_none": "a = leaf(3); b = a * 2; (b * b).sum().backward(); out = b.grad",
    # ---- autograd.grad ----
    "grad_fn_api": "a = leaf(3); out = torch.autograd.grad((a * a).sum(), a)",
    "grad_two_inputs": "a, b = leaf(3), leaf(3); out = torch.autograd.grad((a * b).sum(), [a, b])",
    "grad_outputs": "a = leaf(3); out = torch.autograd.grad(a * 3, a, torch.ones(3) * 2)",
    "grad_allow_unused": "a, b = leaf(3), leaf(3); out = torch.autograd.grad((a * 2).sum(), "
    "[a, b], allow_unused=True)",
    "grad_nonleaf_input": "a = leaf(3); b = a * 2; out = torch.autograd.grad((b * b).sum(), b)",
    "grad_no_accumulate": "a = leaf(3); torch.autograd.grad((a * a).sum(), a); out = a.grad",
    "grad_materialize": "a, b = leaf(3), leaf(3); out = torch.autograd.grad((a * 2).sum(), "
    "[a, b], materialize_grads=True)",
    # ---- double backward ----
    "double_mul": "a = leaf(3); g, = torch.autograd.grad((a * a * a).sum(), a, "
    "create_graph=True); g.sum().backward(); out = a.grad",
    "double_exp": "a = leaf(3); g, = torch.autograd.grad(a.exp().sum(), a, create_graph=True); "
    "g.sum().backward(); out = a.grad",
    "double_sin": "a = leaf(3); g, = torch.autograd.grad(a.sin().sum(), a, create_graph=True); "
    "out = torch.autograd.grad(g.sum(), a)",
    "double_tanh": "a = leaf(3); g, = torch.autograd.grad(a.tanh().sum(), a, create_graph=True); "
    "out = torch.autograd.grad(g.sum(), a)",
    "double_div": "a = leaf(3); g, = torch.autograd.grad((1 / (a + 1)).sum(), a, "
    "create_graph=True); out = torch.autograd.grad(g.sum(), a)",
    "double_backward_create_graph": "a = leaf(3); l = (a ** 3).sum(); "
    "l.backward(create_graph=True); g = a.grad; a.grad = None; "
    "g.sum().backward(); out = a.grad",
    # ---- hooks ----
    "hook_scales": "a = leaf(3); b = a * 2; b.register_hook(lambda g: g * 10); "
    "b.sum().backward(); out = a.grad",
    "hook_leaf": "a = leaf(3); a.register_hook(lambda g: g + 1); (a * 2).sum().backward(); "
    "out = a.grad",
    "hook_sees": "a = leaf(3); seen = []; a.register_hook(lambda g: seen.append(g.clone())); "
    "(a * 3).sum().backward(); out = (seen[0], a.grad)",
    "hook_removed": "a = leaf(3); h = a.register_hook(lambda g: g * 0); h.remove(); "
    "(a * 2).sum().backward(); out = a.grad",
    "node_hook": "a = leaf(3); b = a * 2; got = []; "
    "b.grad_fn.register_hook(lambda gi, go: got.append((gi[0].clone(), "
    "go[0].clone()))); (b * 3).sum().backward(); out = got[0]",
    "node_prehook": "a = leaf(3); b = a * 2; "
    "b.grad_fn.register_prehook(lambda go: (go[0] * 100,)); "
    "b.sum().backward(); out = a.grad",
    "node_hook_replaces": "a = leaf(3); b = a * 2; "
    "b.grad_fn.register_hook(lambda gi, go: (gi[0] * 0 + 7, gi[1])); "
    "b.sum().backward(); out = a.grad",
    # ---- grad modes ----
    "no_grad": "a = leaf(3)\nwith torch.no_grad():\n    b = a * 2\nout = (b.requires_grad, "
    "b.grad_fn is None, torch.is_grad_enabled())",
    "enable_grad_inside_no_grad": "a = leaf(3)\nwith torch.no_grad():\n    with "
    "torch.enable_grad():\n        b = a * 2\nout = "
    "(b.requires_grad, graph(b))",
    "set_grad_enabled_false": "a = leaf(3)\nwith torch.set_grad_enabled(False):\n    b = a * 2\n"
    "out = (b.requires_grad, torch.is_grad_enabled())",
    "set_grad_enabled_call": "a = leaf(3); torch.set_grad_enabled(False); b = a * 2; "
    "torch.set_grad_enabled(True); out = (b.requires_grad, "
    "torch.is_grad_enabled())",
    "no_grad_decorator": "a = leaf(3)\n@torch.no_grad()\ndef f(x):\n    return x * 2\n"
    "b = f(a); out = (b.requires_grad, torch.is_grad_enabled())",
    "enable_grad_decorator": "a = leaf(3)\n@torch.enable_grad()\ndef f(x):\n    return x * 2\n"
    "with torch.no_grad():\n    b = f(a)\nout = b.requires_grad",
    "inference_mode": "a = leaf(3)\nwith torch.inference_mode():\n    b = a * 2\n"
    "    inside = torch.is_inference_mode_enabled()\nout = (b.requires_grad, "
    "b.is_inference(), a.is_inference(), inside, "
    "torch.is_inference_mode_enabled())",
    "inference_mode_decorator": "@torch.inference_mode()\ndef f():\n    return torch.ones(2)\n"
    "out = f().is_inference()",
    "inference_mode_false": "with torch.inference_mode(False):\n    b = torch.ones(2)\n"
    "out = (b.is_inference(), torch.is_grad_enabled())",
    "detach": "a = leaf(3); b = (a * 2).detach(); out = (b.requires_grad, b.is_leaf, "
    "b.grad_fn is None)",
    "detach_": "a = leaf(3); b = a * 2; b.detach_(); out = (b.requires_grad, b.is_leaf)",
    "requires_grad_flags": "a = torch.rand(3); b = a * 2; a.requires_grad_(); c = a * 2; "
    "out = (b.requires_grad, c.requires_grad, a.is_leaf, c.is_leaf)",
    "requires_grad_factory": "a = torch.ones(2, 3, requires_grad=True); out = (a.requires_grad, "
    "a.is_leaf, a.grad)",
    "requires_grad_nonleaf_true": "a = leaf(3); b = a * 2; out = (b.requires_grad_(True) is b, "
    "b.requires_grad, b.is_leaf)",
    "requires_grad_setter": "a = torch.rand(3); a.requires_grad = True; (a * 2).sum()"
    ".backward(); out = a.grad",
    "int_op_no_grad": "a = leaf(3); out = ((a > 0.5).requires_grad, a.argmax().requires_grad, "
    "a.to(torch.int64).requires_grad)",
    "version": "a = leaf(3); b = a * 1; v0 = b._version; b.add_(1); b.mul_(2); "
    "out = (v0, b._version, a._version)",
    "output_nr": "a = leaf(4); p, q = a.split(2); out = (p.output_nr, q.output_nr)",
    "make_subclass": "class P(torch.Tensor):\n    pass\nw = torch.rand(2, 3)\n"
    "p = torch.Tensor._make_subclass(P, w, True); (p * 2).sum().backward()\n"
    "out = (type(p).__name__, p.requires_grad, p.is_leaf, p.grad)",
    "data_unseen_by_autograd": "a = leaf(3); d = a.data; d.add_(1); out = (a._version, "
    "d._version, d.requires_grad, a.grad_fn)",
    "stale_view_regenerated": "a = leaf(3, 4); b = a * 1; v1 = b[0]; v2 = b[:, 1]; v1.mul_(3); "
    "(v2 * torch.arange(3.)).sum().backward(); out = (a.grad, "
    "graph(v2), graph(v1))",
    "view_after_base_inplace": "a = leaf(3, 4); c = a * 1; w = c[1:]; c.add_(1); "
    "(w * w).sum().backward(); out = (a.grad, graph(w))",
    "data_setter": "a = leaf(3); a.data = torch.zeros(2, 2); (a * 3).sum().backward(); "
    "out = (a.shape, a.grad)",
    "data_setter_dtype": "a = leaf(3); (a * 2).sum().backward(); a.data = torch.ones(2, "
    "dtype=torch.float64); (a * 3).sum().backward(); out = (a.dtype, a.grad, a.is_leaf)",
    "data_setter_other_dtype_no_grad": "q = torch.ones(2, dtype=torch.int64); "
    "q.data = torch.ones(3, dtype=torch.float64); out = (q.dtype, q.shape, q * 2)",
}

GRAPHS: dict[str, str] = {
    "mul_sum": "a, b = leaf(3), leaf(3); out = graph((a * b).sum())",
    "add_scalar": "a = leaf(3); out = graph(a + 1)",
    "add_const": "a = leaf(3); out = graph(a + torch.ones(3))",
    "sub_mixed": "a, b = leaf(3), leaf(3); out = graph(a - b * 2)",
    "div": "a = leaf(3); out = graph(a / 2)",
    "rdiv": "a = leaf(3); out = graph(2 / a)",
    "pow": "a = leaf(3); out = [graph(a ** 2), graph(a ** a), graph(2 ** a)]",
    "rsub": "a = leaf(3); out = graph(1 - a)",
    "unary": "a = leaf(3); out = [graph(f(a)) for f in (torch.exp, torch.log, torch.sqrt, "
    "torch.sin, torch.cos, torch.tanh, torch.sigmoid, torch.relu, torch.abs, "
    "torch.neg, torch.reciprocal)]",
    "views": "a = leaf(3, 4); out = [graph(v) for v in (a[0], a[:, 1], a[1:], a.t(), "
    "a.view(12), a.reshape(4, 3), a.expand(2, 3, 4), a.permute(1, 0), a.unsqueeze(0), "
    "a.transpose(0, 1), a.diagonal(), a.as_strided((2,), (1,)), a.flatten(), a.mT, "
    "a.narrow(0, 0, 1), a.squeeze())]",
    "split_unbind": "a = leaf(4, 2); out = [graph(a.split(2)[1]), graph(a.unbind()[0]), "
    "graph(a.chunk(2)[0])]",
    "reductions": "a = leaf(3, 4); out = [graph(v) for v in (a.sum(), a.sum(0), a.mean(), "
    "a.mean(1), a.prod(), a.prod(1), a.max(), a.max(0)[0], a.min(1)[0], a.var(), "
    "a.std(0), a.cumsum(1))]",
    "matmul": "a, b = leaf(3, 4), leaf(4, 5); v = leaf(4); out = [graph(a @ b), graph(a @ v), "
    "graph(v @ b), graph(v @ v), graph(torch.addmm(leaf(5), a, b))]",
    "bmm": "a, b = leaf(2, 3, 4), leaf(2, 4, 5); out = [graph(a.bmm(b)), graph(a @ b)]",
    "index_cat_stack": "a = leaf(3); out = [graph(a[torch.tensor([0, 1])]), "
    "graph(torch.cat([a, a])), graph(torch.stack([a, a]))]",
    "to_clone": "a = leaf(3); out = [graph(a.to(torch.float64)), graph(a.clone()), "
    "graph(a.double())]",
    "clamp_where": "a = leaf(3); out = [graph(a.clamp(0, 1)), graph(a.clamp(min=0)), "
    "graph(torch.where(a > 0, a, a)), graph(a.masked_fill(a > 0, 1.0))]",
    "inplace": "a = leaf(3); b = a * 1; b.add_(1); c = a * 1; c.exp_(); out = [graph(b), graph(c)]",
    "copy_slices": "a, c = leaf(3, 4), leaf(4); b = a * 1; b[0].mul_(2); d = a * 1; d[1] = c; "
    "out = [graph(b), graph(d)]",
    "no_formula": "a = leaf(3); out = graph(torch.floor_divide(a, 2))",
    "min_max_other": "a, b = leaf(3), leaf(3); out = [graph(torch.max(a, b)), "
    "graph(torch.min(a, b)), graph(torch.maximum(a, b))]",
    "leaf_accumulator": "a = leaf(3); out = (graph(a * 2), a.grad_fn)",
    "shared_accumulator": "a = leaf(3); out = (a * 2).grad_fn.next_functions[0][0] is "
    "(a * 3).grad_fn.next_functions[0][0]",
    "accumulate_grad_variable": "a = leaf(3); out = (a * 2).grad_fn.next_functions[0][0]"
    ".variable is a",
    "saved_tensors": "a, b = leaf(3), leaf(3); c = a * b; out = (c.grad_fn._saved_self, "
    "c.grad_fn._saved_other)",
    "saved_result": "a = leaf(3); c = a.exp(); out = c.grad_fn._saved_result",
    "call_grad_fn": "a, b = leaf(3), leaf(3); c = a * b; out = c.grad_fn(torch.ones(3))",
    "call_grad_fn_single": "a = leaf(3); c = a.exp(); out = c.grad_fn(torch.ones(3) * 2)",
    "metadata": "a = leaf(3); c = a * 2; c.grad_fn.metadata['k'] = 1; out = c.grad_fn.metadata",
}

ERRORS: dict[str, str] = {
    "backward_twice": "a = leaf(3); l = (a * a).sum(); l.backward(); l.backward()",
    "backward_twice_exp": "a = leaf(3); l = a.exp().sum(); l.backward(); l.backward()",
    "grad_twice": "a = leaf(3); l = (a * a).sum(); torch.autograd.grad(l, a); "
    "torch.autograd.grad(l, a)",
    "non_scalar": "a = leaf(3); (a * 2).backward()",
    "no_grad_fn": "torch.rand(3).sum().backward()",
    "no_grad_fn_second": "a = leaf(3); torch.autograd.backward([(a * 2).sum(), "
    "torch.rand(()).sum()])",
    "grad_shape_mismatch": "a = leaf(3); (a * 2).backward(torch.ones(2))",
    "leaf_inplace": "a = leaf(3); a.add_(1)",
    "leaf_inplace_mul": "a = leaf(3); a *= 2",
    "view_of_leaf_inplace": "a = leaf(3, 4); a[0].mul_(2)",
    "view_of_leaf_setitem": "a = leaf(3, 4); a[0] = 1.0",
    "inplace_saved_input": "a = leaf(3); b = a * 1; c = b * b; b.add_(1); c.sum().backward()",
    "inplace_saved_output": "a = leaf(3); b = a.exp(); b.add_(1); b.sum().backward()",
    "inplace_saved_sigmoid": "a = leaf(2, 3); b = (a * 2).sigmoid(); b.mul_(2); b.sum().backward()",
    "inplace_saved_leaf_data": "a = leaf(3); c = a * a; a.detach().add_(1); c.sum().backward()",
    "allow_unused_false": "a, b = leaf(3), leaf(3); torch.autograd.grad((a * 2).sum(), [a, b])",
    "grad_input_no_grad": "a = leaf(3); torch.autograd.grad((a * 2).sum(), [torch.rand(3)])",
    "requires_grad_int": "torch.ones(2, dtype=torch.int64).requires_grad_()",
    "data_setter_int_requires_grad": "a = leaf(3); a.data = torch.ones(2, dtype=torch.int64)",
    "data_setter_not_tensor": "a = leaf(3); a.data = 3",
    "requires_grad_int_factory": "torch.ones(2, dtype=torch.int64, requires_grad=True)",
    "requires_grad_nonleaf": "a = leaf(3); (a * 2).requires_grad_(False)",
    "requires_grad_nonleaf_setter": "a = leaf(3); b = a * 2; b.requires_grad = False",
    "requires_grad_nonleaf_setter_true": "a = leaf(3); b = a * 2; b.requires_grad = True",
    "requires_grad_not_bool": "a = leaf(3); a.requires_grad = 1",
    "hook_no_grad": "torch.ones(2).register_hook(lambda g: g)",
    "retain_grad_no_grad": "torch.ones(2).retain_grad()",
    "grad_setter_size": "a = leaf(2, 3); a.grad = torch.ones(3)",
    "grad_setter_dtype": "a = leaf(2, 3); a.grad = torch.ones(2, 3, dtype=torch.float64)",
    "no_formula_backward": "a = leaf(3); torch.floor_divide(a, 2).sum().backward()",
    "out_requires_grad": "a = leaf(3); torch.add(a, a, out=torch.empty(3))",
    "numpy_requires_grad": "a = leaf(3); a.numpy()",
    "inference_saved": "a = leaf(2)\nwith torch.inference_mode():\n    i = torch.ones(2)\n"
    "(i * a).sum().backward()",
    "inference_inplace": "with torch.inference_mode():\n    i = torch.ones(2)\ni.add_(1)",
    "inference_requires_grad": "with torch.inference_mode():\n    i = torch.ones(2)\n"
    "i.requires_grad_()",
    "inference_version": "with torch.inference_mode():\n    i = torch.ones(2)\nout = i._version",
    "backward_inputs_empty": "a = leaf(3); (a * 2).sum().backward(inputs=[])",
    "implicit_int": "a = torch.ones((), dtype=torch.int64); a.backward()",
}


def _program(src: str) -> str:
    return PRELUDE + src


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradients(name: str) -> None:
    check(_program(GRADS[name]), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_graphs(name: str) -> None:
    check(_program(GRAPHS[name]), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name: str) -> None:
    check(_program(ERRORS[name]))


def test_program_count() -> None:
    assert len(GRADS) + len(GRAPHS) + len(ERRORS) >= 150
