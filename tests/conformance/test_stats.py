"""Conformance of the statistics ops against torch 2.13: median / nanmedian, kthvalue, mode,
quantile / nanquantile (Sorting.cpp, TensorCompare.cpp), with their indices, NaN handling,
gradients and errors; lerp with a tensor weight and transpose_, which quantile runs on;
nansum / nanmean and var_mean / std_mean (ReduceOps.cpp)."""

from __future__ import annotations

import pytest

from . import harness
from .harness import check

NAN_ROWS = "x = torch.tensor([[3., 1., 2., 1.], [float('nan'), 5., 4., 4.], [2., 2., 2., 7.]]); "

EXACT = {
    # ---- median / nanmedian ----------------------------------------------------------------
    "median_all": "x = torch.rand(3, 5); out = (x.median(), torch.median(x), x.nanmedian())",
    "median_even_count": "x = torch.rand(4, 6); out = (x.median(), torch.nanmedian(x))",
    "median_dim": "x = torch.rand(3, 5); r = x.median(1); out = (type(r).__name__, r.values, "
    "r.indices, tuple(torch.median(x, 0, keepdim=True)), tuple(x.median(-1, True)))",
    "median_ties_int": "x = (torch.rand(5, 8) * 3).to(torch.int64); out = (x.median(), "
    "tuple(x.median(1)), tuple(x.median(0)))",
    "median_nan": NAN_ROWS + "out = (x.median(), tuple(x.median(1)), tuple(x.median(0)))",
    "nanmedian_nan": NAN_ROWS + "out = (x.nanmedian(), tuple(x.nanmedian(1)), "
    "tuple(torch.nanmedian(x, 0)))",
    "nanmedian_all_nan": "x = torch.full((2, 5), float('nan')); out = (x.nanmedian(), "
    "tuple(x.nanmedian(1)), tuple(torch.full((20,), float('nan')).nanmedian(0)))",
    "median_float64_noncontig": "x = torch.rand(6, 5, dtype=torch.float64).t(); "
    "out = (x.median(), tuple(x.median(0)), tuple(x.nanmedian(1, keepdim=True)))",
    "median_half": "x = torch.rand(4, 5).half(); out = (x.median(), tuple(x.median(1)))",
    "median_out": "v = torch.empty(0); i = torch.empty(0, dtype=torch.int64); "
    "r = torch.median(torch.rand(3, 4), 1, out=(v, i)); "
    "out = (type(r).__name__, v, i, r.values is v, r.indices is i)",
    "nanmedian_out": "v = torch.empty(0); i = torch.empty(0, dtype=torch.int64); "
    "torch.nanmedian(torch.rand(3, 4), 0, True, out=(v, i)); out = (v, i)",
    "median_out_dtype_errors": "x = torch.rand(3, 4); e = []\n"
    "for o in ((torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.int64)), "
    "(torch.empty(0), torch.empty(0))):\n"
    "    for f in (torch.median, torch.nanmedian, torch.mode):\n"
    "        try:\n            f(x, 1, out=o)\n        except RuntimeError as err:\n"
    "            e.append(str(err))\nout = e",
    "median_scalar": "x = torch.rand(()); out = (x.median(), tuple(x.median(0)), "
    "tuple(x.nanmedian(-1)))",
    "median_empty": "out = (torch.empty(0).median(), torch.empty(0, 3).nanmedian(), "
    "tuple(torch.empty(0, 3).median(1)))",
    "median_empty_dim_error": "out = torch.empty(0, 3).median(0)",
    "median_bad_dim": "out = torch.rand(3, 4).median(2)",
    "median_bool_error": "out = torch.tensor([True, False]).median()",
    "median_dim_bool_error": "out = torch.tensor([True, False]).median(0)",
    "median_complex_error": "out = torch.rand(3, dtype=torch.complex64).median()",
    "median_grad_all": "g = torch.rand(3, 5, requires_grad=True); g.median().backward(); "
    "out = g.grad",
    "median_grad_dim": "g = torch.rand(3, 5, dtype=torch.float64, requires_grad=True); "
    "r = g.median(1); (r.values * torch.arange(3.)).sum().backward(); "
    "out = (g.grad, r.values.grad_fn.name())",
    "nanmedian_grad": NAN_ROWS + "g = x.requires_grad_(); g.nanmedian(0, keepdim=True)"
    ".values.sum().backward(); out = g.grad",
    # ---- kthvalue --------------------------------------------------------------------------
    "kthvalue": "x = torch.rand(4, 6); r = x.kthvalue(2); out = (type(r).__name__, r.values, "
    "r.indices, tuple(torch.kthvalue(x, 3, 0)), tuple(x.kthvalue(1, 1, True)))",
    "kthvalue_ties": "x = (torch.rand(5, 30) * 4).to(torch.int64); out = tuple(x.kthvalue(7)) "
    "+ tuple(x.kthvalue(2, 0))",
    "kthvalue_nan": NAN_ROWS + "out = tuple(x.kthvalue(4, 1)) + tuple(x.kthvalue(3, 0))",
    "kthvalue_float64_noncontig": "x = torch.rand(5, 4, dtype=torch.float64).t(); "
    "out = tuple(x.kthvalue(2, 0)) + tuple(x.kthvalue(4))",
    "kthvalue_out": "v = torch.empty(0); i = torch.empty(0, dtype=torch.int64); "
    "r = torch.kthvalue(torch.rand(3, 4), 2, out=(v, i)); out = (v, i, r.values is v)",
    "kthvalue_scalar": "out = tuple(torch.rand(()).kthvalue(1))",
    "kthvalue_k_error": "out = torch.rand(3).kthvalue(4)",
    "kthvalue_k0_error": "out = torch.rand(2, 3).kthvalue(0, 0)",
    "kthvalue_scalar_k_error": "out = torch.rand(()).kthvalue(2)",
    "kthvalue_empty_error": "out = torch.empty(0, 3).kthvalue(1, 0)",
    "kthvalue_empty_ok": "out = tuple(torch.empty(0, 3).kthvalue(1, 1))",
    "kthvalue_bool_error": "out = torch.tensor([True, False]).kthvalue(1)",
    "kthvalue_grad": "g = torch.rand(3, 5, requires_grad=True); g.kthvalue(2, 1)[0].sum()"
    ".backward(); out = g.grad",
    # ---- mode ------------------------------------------------------------------------------
    "mode": "x = (torch.rand(4, 9) * 3).to(torch.int64); r = x.mode(); "
    "out = (type(r).__name__, r.values, r.indices, tuple(torch.mode(x, 0)), "
    "tuple(x.mode(1, keepdim=True)))",
    "mode_long_rows": "x = (torch.rand(3, 40) * 5).float(); x = x.floor(); "
    "out = tuple(x.mode(1)) + tuple(x.mode(0))",
    "mode_float": "x = torch.rand(3, 4, dtype=torch.float64); out = tuple(x.mode(1))",
    "mode_bool_half": "out = tuple((torch.rand(3, 7) > 0.5).mode(1)) + "
    "tuple((torch.rand(3, 7) * 2).floor().half().mode(1))",
    "mode_noncontig": "x = (torch.rand(9, 4) * 3).floor().t(); out = tuple(x.mode(0)) + "
    "tuple(x.mode(1))",
    "mode_out": "v = torch.empty(0, dtype=torch.int64); i = torch.empty(0, dtype=torch.int64); "
    "r = torch.mode((torch.rand(3, 6) * 3).long(), 1, out=(v, i)); out = (v, i, r.indices is i)",
    "mode_scalar": "out = (tuple(torch.rand(()).mode()), tuple(torch.tensor(True).mode()))",
    "mode_empty_error": "out = torch.empty(0).mode()",
    "mode_empty_ok": "out = tuple(torch.empty(0, 3).mode(1))",
    "mode_bad_dim": "out = torch.rand(3, 4).mode(3)",
    "mode_grad": "g = (torch.rand(3, 8) * 3).floor().requires_grad_(); "
    "g.mode(1).values.sum().backward(); out = g.grad",
    # ---- quantile / nanquantile errors -----------------------------------------------------
    "quantile_q_range": "out = torch.rand(3).quantile(2.)",
    "quantile_q_tensor_range": "out = torch.rand(3).quantile(torch.tensor([0.5, 2.]))",
    "quantile_interpolation_error": "out = torch.rand(3).quantile(0.5, interpolation='x')",
    "quantile_empty": "out = torch.empty(0).quantile(0.5)",
    "quantile_int_error": "out = torch.rand(3).int().quantile(0.5)",
    "quantile_q_dtype_error": "out = torch.rand(3).quantile(torch.tensor([0.5]).double())",
    "quantile_q_2d_error": "out = torch.rand(3).quantile(torch.rand(2, 2))",
    "quantile_bad_dim": "out = torch.rand(3, 4).quantile(0.5, dim=2)",
    "quantile_out_dtype_error": "out = torch.quantile(torch.rand(3), 0.5, "
    "out=torch.empty(0, dtype=torch.float64))",
    # ---- nansum / nanmean / var_mean / std_mean: dtypes and errors -----------------------
    "nansum_int": "x = (torch.rand(3, 4) * 9).to(torch.int32); out = (x.nansum(), "
    "torch.nansum(x, 1), x.nansum(0, keepdim=True, dtype=torch.int16), "
    "(torch.rand(3) > 0.5).nansum())",
    "nansum_empty": "out = (torch.empty(0, 3).nansum(), torch.empty(0, 3).nansum(0), "
    "torch.empty(0, 3).nanmean(0))",
    "nansum_complex_error": "out = torch.rand(3, dtype=torch.complex64).nansum()",
    "nansum_bad_dim": "out = torch.rand(3, 4).nansum(2)",
    "nanmean_int_error": "out = torch.arange(3).nanmean()",
    "var_mean_int_error": "out = torch.var_mean(torch.arange(3))",
    "std_mean_bad_dim": "out = torch.std_mean(torch.rand(3, 4), 2)",
    "var_mean_no_method": "out = hasattr(torch.rand(2), 'var_mean')",
    # ---- transpose_ ------------------------------------------------------------------------
    "transpose_": "x = torch.rand(2, 3, 4); y = x.transpose_(0, -1); "
    "out = (x, y is x, x.transpose_(1, 1), torch.rand(2, 3).transpose_(0, 1))",
    "transpose__bad_dim": "out = torch.rand(2, 3).transpose_(0, 2)",
}

# lerp and the ranks' arithmetic round as torch's do, but a sum of gradients or a
# transcendental may differ in the last bit
FLOAT = {
    "quantile_scalar_q": "x = torch.rand(4, 5); out = (x.quantile(0.3), torch.quantile(x, 0.5, "
    "dim=1), x.quantile(0.75, 0, keepdim=True), x.quantile(1.), x.quantile(0.))",
    "quantile_tensor_q": "x = torch.rand(4, 5); q = torch.tensor([0.1, 0.5, 0.9]); "
    "out = (x.quantile(q), x.quantile(q, dim=1), x.quantile(q, dim=0, keepdim=True), "
    "x.quantile(q, keepdim=True))",
    "quantile_interpolations": "x = torch.rand(3, 7, dtype=torch.float64); "
    "q = torch.tensor([0.0, 0.25, 0.4, 0.5, 1.0], dtype=torch.float64); out = [x.quantile(q, "
    "dim=1, interpolation=m) for m in ('linear', 'lower', 'higher', 'midpoint', 'nearest')]",
    "quantile_noncontig": "x = torch.rand(6, 4).t(); out = (x.quantile(0.4, dim=0), "
    "x.quantile(torch.tensor([0.2, 0.8]), dim=1))",
    "quantile_nan": NAN_ROWS + "out = (x.quantile(0.5), x.quantile(0.5, dim=1), "
    "x.nanquantile(0.5), x.nanquantile(torch.tensor([0.3, 0.6]), dim=1), "
    "torch.nanquantile(x, 0.4, dim=0, interpolation='nearest'))",
    "nanquantile_all_nan": "x = torch.full((2, 3), float('nan')); out = (x.nanquantile(0.5, 1), "
    "x.nanquantile(0.2))",
    "quantile_scalar_input": "out = (torch.tensor(2.).quantile(0.3), "
    "torch.tensor(2.).quantile(torch.tensor([0.3, 0.5]), dim=0, keepdim=True))",
    "quantile_out": "o = torch.empty(0); r = torch.quantile(torch.rand(3, 4), 0.25, dim=1, "
    "out=o); p = torch.empty(0); torch.nanquantile(torch.rand(3, 4), torch.tensor([0.2, 0.7]), "
    "out=p); out = (o, r is o, p)",
    "quantile_grad": "g = torch.rand(3, 5, requires_grad=True); "
    "(g.quantile(torch.tensor([0.3, 0.6]), dim=1) * torch.tensor([[1.], [2.]])).sum().backward(); "
    "out = g.grad",
    "quantile_grad_float64": "g = torch.rand(4, 3, dtype=torch.float64, requires_grad=True); "
    "g.nanquantile(0.5, interpolation='midpoint').backward(); out = g.grad",
    # ---- nansum / nanmean ----------------------------------------------------------------
    "nansum": NAN_ROWS + "out = (x.nansum(), torch.nansum(x, 1), x.nansum((0, 1), keepdim=True), "
    "x.nansum(0, dtype=torch.float64), x.t().nansum(0))",
    "nansum_out": NAN_ROWS + "o = torch.empty(0); r = torch.nansum(x, 1, out=o); out = (o, r is o)",
    "nansum_half": "x = torch.rand(4, 5).half(); x[1, 2] = float('nan'); "
    "out = (x.nansum(), x.nansum(1))",
    "nansum_grad": NAN_ROWS + "g = x.requires_grad_(); (g.nansum(1) * torch.tensor([1., 2., 3.]))"
    ".sum().backward(); out = g.grad",
    "nanmean": NAN_ROWS + "out = (x.nanmean(), torch.nanmean(x, 1), x.nanmean(0, keepdim=True), "
    "torch.full((2, 3), float('nan')).nanmean(1), x.t().nanmean(1, dtype=torch.float64))",
    "nanmean_out_grad": NAN_ROWS + "o = torch.empty(0); torch.nanmean(x, 0, out=o); "
    "g = x.clone().requires_grad_(); g.nanmean(1).sum().backward(); out = (o, g.grad)",
    # ---- var_mean / std_mean -----------------------------------------------------------------
    "var_mean": "x = torch.rand(3, 4); r = torch.var_mean(x); s = torch.std_mean(x, 1); "
    "out = (type(r).__name__, r, s, torch.var_mean(x, 0, keepdim=True), "
    "torch.std_mean(x, (0, 1), unbiased=False), torch.var_mean(x, 1, True, True), "
    "torch.std_mean(x, unbiased=False))",
    "var_mean_correction": "x = torch.rand(4, 5, dtype=torch.float64); "
    "out = (torch.var_mean(x, correction=0), torch.std_mean(x, 1, correction=2), "
    "torch.var_mean(x, dim=None, correction=1.5), torch.var_mean(x.t(), 1))",
    "var_mean_empty_one": "out = (torch.var_mean(torch.empty(0, 3), 0), "
    "torch.std_mean(torch.rand(1)))",
    "var_mean_complex": "x = torch.rand(3, 4, dtype=torch.complex64); "
    "out = (torch.var_mean(x, 1), torch.std_mean(x))",
    "var_mean_grad": "g = torch.rand(3, 4, dtype=torch.float64, requires_grad=True); "
    "v, m = torch.var_mean(g, 1); (v * 2 + m * torch.tensor([1., 2., 3.], dtype=torch.float64))"
    ".sum().backward(); a = g.grad.clone(); g.grad = None; s, m = torch.std_mean(g, 0, "
    "correction=0); (s * 3).sum().backward(); b = g.grad.clone(); g.grad = None; "
    "torch.std_mean(g)[1].backward(); out = (a, b, g.grad, v.grad_fn.name())",
    # ---- lerp with a tensor weight ---------------------------------------------------------
    "lerp_tensor": "a = torch.rand(3, 4); b = torch.rand(3, 4); w = torch.rand(4) * 1.5 - 0.2; "
    "out = (torch.lerp(a, b, w), a.lerp(b, w), a.clone().lerp_(b, w))",
    "lerp_tensor_grad": "a = torch.rand(3, 4, dtype=torch.float64, requires_grad=True); "
    "b = torch.rand(3, 4, dtype=torch.float64, requires_grad=True); "
    "w = torch.rand(4, dtype=torch.float64, requires_grad=True); "
    "(torch.lerp(a, b, w) * torch.arange(12.).view(3, 4)).sum().backward(); "
    "out = (a.grad, b.grad, w.grad)",
    "lerp_tensor_dtype_error": "out = torch.lerp(torch.rand(3), torch.rand(3), "
    "torch.rand(3).double())",
    # ---- logsumexp's backward --------------------------------------------------------------
    "logsumexp_grad": "g = torch.rand(3, 4, requires_grad=True); "
    "(g.logsumexp(1) * torch.tensor([1., 2., 3.])).sum().backward(); "
    "h = torch.rand(2, 3, 4, dtype=torch.float64, requires_grad=True); "
    "torch.logsumexp(h, (0, 2), keepdim=True).sum().backward(); out = (g.grad, h.grad)",
}


# checks torch makes on the CPU only, as CUDA torch does not: nansum refuses complex inputs on
# the CPU alone, and quantile checks q's range only where that needs no device sync
CPU_ONLY_CHECKS = {"nansum_complex_error", "quantile_q_tensor_range"}


@pytest.mark.parametrize("name", sorted(EXACT))
def test_exact(name: str) -> None:
    if name in CPU_ONLY_CHECKS and harness.DEVICE == "cuda":
        pytest.skip("a check torch makes on the CPU only (compared on the CPU)")
    check(EXACT[name])


@pytest.mark.parametrize("name", sorted(FLOAT))
def test_float(name: str) -> None:
    check(FLOAT[name], rtol=1e-6, atol=1e-7)
