"""Conformance of torch.func.vmap (and torch.vmap) against torch 2.13: batching rules of the
pointwise, reduction, view, matrix-product and TensorList operators, the for-loop fallback,
in_dims / out_dims pytrees, chunk_size, nested vmap, randomness and torch's errors."""

from __future__ import annotations

import pytest

from .harness import check

PRE = "vmap = torch.func.vmap\nF = torch.nn.functional\n"

PROGRAMS = {
    # ---- pointwise: unary, binary with broadcasting, comparison, where, in-place ----
    "unary": "x = torch.randn(3, 4); out = vmap(lambda a: a.exp().sin())(x)",
    "unary_in_dim1": "x = torch.randn(3, 4); out = vmap(torch.tanh, in_dims=1)(x)",
    "binary": "x = torch.randn(3, 4); y = torch.randn(3, 4); out = vmap(torch.mul)(x, y)",
    "binary_broadcast": "x = torch.randn(3, 4); y = torch.randn(2, 1); "
    "out = vmap(lambda a, b: a + b, in_dims=(0, None))(x, y)",
    "binary_mixed_dims": "x = torch.randn(3, 4); y = torch.randn(4, 3); "
    "out = vmap(lambda a, b: a * b - 1, in_dims=(0, 1))(x, y)",
    "binary_rank_pad": "x = torch.randn(3, 4); y = torch.randn(3, 2, 4); "
    "out = vmap(torch.sub)(x, y)",
    "scalar_ops": "x = torch.randn(3, 4); out = vmap(lambda a: 2 * a ** 2 / 3 + 1)(x)",
    "comparison": "x = torch.randn(3, 4); out = vmap(lambda a: (a > 0) & (a < 1))(x)",
    "where": "x = torch.randn(3, 4); out = vmap(lambda a: torch.where(a > 0, a, -a * 2))(x)",
    "inplace": "x = torch.randn(3, 4); y = torch.randn(4); "
    "out = vmap(lambda a: a.mul_(2).add_(y))(x.clone())",
    "dtype_promotion": "x = torch.arange(6).reshape(2, 3); "
    "out = vmap(lambda a: a * 1.5 + torch.ones(3, dtype=torch.float64))(x)",
    # ---- reductions and softmax ----
    "sum_all": "x = torch.randn(3, 4, 2); out = vmap(torch.sum)(x)",
    "sum_dim": "x = torch.randn(3, 4, 2); out = vmap(lambda a: a.sum((0, -1)), in_dims=1)(x)",
    "mean_keepdim": "x = torch.randn(3, 4, 2); out = vmap(lambda a: a.mean(1, keepdim=True))(x)",
    "max_dim": "x = torch.randn(3, 4, 2); out = vmap(lambda a: tuple(a.max(0)))(x)",
    "max_all": "x = torch.randn(3, 4); out = vmap(lambda a: (a.max(), a.min(), a.prod()))(x)",
    "argmax": "x = torch.randn(3, 4, 2); out = vmap(lambda a: (a.argmax(), a.argmax(1)))(x)",
    "var_std": "x = torch.randn(3, 5); out = vmap(lambda a: (a.var(), a.std(0, correction=0)))(x)",
    "softmax": "x = torch.randn(3, 4, 2); "
    "out = vmap(lambda a: (a.softmax(0), F.log_softmax(a, -1)), in_dims=2)(x)",
    "cumsum_logsumexp": "x = torch.randn(3, 4); "
    "out = vmap(lambda a: (a.cumsum(0), a.logsumexp(0)))(x)",
    "scalar_sample": "x = torch.randn(5); out = vmap(lambda a: (a.sum(), a.softmax(0), a * 2))(x)",
    # ---- views ----
    "view_reshape": "x = torch.randn(3, 4); out = vmap(lambda a: a.view(2, 2).reshape(4, 1))(x)",
    "transpose_permute": "x = torch.randn(3, 2, 4); "
    "out = vmap(lambda a: (a.t(), a.unsqueeze(0).permute(2, 0, 1)), in_dims=1)(x)",
    "select_slice": "x = torch.randn(3, 4, 5); "
    "out = vmap(lambda a: (a[1], a[:, 1:4:2], a[-1, 2]))(x)",
    "unsqueeze_squeeze": "x = torch.randn(3, 1, 4); "
    "out = vmap(lambda a: (a.squeeze(), a.squeeze(0), a.unsqueeze(-1)))(x)",
    "expand": "x = torch.randn(3, 4); out = vmap(lambda a: a.expand(2, 4))(x)",
    "flatten_unbind": "x = torch.randn(3, 2, 2); "
    "out = vmap(lambda a: (a.flatten(), *a.unbind(1)))(x)",
    "split_chunk": "x = torch.randn(3, 5); out = vmap(lambda a: (a.split(2), a.chunk(2)))(x)",
    "diagonal_movedim": "x = torch.randn(3, 4, 4); "
    "out = vmap(lambda a: (a.diagonal(), a.movedim(0, 1)), in_dims=2)(x)",
    "view_writes_through": "x = torch.zeros(3, 4); vmap(lambda a: a[1:3].fill_(5.0))(x); out = x",
    "inplace_views": "x = torch.randn(3, 4); out = vmap(lambda a: a.view(2, 2).transpose_(0, 1)"
    ".unsqueeze_(0).squeeze_(0).t_())(x.clone())",
    "structseq_outputs": "x = torch.randn(3, 4); out = vmap(lambda a: (a.topk(2), a.sort()))(x)",
    # ---- matrix products ----
    "mm": "a = torch.randn(3, 2, 4); b = torch.randn(4, 5); "
    "out = (vmap(torch.mm, in_dims=(0, None))(a, b), vmap(torch.mm)(a, torch.randn(3, 4, 2)))",
    "mv_dot": "m = torch.randn(3, 4); v = torch.randn(5, 4); "
    "out = (vmap(torch.mv, in_dims=(None, 0))(m, v), vmap(torch.dot)(v, v))",
    "matmul_bmm": "a = torch.randn(2, 3, 4, 5); b = torch.randn(2, 3, 5, 2); "
    "out = (vmap(torch.matmul)(a, b), vmap(torch.bmm)(a, b))",
    "vector_matmul": "x = torch.randn(3, 4); w = torch.randn(4, 2); "
    "out = (vmap(lambda a: a @ w)(x), vmap(lambda a: w.t() @ a)(x), vmap(torch.matmul)(x, x))",
    "linear": "x = torch.randn(3, 4); w = torch.randn(2, 4); b = torch.randn(2); "
    "out = vmap(F.linear, in_dims=(0, None, None))(x, w, b)",
    "addmm": "x = torch.randn(3, 2, 4); m = torch.randn(4, 5); c = torch.randn(5); "
    "out = vmap(lambda a: torch.addmm(c, a, m, beta=0.5, alpha=2))(x)",
    # ---- TensorList ops, indexing, losses ----
    "cat_stack": "x = torch.randn(3, 4); y = torch.randn(4); "
    "out = vmap(lambda a: (torch.cat([a, y]), torch.stack([a, y], 1)))(x)",
    "index_select_gather": "x = torch.randn(3, 5); i = torch.tensor([4, 0]); "
    "out = vmap(lambda a, j: (a.index_select(0, i), a.gather(0, j)))(x, torch.tensor([[1], "
    "[2], [0]]))",
    "index_select_batched_index": "x = torch.randn(3, 5); "
    "out = vmap(torch.index_select, in_dims=(0, None, 0))(x, 0, torch.tensor([[1], [2], [0]]))",
    "losses": "x = torch.randn(3, 2, 4); t = torch.tensor([[0, 3], [1, 1], [2, 0]]); "
    "y = torch.randn(3, 2, 4); out = vmap(lambda a, b, c: (F.cross_entropy(a, b), "
    "F.nll_loss(a.log_softmax(1), b, reduction='sum'), F.mse_loss(a, c)))(x, t, y)",
    "fallback_loop": "x = torch.randn(3, 2, 5); "
    "out = vmap(lambda a: (a.flip(1), torch.cdist(a, a), a.sort(1)[0]))(x)",
    # ---- in_dims / out_dims / pytrees / chunks / nesting ----
    "in_dims_negative": "x = torch.randn(2, 3); out = vmap(lambda a: a * 2, in_dims=-1)(x)",
    "out_dims": "x = torch.randn(3, 4); out = vmap(lambda a: (a, a.sum()), out_dims=(1, 0))(x)",
    "out_dims_negative": "x = torch.randn(3, 4, 2); out = vmap(lambda a: a, out_dims=-1)(x)",
    "unbatched_output": "x = torch.randn(3, 4); out = vmap(lambda a: torch.ones(2))(x)",
    "out_dims_none": "x = torch.randn(3, 4); "
    "out = vmap(lambda a: (a * 2, 5), out_dims=(0, None))(x)",
    "pytree_inputs": "x = torch.randn(3, 4); out = vmap(lambda d, l: d['a'] + l[0] * l[1], "
    "in_dims=({'a': 0}, [1, None]))({'a': x}, [x.t(), torch.ones(4)])",
    "pytree_outputs": "x = torch.randn(3, 4); "
    "out = vmap(lambda a: {'s': a.sum(), 'l': [a, -a]})(x)",
    "kwargs_unbatched": "x = torch.randn(3, 4); "
    "out = vmap(lambda a, scale=1.0: a * scale)(x, scale=x[0])",
    "chunk_size": "x = torch.randn(5, 4); out = vmap(lambda a: (a.sum(), a * 2), chunk_size=2)(x)",
    "nested": "x = torch.randn(2, 3, 4); y = torch.randn(3, 4); "
    "out = vmap(vmap(lambda a, b: a.dot(b), in_dims=(0, 0)), in_dims=(0, None))(x, y)",
    "nested_outer_product": "x = torch.randn(3, 4); y = torch.randn(5, 4); "
    "out = vmap(lambda a: vmap(lambda b: (a * b).sum())(y))(x)",
    "torch_vmap_alias": "out = (torch.vmap is torch.func.vmap, "
    "torch.vmap(torch.neg)(torch.ones(2)))",
    "backward_through_vmap": "x = torch.randn(3, 4, requires_grad=True); w = torch.randn(4, "
    "requires_grad=True); y = vmap(lambda a: (a * w).sin().sum())(x); y.sum().backward(); "
    "out = (y.detach(), x.grad, w.grad)",
    "repr_batched": "out = []; x = torch.arange(6.0, device='cpu').reshape(2, 3); "
    "vmap(vmap(lambda a: out.append(repr(a)) or a), in_dims=1)(x)",
    # ---- randomness ----
    "rand_same": "x = torch.randn(3, 2); out = vmap(lambda a: torch.rand(4), randomness='same')(x)",
    "rand_different": "x = torch.randn(3, 2); "
    "out = vmap(lambda a: a + torch.rand(2), randomness='different')(x)",
    "rand_like_different": "out = vmap(torch.randn_like, randomness='different')(torch.ones(3, 2))",
    "rand_like_same_batched": "out = vmap(torch.rand_like, randomness='same')(torch.ones(3, 2))",
    "dropout_different": "out = vmap(lambda a: torch.nn.functional.dropout(a, 0.5), "
    "randomness='different')(torch.ones(3, 4))",
    # chunks replay the CPU generator's state (torch's _chunked_vmap), so the draw is on the CPU
    "chunked_same": "out = vmap(lambda a: torch.rand(2, device='cpu'), randomness='same', "
    "chunk_size=2)(torch.zeros(5, 2))",
    # ---- errors ----
    "err_nontensor_output": "out = vmap(lambda a: 1)(torch.ones(3))",
    "err_in_dim_range": "out = vmap(lambda a: a, in_dims=2)(torch.ones(2, 3))",
    "err_in_dims_type": "out = vmap(lambda a: a, in_dims=[0])(torch.ones(2, 3))",
    "err_in_dim_nontensor": "out = vmap(lambda a, b: a, in_dims=(0, 0))(torch.ones(2), 3)",
    "err_no_inputs": "out = vmap(lambda: 1)()",
    "err_no_batched": "out = vmap(lambda a: a, in_dims=None)(torch.ones(2))",
    "err_sizes": "out = vmap(torch.add)(torch.ones(3, 2), torch.ones(2, 2))",
    "err_randomness_arg": "out = vmap(lambda a: a, randomness='foo')",
    "err_chunk_size": "out = vmap(lambda a: a, chunk_size=0)",
    "err_out_dims_type": "out = vmap(lambda a: a, out_dims='a')(torch.ones(2))",
    "err_out_dim_range": "out = vmap(lambda a: a, out_dims=3)(torch.ones(2, 3))",
    "err_out_dims_none_batched": "out = vmap(lambda a: a, out_dims=None)(torch.ones(2))",
    "err_rand": "out = vmap(lambda a: a + torch.rand(2))(torch.ones(3, 2))",
    "err_rand_like": "out = vmap(torch.rand_like)(torch.ones(3, 2))",
    "err_dropout": "out = vmap(lambda a: F.dropout(a))(torch.ones(3, 2))",
    "err_item": "out = vmap(lambda a: a.sum().item())(torch.ones(3, 2))",
    "err_data_ptr": "out = vmap(lambda a: a.data_ptr() and a)(torch.ones(3, 2))",
    "err_nonzero": "out = vmap(lambda a: a.nonzero())(torch.ones(3, 2))",
    "err_inplace_unbatched_self": "out = vmap(lambda a, b: b.add_(a), in_dims=(0, None))"
    "(torch.ones(3, 2), torch.ones(2))",
    "err_dim_range": "out = vmap(lambda a: a.sum(2))(torch.ones(3, 2))",
    "err_mm_shape": "out = vmap(torch.mm)(torch.ones(3, 2, 4), torch.ones(3, 3, 2))",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_vmap(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], rtol=1e-5, atol=1e-5)


def test_fallback_warns_as_torch() -> None:
    """An op with no batching rule runs once per sample, with torch's performance warning
    (on by default: kVmapFallbackWarningEnabled), which the switch turns off."""
    import warnings

    import tensortrace
    from tensortrace.aten.functorch import batched_fallback

    x = tensortrace.randn(3, 5)
    with pytest.warns(UserWarning, match="batching rule for aten::histc"):
        out = tensortrace.func.vmap(lambda a: tensortrace.histc(a, 4))(x)
    assert tensortrace.equal(out, tensortrace.stack([tensortrace.histc(r, 4) for r in x]))
    batched_fallback._set_vmap_fallback_warning_enabled(False)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            tensortrace.func.vmap(lambda a: tensortrace.histc(a, 4))(x)
    finally:
        batched_fallback._set_vmap_fallback_warning_enabled(True)


def test_trace_shows_the_batched_dispatch() -> None:
    """A batched op is a dispatch to FuncTorchBatched, then its rule, then the op on the value."""
    import tensortrace
    from tensortrace.trace import record

    x = tensortrace.ones(2, 3)
    with record() as trace:
        tensortrace.func.vmap(lambda a: a.sum())(x)
    names = {frame.name for frame in trace.frames()}
    assert "redispatch sum -> FuncTorchBatched" in names
    assert "at::functorch::full_reduction_batch_rule" in names
    assert "at::functorch::BatchedTensorImpl::BatchedTensorImpl" in names
    trace.chrome_trace_events()  # the export reads every fact a BatchedTensorImpl records
