"""Conformance of reductions (sum, mean, prod, max/min, argmax/argmin, var/std, cumsum, all/any)
and linear algebra (mm, bmm, addmm, dot, mv, matmul) against torch 2.13."""

from __future__ import annotations

import pytest

from .harness import check

# Integer, bool and structural results must be bit-identical.
EXACT = {
    # ---- sum -------------------------------------------------------------------------------
    "sum_int64": "x = (torch.rand(3, 4) * 100).to(torch.int64); out = x.sum()",
    "sum_int32_promotes": "x = (torch.rand(3, 4) * 100).to(torch.int32); out = (x.sum(), x.sum(1))",
    "sum_bool_promotes": "x = torch.rand(3, 4) > 0.5; out = (x.sum(), x.sum(0))",
    "sum_dtype_bool": "out = torch.rand(3, 4).sum(dtype=torch.bool)",
    "sum_int_dims_keepdim": "x = (torch.rand(2, 3, 4) * 10).to(torch.int64); "
    "out = x.sum((0, 2), keepdim=True)",
    "sum_dim_out_of_range": "out = torch.rand(3, 4).sum(2)",
    "sum_negative_dim_out_of_range": "out = torch.rand(3, 4).sum(-3)",
    "sum_repeated_dim": "out = torch.rand(3, 4).sum((0, 0))",
    "sum_repeated_wrapped_dim": "out = torch.rand(3, 4).sum((0, -2))",
    "sum_empty": "out = (torch.empty(0, 3).sum(0), torch.empty(0, dtype=torch.int64).sum())",
    "sum_scalar_dim0": "x = (torch.rand(()) * 10).to(torch.int64); out = (x.sum(0), x.sum(-1))",
    "sum_scalar_bad_dim": "out = torch.rand(()).sum(1)",
    "sum_out_int": "x = (torch.rand(3, 4) * 9).to(torch.int64); o = torch.empty(3, "
    "dtype=torch.int64); r = torch.sum(x, 1, out=o); out = (o, r is o)",
    "sum_dtype_int32": "x = (torch.rand(3, 4) * 9).to(torch.int64); out = x.sum(dtype=torch.int32)",
    # ---- mean ------------------------------------------------------------------------------
    "mean_int_error": "out = torch.rand(3).to(torch.int64).mean()",
    "mean_int_dtype_error": "out = torch.rand(3).mean(dtype=torch.int64)",
    "mean_bad_dim": "out = torch.rand(3, 4).mean(5)",
    # ---- prod ------------------------------------------------------------------------------
    "prod_int": "x = (torch.rand(3, 4) * 5 + 1).to(torch.int64); out = (x.prod(), x.prod(1))",
    "prod_bool": "x = torch.rand(3, 4) > 0.2; out = (x.prod(), x.prod(0, keepdim=True))",
    "prod_empty": "out = torch.empty(0, 3).prod(0)",
    # ---- max / min -------------------------------------------------------------------------
    "max_whole": "x = torch.rand(3, 4); out = (x.max(), x.min(), torch.max(x))",
    "max_whole_int": "x = (torch.rand(3, 4) * 50).to(torch.int32); out = (x.max(), x.min())",
    "max_whole_bool": "out = (torch.rand(3, 4) > 0.5).max()",
    "max_dim_namedtuple": "r = torch.rand(3, 4).max(1); out = (type(r).__name__, r.values, "
    "r.indices, r[0], r[1], len(r))",
    "min_dim_keepdim": "r = torch.rand(3, 4).min(0, keepdim=True); out = (type(r).__name__, "
    "r.values, r.indices)",
    "max_dim_negative": "out = tuple(torch.rand(2, 3, 4).max(-2))",
    "max_dim_ties": "x = (torch.rand(4, 6) * 3).to(torch.int64); out = tuple(x.max(1)) + "
    "tuple(x.min(0))",
    "max_dim_nan": "x = torch.rand(3, 4); x[1] = x[1] / 0 * 0; out = tuple(x.max(1)) + (x.max(),)",
    "max_dim_out": "v = torch.empty(0); i = torch.empty(0, dtype=torch.int64); "
    "r = torch.max(torch.rand(3, 4), 1, out=(v, i)); "
    "out = (type(r).__name__, v, i, r.values is v)",
    "max_empty_error": "out = torch.empty(0).max()",
    "max_dim_empty_error": "out = torch.empty(0, 3).max(0)",
    "max_dim_empty_ok": "out = tuple(torch.empty(0, 3).max(1))",
    "max_dim_bad": "out = torch.rand(3, 4).max(2)",
    "max_scalar_dim": "out = tuple(torch.rand(()).max(0))",
    "max_noncontiguous": "x = torch.rand(4, 5).as_strided((4, 3), (1, 4)); "
    "out = (x.max(), tuple(x.max(0)), tuple(x.min(1)))",
    # ---- argmax / argmin -------------------------------------------------------------------
    "argmax_whole": "x = torch.rand(3, 4); out = (x.argmax(), x.argmin())",
    "argmax_dim": "x = torch.rand(3, 4); out = (x.argmax(1), x.argmin(0, keepdim=True), "
    "x.argmax(keepdim=True))",
    "argmax_int_ties": "x = (torch.rand(5, 6) * 3).to(torch.int64); out = (x.argmax(0), "
    "x.argmin(1), x.argmax())",
    "argmax_empty_error": "out = torch.empty(0).argmax()",
    "argmax_empty_dim_error": "out = torch.empty(0, 3).argmax(0)",
    "argmax_size1_dim": "out = torch.rand(3, 1).argmax(1)",
    "argmax_bool_error": "out = (torch.rand(3) > 0.5).argmax()",
    "argmax_noncontiguous": "x = torch.rand(6, 5).as_strided((3, 5), (1, 6)); "
    "out = (x.argmax(), x.argmax(0), x.argmin(1))",
    # ---- var / std -------------------------------------------------------------------------
    "var_int_error": "out = torch.rand(3).to(torch.int64).var()",
    "var_bad_dim": "out = torch.rand(3, 4).std(2)",
    # ---- cumsum ----------------------------------------------------------------------------
    "cumsum_int_promotes": "x = (torch.rand(3, 4) * 9).to(torch.int32); out = (x.cumsum(0), "
    "x.cumsum(1, dtype=torch.int32))",
    "cumsum_bool": "out = (torch.rand(3, 4) > 0.5).cumsum(0)",
    "cumsum_bad_dim": "out = torch.rand(3, 4).cumsum(2)",
    "cumsum_scalar": "out = torch.rand(()).cumsum(0)",
    "cumsum_inplace": "x = (torch.rand(3, 4) * 9).to(torch.int64); y = x.cumsum_(1); "
    "out = (x, y is x)",
    # ---- all / any -------------------------------------------------------------------------
    "all_any_whole": "x = torch.rand(3, 4); out = (x.all(), x.any(), (x > 0.5).all(), "
    "(x > 0.5).any())",
    "all_any_dim": "x = torch.rand(3, 4) > 0.3; out = (x.all(1), x.any(0, keepdim=True), "
    "x.all((0, 1)), torch.any(x, dim=1))",
    "all_uint8": "x = (torch.rand(3, 4) * 3).to(torch.uint8); out = (x.all(), x.any(0))",
    "all_empty": "out = (torch.empty(0, 3).all(0), torch.empty(0, 3).any(1), torch.empty(0).all())",
    "all_one_element": "out = (torch.rand(1).all(), torch.rand(1, 1).any(1))",
    "all_bad_dim": "out = torch.rand(3, 4).all(2)",
    # ---- linear algebra errors and integer products --------------------------------------
    "mm_int": "a = (torch.rand(3, 4) * 9).to(torch.int64); b = (torch.rand(4, 2) * 9)"
    ".to(torch.int64); out = (a.mm(b), a @ b)",
    "mm_shape_error": "out = torch.rand(3, 4).mm(torch.rand(3, 4))",
    "mm_dtype_error": "out = torch.mm(torch.rand(3, 4), torch.rand(4, 5).double())",
    "mm_not_matrix": "out = torch.rand(3, 4).mm(torch.rand(4))",
    "mm_bool_error": "out = torch.mm(torch.rand(3, 4) > 0.5, torch.rand(4, 2) > 0.5)",
    "mm_empty": "out = (torch.rand(0, 3).mm(torch.rand(3, 2)), "
    "torch.rand(2, 0).mm(torch.rand(0, 2)))",
    "bmm_errors_batch": "out = torch.bmm(torch.rand(2, 3, 4), torch.rand(3, 4, 5))",
    "bmm_errors_rank": "out = torch.bmm(torch.rand(3, 4), torch.rand(3, 4))",
    "bmm_dtype_error": "out = torch.bmm(torch.rand(2, 3, 4), torch.rand(2, 4, 5).double())",
    "addmm_dtype_error": "out = torch.addmm(torch.rand(5).double(), torch.rand(3, 4), "
    "torch.rand(4, 5))",
    "addmm_shape_error": "out = torch.addmm(torch.rand(3, 5), torch.rand(3, 4), torch.rand(5, 5))",
    "dot_int": "a = (torch.rand(5) * 9).to(torch.int64); out = (a.dot(a), a @ a)",
    "dot_2d_error": "x = torch.rand(3, 4); out = x.dot(x)",
    "dot_size_error": "out = torch.rand(3).dot(torch.rand(4))",
    "dot_dtype_error": "out = torch.rand(3).dot(torch.rand(3).double())",
    "mv_size_error": "out = torch.mv(torch.rand(3, 4), torch.rand(3))",
    "matmul_0d_error": "out = torch.rand(()) @ torch.rand(3, 4)",
    "matmul_1d_size_error": "out = torch.rand(3) @ torch.rand(4)",
    "matmul_2d1d_error": "out = torch.rand(2, 3) @ torch.rand(4)",
    "matmul_1d2d_error": "out = torch.rand(3) @ torch.rand(4, 5)",
    "matmul_fold_error": "out = torch.rand(2, 3, 4) @ torch.rand(5, 6)",
    "matmul_broadcast_error": "out = torch.rand(2, 3, 4) @ torch.rand(3, 4, 5)",
    "matmul_dtype_error": "out = torch.rand(3).double() @ torch.rand(3, 4)",
    "matmul_int_batched": "a = (torch.rand(2, 1, 3, 4) * 9).to(torch.int64); "
    "b = (torch.rand(5, 4, 2) * 9).to(torch.int64); out = a @ b",
    "rmatmul_not_tensor": "out = torch.rand(3, 4).__rmatmul__('a')",
}

# Float results: torch sums with a vectorized cascade and multiplies with MKL, NumPy with
# pairwise summation and its own BLAS, so the last bits may differ (a few ulps at most).
FLOAT = {
    "sum_whole": "out = torch.rand(3, 4).sum()",
    "sum_dim": "x = torch.rand(3, 4); out = (x.sum(0), x.sum(1), x.sum(-1, keepdim=True))",
    "sum_dims": "out = torch.rand(2, 3, 4).sum((0, 2))",
    "sum_empty_list": "out = torch.rand(3, 4).sum([])",
    "sum_dtype_double": "out = torch.rand(3, 4).sum(dtype=torch.float64)",
    "sum_noncontiguous": "x = torch.rand(4, 6).as_strided((3, 4), (1, 6)); "
    "out = (x.sum(), x.sum(0), x.sum(1, keepdim=True))",
    "sum_out": "o = torch.empty(4); torch.sum(torch.rand(3, 4), 0, out=o); out = o",
    "mean_whole_dim": "x = torch.rand(3, 4); out = (x.mean(), x.mean(0), "
    "x.mean((0, 1), keepdim=True), x.mean(1, dtype=torch.float64))",
    "mean_empty": "out = torch.empty(0, 3).mean(0)",
    "prod_float": "x = torch.rand(3, 4) + 0.5; out = (x.prod(), x.prod(0), "
    "x.prod(1, keepdim=True), x.prod(dtype=torch.float64))",
    "var_std": "x = torch.rand(3, 4); out = (x.var(), x.std(), x.var(0), x.std(1), "
    "x.var(1, keepdim=True), x.std(0, unbiased=False))",
    "var_correction": "x = torch.rand(3, 4); out = (x.var(correction=0), "
    "x.std(1, correction=2), torch.var(x, 1, True, True))",
    "var_empty": "out = torch.empty(0, 3).var(0)",
    "var_noncontiguous": "x = torch.rand(5, 4).as_strided((4, 3), (1, 5)); "
    "out = (x.var(), x.var(0), x.std(1))",
    "cumsum_float": "x = torch.rand(3, 4); out = (x.cumsum(0), x.cumsum(-1), "
    "x.cumsum(1, dtype=torch.float64))",
    "mm": "a = torch.rand(3, 4); b = torch.rand(4, 5); out = (a.mm(b), torch.mm(a, b), a @ b)",
    "mm_transposed": "a = torch.rand(4, 3).as_strided((3, 4), (1, 3)); "
    "b = torch.rand(5, 4).as_strided((4, 5), (1, 4)); out = (a.mm(b), a @ b)",
    "mm_out": "o = torch.empty(3, 5); torch.mm(torch.rand(3, 4), torch.rand(4, 5), out=o); out = o",
    "bmm": "a = torch.rand(2, 3, 4); b = torch.rand(2, 4, 5); out = (a.bmm(b), torch.bmm(a, b))",
    "addmm": "s = torch.rand(3, 5); a = torch.rand(3, 4); b = torch.rand(4, 5); "
    "out = (torch.addmm(s, a, b), torch.addmm(s, a, b, beta=2, alpha=3), "
    "s.addmm(a, b, beta=0))",
    "addmm_broadcast": "out = torch.addmm(torch.rand(5), torch.rand(3, 4), torch.rand(4, 5))",
    "addmm_inplace": "s = torch.rand(3, 5); r = s.addmm_(torch.rand(3, 4), torch.rand(4, 5), "
    "alpha=0.5); out = (s, r is s)",
    "dot": "a = torch.rand(5); b = torch.rand(5); out = (a.dot(b), torch.dot(a, b), a @ b)",
    "mv": "a = torch.rand(3, 4); v = torch.rand(4); out = (a.mv(v), torch.mv(a, v), a @ v)",
    "mv_transposed": "a = torch.rand(4, 3).as_strided((3, 4), (1, 3)); out = a @ torch.rand(4)",
    "matmul_1d_2d": "out = torch.rand(4) @ torch.rand(4, 5)",
    "matmul_3d_3d": "out = torch.rand(2, 3, 4) @ torch.rand(2, 4, 5)",
    "matmul_3d_2d_fold": "out = torch.rand(2, 3, 4) @ torch.rand(4, 5)",
    "matmul_3d_1d_fold": "out = torch.rand(2, 3, 4) @ torch.rand(4)",
    "matmul_1d_3d": "out = torch.rand(4) @ torch.rand(2, 4, 3)",
    "matmul_2d_3d": "out = torch.rand(5, 3) @ torch.rand(2, 3, 4)",
    "matmul_broadcast_4d": "out = torch.rand(2, 1, 3, 4) @ torch.rand(5, 4, 2)",
    "matmul_batch_one": "out = torch.rand(1, 3, 4) @ torch.rand(6, 4, 2)",
    "matmul_method_out": "a = torch.rand(3, 4); b = torch.rand(4, 5); o = torch.empty(3, 5); "
    "torch.matmul(a, b, out=o); out = (a.matmul(b), o)",
    "rmatmul": "a = torch.rand(3, 4); v = torch.rand(3); out = a.__rmatmul__(v)",
    "matmul_double": "a = torch.rand(3, 4, dtype=torch.float64); "
    "out = a @ torch.rand(4, 2, dtype=torch.float64)",
}


@pytest.mark.parametrize("name", sorted(EXACT))
def test_exact(name: str) -> None:
    check(EXACT[name])


@pytest.mark.parametrize("name", sorted(FLOAT))
def test_float(name: str) -> None:
    # a few float32 ulps: summation order and the BLAS differ (see FLOAT above)
    check(FLOAT[name], rtol=2e-6, atol=1e-6)


def test_errors_free_what_they_allocated() -> None:
    """After every program (errors included), the allocator is back where it started."""
    import gc
    import math

    import numpy as np

    import tensortrace

    for name, program in {**EXACT, **FLOAT}.items():
        gc.collect()
        before = tensortrace.memory_allocated("cpu")
        namespace = {"torch": tensortrace, "np": np, "math": math}
        try:
            exec(program, namespace)
        except Exception:  # the error path is what is being checked
            pass
        del namespace
        gc.collect()
        assert tensortrace.memory_allocated("cpu") == before, name
