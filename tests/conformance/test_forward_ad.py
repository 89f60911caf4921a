"""Conformance of forward-mode AD (torch.autograd.forward_ad) against torch 2.13: primal and
tangent values, shapes, strides and dtypes through the ops with forward formulas (elementwise
with broadcasting and scalars, unary math, matmuls, reductions, views, cat/stack, softmax,
where, copy_ and in-place ops, losses), dual-level bookkeeping, and torch's errors."""

from __future__ import annotations

import pytest

from .harness import check

PRE = (
    "fwAD = torch.autograd.forward_ad\nF = torch.nn.functional\n"
    "x = torch.randn(3, 4); tx = torch.randn(3, 4); y = torch.randn(4); ty = torch.randn(4)\n"
    "W = torch.randn(5, 4); tW = torch.randn(5, 4)\n"
)


def dual(body: str) -> str:
    """`body` inside a dual level with d = (x, tx) and e = (y, ty); `out` = (primal, tangent)
    of `r`."""
    lines = "\n".join("    " + line for line in body.split("; "))
    return (
        "with fwAD.dual_level():\n    d = fwAD.make_dual(x, tx); e = fwAD.make_dual(y, ty)\n"
        f"{lines}\n    out = tuple(fwAD.unpack_dual(r))"
    )


OPS = {
    "mul": "r = d * e",
    "mul_both": "r = d * d",
    "mul_scalar": "r = d * 2.5",
    "add_alpha": "r = torch.add(d, e, alpha=3)",
    "add_scalar": "r = d + 2",
    "sub_plain": "r = x - e",
    "rsub": "r = 1 - d",
    "div": "r = d / e",
    "div_scalar": "r = d / 4",
    "div_floor": "r = torch.div(d, e, rounding_mode='floor')",
    "neg": "r = -d",
    "exp": "r = d.exp()",
    "log": "r = d.abs().log()",
    "sin_cos": "r = d.sin() + d.cos()",
    "tanh": "r = d.tanh()",
    "sigmoid": "r = torch.sigmoid(d)",
    "relu": "r = torch.relu(d)",
    "pow_scalar": "r = d.pow(3)",
    "pow_tensor": "r = d.abs().pow(e)",
    "rpow": "r = 2 ** d",
    "sqrt": "r = d.abs().sqrt()",
    "rsqrt": "r = (d.abs() + 1).rsqrt()",
    "mm": "r = d @ W.t()",
    "mm_both": "r = torch.mm(d, fwAD.make_dual(W, tW).t())",
    "mv": "r = torch.mv(d, e)",
    "matmul": "r = torch.matmul(d, e)",
    "bmm": "r = torch.bmm(d.unsqueeze(0), d.t().unsqueeze(0))",
    "addmm": "r = torch.addmm(e, x[:, :4].t(), d, beta=2, alpha=0.5)",
    "linear": "r = F.linear(d, W, torch.randn(5))",
    "linear_dual_weight": "r = F.linear(x, fwAD.make_dual(W, tW))",
    "sum": "r = d.sum()",
    "sum_dim": "r = d.sum(1, keepdim=True)",
    "mean": "r = d.mean()",
    "mean_dim": "r = d.mean(0)",
    "view": "r = d.view(12)",
    "reshape": "r = d.reshape(2, 6)",
    "t": "r = d.t()",
    "transpose": "r = d.transpose(0, 1)",
    "permute": "r = d.unsqueeze(0).permute(2, 0, 1)",
    "select": "r = d[1]",
    "slice": "r = d[:, 1:3]",
    "step_slice": "r = d[::2, 1::2]",
    "unsqueeze": "r = d.unsqueeze(1)",
    "squeeze": "r = d.unsqueeze(1).squeeze()",
    "squeeze_dim": "r = d.unsqueeze(0).squeeze(0)",
    "expand": "r = d[:, :1].expand(3, 5)",
    "view_then_op": "r = d.t()[1:].exp()",
    "cat": "r = torch.cat([d, x], 0)",
    "cat_both": "r = torch.cat([x, d, d], 1)",
    "stack": "r = torch.stack([x, d], 1)",
    "softmax": "r = torch.softmax(d, 1)",
    "log_softmax": "r = F.log_softmax(d, 0)",
    "where": "r = torch.where(d > 0, d, e)",
    "where_scalar": "r = torch.where(x > 0, d, 0.0)",
    "clone": "r = d.clone()",
    "contiguous": "r = d.t().contiguous()",
    "to_double": "r = d.double()",
    "to_long": "r = d.long()",
    "mse_loss": "r = F.mse_loss(d, x + 1)",
    "mse_loss_sum": "r = F.mse_loss(d, fwAD.make_dual(x, tx * 2), reduction='sum')",
    "cross_entropy": "r = F.cross_entropy(d, torch.tensor([0, 2, 3]))",
    "nll_loss": "r = F.nll_loss(F.log_softmax(d, 1), torch.tensor([1, 0, 3]))",
    "maximum": "r = torch.maximum(d, e)",
    "max_dim": "r = d.max(1)[0]",
    "max_all": "r = d.max()",
    "abs": "r = d.abs()",
    "clamp": "r = d.clamp(-0.5, 0.5)",
    "gelu_silu": "r = F.gelu(d) + F.silu(d)",
    "leaky_elu": "r = F.leaky_relu(d, 0.2) + F.elu(d)",
    "logsumexp": "r = torch.logsumexp(d, 1)",
    "masked_fill": "r = d.masked_fill(x > 0, 1.0)",
    "index_select": "r = d.index_select(1, torch.tensor([3, 0]))",
    "gather": "r = d.gather(1, torch.tensor([[0], [2], [1]]))",
    "getitem_tensor": "r = d[torch.tensor([2, 0])]",
    "tril_flip": "r = d.tril().flip(0)",
    "cumsum": "r = d.cumsum(1)",
    "addcmul": "r = torch.addcmul(d, d, e, value=0.5)",
    "lerp": "r = torch.lerp(d, x, 0.3)",
    "unbind": "r = d.unbind(0)[2]",
    "split": "r = d.split(2, 1)[1]",
    "kthvalue": "r = d.kthvalue(2, 1)[0]",
    "mode": "r = d.round().mode(1).values",
    "median": "r = d.median()",
    "median_dim": "r = d.median(0, keepdim=True)[0]",
    "std_mean": "r = torch.std_mean(d, 1)[0]",
    "var_mean_mean": "r = torch.var_mean(d)[1]",
    "chain": "h = torch.tanh(d @ W.t()); r = (h * h).sum(1).mean()",
    # in-place: the tangent is updated in place
    "mul_": "r = d.clone(); r.mul_(e)",
    "add_": "r = d.clone(); r.add_(e, alpha=2)",
    "add_into_plain": "r = x.clone(); r.add_(d)",
    "exp_": "r = d.clone(); r.exp_()",
    "relu_": "r = d.clone(); r.relu_()",
    "zero_": "r = d.clone(); r.zero_()",
    "fill_": "r = d.clone(); r.fill_(2.0)",
    "copy_": "r = torch.zeros(3, 4); r.copy_(d)",
    "copy_broadcast": "r = torch.zeros(3, 4); r.copy_(e)",
    "copy_into_dual": "r = d.clone(); r.copy_(x)",
    "inplace_on_view": "z = torch.zeros(3, 4); z[1].copy_(e); r = z",
    "inplace_view_reads": "z = torch.zeros(3, 4); v = z[1]; z.copy_(d); r = v",
    "view_of_dual_inplace": "c = d.clone(); v = c[:, 1]; v.mul_(2); r = c",
    "view_tangent_is_view": "v = d[1]; r = d; out2 = fwAD.unpack_dual(v).tangent._base is tx",
}

PROGRAMS = {name: dual(body) for name, body in OPS.items()}
PROGRAMS.update(
    {
        # ---- make_dual / unpack_dual / levels ----
        "make_dual_alias": "with fwAD.dual_level():\n    d = fwAD.make_dual(x, tx)\n"
        "    p, t = fwAD.unpack_dual(d)\n"
        "    out = (d._base is x, d._is_view(), t is tx, p._base is x, p is d, "
        "type(fwAD.unpack_dual(d)).__name__, fwAD.unpack_dual(x))",
        "make_dual_relayout": "t = torch.randn(4, 3).t()\nwith fwAD.dual_level():\n"
        "    d = fwAD.make_dual(x, t)\n    u = fwAD.unpack_dual(d).tangent\n"
        "    out = (u, u is t, torch.equal(u, t))",
        "make_dual_offset": "base = torch.randn(2, 4)\nwith fwAD.dual_level():\n"
        "    d = fwAD.make_dual(base[1], y)\n    u = fwAD.unpack_dual(d).tangent\n"
        "    out = (u, u is y, (d * 2).sum())",
        "tangent_dtype_kept": "with fwAD.dual_level():\n"
        "    d = fwAD.make_dual(x, tx.double())\n    out = fwAD.unpack_dual(d * 2)",
        "level_value": "with fwAD.dual_level() as lvl:\n    a = lvl\n"
        "out = (a, fwAD._current_level)",
        "enter_exit": "l = fwAD.enter_dual_level()\nd = fwAD.make_dual(x, tx)\nr = d.exp()\n"
        "fwAD.exit_dual_level()\nout = (l, fwAD.unpack_dual(r), fwAD.unpack_dual(d))",
        "exited_tangents": "with fwAD.dual_level():\n    d = fwAD.make_dual(x, tx)\n"
        "with fwAD.dual_level():\n    out = (fwAD.unpack_dual(d), fwAD.unpack_dual(d * 2))",
        "backward_through_dual": "w = torch.randn(3, 4, requires_grad=True)\n"
        "with fwAD.dual_level():\n    d = fwAD.make_dual(w, tx)\n    r = (d * d).sum()\n"
        "    p, t = fwAD.unpack_dual(r)\n    t.backward()\n"
        "out = (p.detach(), t.detach(), w.grad, d.grad_fn.name(), r.grad_fn.name())",
        "tangent_requires_grad": "v = tx.clone().requires_grad_()\nwith fwAD.dual_level():\n"
        "    d = fwAD.make_dual(x, v)\n    t = fwAD.unpack_dual(d.sin()).tangent\n"
        "    g, = torch.autograd.grad(t.sum(), v)\nout = (t.detach(), g)",
        "repr": "with fwAD.dual_level():\n    d = fwAD.make_dual(x, tx)\n"
        "    out = (repr(d.cpu()), str((d[0] * 2).cpu()))\n"
        "out = (out, repr(d.cpu()))",
        "is_same_size": "out = (torch.is_same_size(x, tx), torch.is_same_size(x, y), "
        "x.is_same_size(tx))",
        "fwd_grad_disabled": "with fwAD.dual_level():\n    d = fwAD.make_dual(x, tx)\n"
        "    with fwAD._set_fwd_grad_enabled(False):\n"
        "        a = (fwAD.unpack_dual(d).tangent, fwAD._is_fwd_grad_enabled())\n"
        "    out = (a, fwAD._is_fwd_grad_enabled(), fwAD.unpack_dual(d).tangent)",
        "non_differentiable_outputs": "with fwAD.dual_level():\n    d = fwAD.make_dual(x, tx)\n"
        "    out = (torch.isnan(d), torch.isinf(d), torch.equal(d, d), torch.allclose(d, d), "
        "torch.signbit(d), torch.bucketize(d, torch.tensor([0.0])), torch.count_nonzero(d), "
        "d.argmax(), d > 0, fwAD.unpack_dual(d.max(1)[1]), torch.multinomial(d.abs(), 1).shape)",
        # ---- errors ----
        "err_no_level": "out = fwAD.make_dual(x, tx)",
        "err_size": "with fwAD.dual_level():\n    out = fwAD.make_dual(x, y)",
        "err_int_primal": "with fwAD.dual_level():\n"
        "    out = fwAD.make_dual(torch.ones(3, dtype=torch.long), y[:3])",
        "err_int_tangent": "with fwAD.dual_level():\n"
        "    out = fwAD.make_dual(y, torch.ones(4, dtype=torch.long))",
        "err_dual_of_dual": "with fwAD.dual_level():\n    d = fwAD.make_dual(x, tx)\n"
        "    out = fwAD.make_dual(d, tx)",
        "err_nested": "with fwAD.dual_level():\n    with fwAD.dual_level():\n        out = 1",
        "err_exit_none": "out = fwAD.exit_dual_level()",
        "err_exit_wrong": "with fwAD.dual_level():\n    out = fwAD.exit_dual_level(level=1)",
        "err_bad_level_make": "with fwAD.dual_level():\n    out = fwAD.make_dual(x, tx, level=1)",
        "err_bad_level_unpack": "with fwAD.dual_level():\n    d = fwAD.make_dual(x, tx)\n"
        "    out = fwAD.unpack_dual(d, level=1)",
        "err_not_implemented": "with fwAD.dual_level():\n    d = fwAD.make_dual(x, tx)\n"
        "    out = torch.igamma(d.abs(), x.abs())",
        "err_out_fn": "with fwAD.dual_level():\n    d = fwAD.make_dual(x, tx)\n"
        "    out = torch.exp(d, out=torch.empty(3, 4))",
    }
)
# view_tangent_is_view leaves out2 beside out
PROGRAMS["view_tangent_is_view"] += "\nout = (out, out2)"


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_forward_ad(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], rtol=1e-5, atol=1e-6)
