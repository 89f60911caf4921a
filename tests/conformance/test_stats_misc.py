"""Conformance of diff, dist, bincount, searchsorted / bucketize, cartesian_prod, combinations,
logspace, frombuffer and asarray against torch 2.13: values, result dtypes, prepend / append,
sorter and side, NaN placement, shared memory, aliasing and copies, gradients and errors."""

from __future__ import annotations

import pytest

from .harness import check

EXACT = {
    # ---- diff ------------------------------------------------------------------------------
    "diff": "x = (torch.rand(3, 6) * 10).long(); out = (x.diff(), torch.diff(x, dim=0), "
    "x.diff(n=2), x.diff(3, -1), x.diff(0), x.diff(n=7))",
    "diff_prepend_append": "x = (torch.rand(3, 4) * 10).long(); p = torch.zeros(3, 2, "
    "dtype=torch.int64); a = torch.ones(1, 4, dtype=torch.int64); out = (x.diff(prepend=p), "
    "x.diff(dim=0, append=a), torch.diff(x, 2, 1, p, p), x.diff(0, prepend=p))",
    "diff_bool": "x = torch.rand(2, 7) > 0.5; out = (x.diff(), x.diff(n=2), x.diff(dim=0))",
    "diff_noncontig": "x = (torch.rand(6, 4) * 9).long().t(); out = (x.diff(), x.diff(dim=0))",
    "diff_out": "x = (torch.rand(3, 5) * 9).long(); o = torch.empty(0, dtype=torch.int64); "
    "r = torch.diff(x, 2, out=o); q = torch.empty(0, dtype=torch.int64); "
    "torch.diff(x, 0, out=q); out = (o, r is o, q)",
    "diff_scalar_error": "out = torch.tensor(1.).diff()",
    "diff_order_error": "out = torch.rand(3).diff(-1)",
    "diff_prepend_dim_error": "out = torch.rand(3, 4).diff(prepend=torch.rand(4))",
    "diff_prepend_shape_error": "out = torch.rand(3, 4).diff(append=torch.rand(2, 2))",
    "diff_bad_dim": "out = torch.rand(3, 4).diff(dim=2)",
    # ---- bincount --------------------------------------------------------------------------
    "bincount": "x = (torch.rand(20) * 6).long(); out = (x.bincount(), torch.bincount(x, "
    "minlength=10), x.int().bincount(), torch.bincount(x.to(torch.uint8), minlength=2))",
    "bincount_weights": "x = (torch.rand(20) * 6).long(); w = torch.rand(20); "
    "out = (x.bincount(w), torch.bincount(x, w.double(), 8), x.bincount(w.half()), "
    "x.bincount(torch.arange(20)))",
    "bincount_noncontig": "x = (torch.rand(10, 2) * 5).long()[:, 0]; w = torch.rand(10, 2)[:, 1]; "
    "out = (x.bincount(), x.bincount(w))",
    "bincount_empty": "out = (torch.empty(0, dtype=torch.int64).bincount(), "
    "torch.empty(0, dtype=torch.int64).bincount(minlength=3), "
    "torch.empty(0, dtype=torch.int64).bincount(torch.empty(0), 2))",
    "bincount_negative_error": "out = torch.tensor([1, -1]).bincount()",
    "bincount_2d_error": "out = torch.ones(2, 2, dtype=torch.int64).bincount()",
    "bincount_float_error": "out = torch.rand(3).bincount()",
    "bincount_bool_error": "out = torch.tensor([True]).bincount()",
    "bincount_minlength_error": "out = torch.tensor([1]).bincount(minlength=-1)",
    "bincount_weights_error": "out = torch.tensor([1, 2]).bincount(torch.rand(3))",
    # ---- searchsorted / bucketize ----------------------------------------------------------
    "searchsorted": "s = torch.tensor([1., 3., 3., 5., 7.]); v = torch.tensor([[0., 3., 6.], "
    "[7., 8., 3.5]]); out = (torch.searchsorted(s, v), torch.searchsorted(s, v, right=True), "
    "torch.searchsorted(s, v, side='right'), torch.searchsorted(s, v, out_int32=True), "
    "torch.searchsorted(s, 3), torch.searchsorted(s, 3., side='left'))",
    "searchsorted_rows": "s = torch.sort(torch.rand(2, 3, 6), -1)[0]; v = torch.rand(2, 3, 4); "
    "out = (torch.searchsorted(s, v), torch.searchsorted(s, v, right=True))",
    "searchsorted_sorter": "s = torch.tensor([5., 1., 7., 3., 3.]); so = s.argsort(); "
    "v = torch.tensor([0., 3., 4., 8.]); out = (torch.searchsorted(s, v, sorter=so), "
    "torch.searchsorted(s, v, side='right', sorter=so))",
    "searchsorted_nan": "s = torch.tensor([1., 2., float('nan')]); "
    "v = torch.tensor([float('nan'), 1.5, 3.]); out = (torch.searchsorted(s, v), "
    "torch.searchsorted(s, v, right=True))",
    "searchsorted_promotion": "s = torch.tensor([1, 3, 5]); v = torch.tensor([2.5, 3., 9.]); "
    "out = (torch.searchsorted(s, v), torch.searchsorted(s, 2.5), "
    "torch.searchsorted(s.double(), v), torch.searchsorted(s, torch.tensor([3, 4])))",
    "searchsorted_noncontig": "s = torch.sort(torch.rand(4, 6), 0)[0].t(); "
    "v = torch.rand(3, 6).t(); out = torch.searchsorted(s, v)",
    "searchsorted_out": "s = torch.tensor([1., 3., 5.]); o = torch.empty(0, dtype=torch.int64); "
    "r = torch.searchsorted(s, torch.tensor([2., 4.]), out=o); p = torch.empty(0, "
    "dtype=torch.int32); torch.searchsorted(s, 4., out_int32=True, out=p); out = (o, r is o, p)",
    "searchsorted_empty": "out = torch.searchsorted(torch.tensor([1., 2.]), torch.empty(0, 3))",
    "searchsorted_side_error": "out = torch.searchsorted(torch.rand(3), torch.rand(2), "
    "side='middle')",
    "searchsorted_side_right_error": "out = torch.searchsorted(torch.rand(3), torch.rand(2), "
    "right=True, side='left')",
    "searchsorted_dims_error": "out = torch.searchsorted(torch.rand(2, 3), torch.rand(3, 2))",
    "searchsorted_scalar_error": "out = torch.searchsorted(torch.rand(2, 3), 0.5)",
    "searchsorted_0d_error": "out = torch.searchsorted(torch.tensor(1.), torch.rand(2))",
    "searchsorted_sorter_size_error": "out = torch.searchsorted(torch.rand(3), torch.rand(2), "
    "sorter=torch.tensor([0, 1]))",
    "searchsorted_sorter_dtype_error": "out = torch.searchsorted(torch.rand(3), torch.rand(2), "
    "sorter=torch.tensor([0, 1, 2]).int())",
    "searchsorted_sorter_range_error": "out = torch.searchsorted(torch.rand(3), torch.rand(2), "
    "sorter=torch.tensor([0, 1, 3]))",
    "searchsorted_out_dtype_error": "out = torch.searchsorted(torch.rand(3), torch.rand(2), "
    "out=torch.empty(0, dtype=torch.int32))",
    "searchsorted_bool_error": "out = torch.searchsorted(torch.tensor([False, True]), "
    "torch.tensor([True]))",
    "bucketize": "b = torch.tensor([1., 3., 5., 7.]); x = torch.tensor([[0., 3., 6.], "
    "[9., 5., 1.]]); out = (torch.bucketize(x, b), torch.bucketize(x, b, right=True), "
    "torch.bucketize(x, b, out_int32=True), torch.bucketize(5, b), "
    "torch.bucketize(x.t(), b))",
    "bucketize_out": "o = torch.empty(0, dtype=torch.int64); r = torch.bucketize("
    "torch.tensor([2., 6.]), torch.tensor([1., 5.]), out=o); out = (o, r is o)",
    "bucketize_boundaries_error": "out = torch.bucketize(torch.rand(3), torch.rand(2, 2))",
    # ---- cartesian_prod / combinations -----------------------------------------------------
    "cartesian_prod": "a = torch.tensor([1, 2, 3]); b = torch.tensor([4, 5]); "
    "out = (torch.cartesian_prod(a, b), torch.cartesian_prod(a), "
    "torch.cartesian_prod(a, b, torch.tensor([6, 7])))",
    "cartesian_prod_error": "out = torch.cartesian_prod(torch.rand(2, 2), torch.rand(2))",
    "combinations": "a = torch.tensor([1, 2, 3, 4]); out = (torch.combinations(a), "
    "torch.combinations(a, 3), torch.combinations(a, with_replacement=True), "
    "torch.combinations(a, r=0), torch.combinations(a, 1), torch.combinations(a, 5))",
    "combinations_error": "out = torch.combinations(torch.rand(2, 2))",
    "combinations_r_error": "out = torch.combinations(torch.rand(3), -1)",
    # ---- logspace --------------------------------------------------------------------------
    "logspace_int": "out = (torch.logspace(0, 3, 4, dtype=torch.int64), "
    "torch.logspace(1, 5, 5, base=2, dtype=torch.int32), torch.logspace(0, 2, 1))",
    "logspace_complex": "out = (torch.logspace(0j, 1, 3), torch.logspace(0, 1j, 2, "
    "dtype=torch.complex128).dtype)",
    "logspace_complex_dtype_error": "out = torch.logspace(0j, 1, 3, dtype=torch.float32)",
    "logspace_errors": "out = torch.logspace(0, 1, -1)",
    "logspace_tensor_error": "out = torch.logspace(torch.tensor([0., 1.]), 2, 3)",
    # ---- frombuffer (a CPU tensor on every default device: compared as lists) --------------
    "frombuffer": "b = bytearray(range(1, 9)); x = torch.frombuffer(b, dtype=torch.int16); "
    "x[0] = 7; y = torch.frombuffer(b, dtype=torch.uint8, count=3, offset=2); "
    "out = (x.tolist(), str(x.dtype), tuple(x.shape), x.device.type, bytes(b[:2]), y.tolist(), "
    "x.is_contiguous())",
    "frombuffer_requires_grad": "import array\nx = torch.frombuffer(array.array('f', [1., 2.]), "
    "dtype=torch.float32, requires_grad=True); y = torch.frombuffer(b'abcd', dtype=torch.uint8)\n"
    "out = (x.requires_grad, x.is_leaf, x.tolist(), y.tolist())",
    "frombuffer_empty_error": "out = torch.frombuffer(b'', dtype=torch.int8)",
    "frombuffer_count0_error": "out = torch.frombuffer(b'ab', dtype=torch.int8, count=0)",
    "frombuffer_multiple_error": "out = torch.frombuffer(b'abc', dtype=torch.int16)",
    "frombuffer_offset_error": "out = torch.frombuffer(b'abc', dtype=torch.int8, offset=3)",
    "frombuffer_count_error": "out = torch.frombuffer(b'abcd', dtype=torch.int16, count=3)",
    "frombuffer_not_buffer": "out = torch.frombuffer(3, dtype=torch.int8)",
    "frombuffer_no_dtype": "out = torch.frombuffer(b'ab')",
    # ---- asarray ---------------------------------------------------------------------------
    "asarray_sequence": "out = (torch.asarray([1, 2, 3]), torch.asarray([1., 2.]), "
    "torch.asarray([[1, 2], [3, 4]], dtype=torch.float16), torch.asarray(3.5), "
    "torch.asarray(True), torch.asarray([1., 2.], requires_grad=True).requires_grad)",
    "asarray_tensor_alias": "x = torch.rand(3); y = torch.asarray(x); "
    "z = torch.asarray(x, dtype=torch.float32, copy=False); y[0] = 5.; "
    "out = (y is x, z is x, x, y.data_ptr() == x.data_ptr())",
    "asarray_tensor_copy": "x = torch.rand(3); y = torch.asarray(x, copy=True); y[0] = 5.; "
    "out = (x, y, torch.asarray(x, dtype=torch.float64), torch.asarray(x, dtype=torch.int32, "
    "copy=True))",
    "asarray_grad": "x = torch.rand(3, requires_grad=True); y = torch.asarray(x, copy=True); "
    "z = torch.asarray(x * 2); out = (y.grad_fn.name(), y.requires_grad, "
    "torch.asarray(x).requires_grad, torch.asarray(x) is x, z.grad_fn.name(), "
    "torch.asarray(x, dtype=torch.float64).grad_fn.name())",
    "asarray_requires_grad": "x = torch.rand(3); y = torch.asarray(x, requires_grad=True); "
    "out = (y is x, x.requires_grad, y.is_leaf, torch.asarray(x * 2, requires_grad=True)"
    ".grad_fn.name())",
    "asarray_numpy": "a = np.array([1, 2, 3]); out = (torch.asarray(a), "
    "torch.asarray(np.float64(2.5)), torch.asarray(a, dtype=torch.float32), "
    "torch.asarray(np.ones((2, 2), dtype=np.float32)))",
    "asarray_buffer": "out = (torch.asarray(b'ab', dtype=torch.uint8), "
    "torch.asarray(bytearray(8)))",
    "asarray_sequence_alias_error": "out = torch.asarray([1, 2], copy=False)",
    "asarray_dtype_alias_error": "out = torch.asarray(torch.rand(2), dtype=torch.float64, "
    "copy=False)",
    "asarray_numpy_scalar_error": "out = torch.asarray(np.float64(3.), copy=False)",
    "asarray_int_grad_error": "out = torch.asarray([1, 2], requires_grad=True)",
    "asarray_buffer_size_error": "out = torch.asarray(b'abc')",
}

FLOAT = {
    "diff_grad": "g = torch.rand(3, 5, dtype=torch.float64, requires_grad=True); "
    "(g.diff(2) * torch.arange(9., dtype=torch.float64).view(3, 3)).sum().backward(); "
    "out = g.grad",
    "dist": "a = torch.rand(3, 4); b = torch.rand(4); out = (torch.dist(a, b), a.dist(b, 1), "
    "a.dist(b, 3.), a.dist(b, float('inf')), a.dist(b, 0), torch.dist(a.double(), b.double()))",
    "dist_grad": "a = torch.rand(3, 4, dtype=torch.float64, requires_grad=True); "
    "b = torch.rand(3, 4, dtype=torch.float64, requires_grad=True); "
    "torch.dist(a, b, 3).backward(); out = (a.grad, b.grad)",
    "dist_int_error": "out = torch.dist(torch.arange(3), torch.arange(3))",
    "cartesian_prod_grad": "a = torch.rand(3, requires_grad=True); b = torch.rand(2, "
    "requires_grad=True); (torch.cartesian_prod(a, b) * torch.arange(12.).view(6, 2)).sum()"
    ".backward(); out = (a.grad, b.grad)",
    "combinations_grad": "a = torch.rand(4, dtype=torch.float64, requires_grad=True); "
    "torch.combinations(a, 2).prod(1).sum().backward(); out = a.grad",
    "logspace": "out = (torch.logspace(-2, 2, 5), torch.logspace(0, 1, 6, base=2), "
    "torch.logspace(0., 3., 7, dtype=torch.float64), torch.logspace(1, 0, 4, 3.), "
    "torch.logspace(torch.tensor(0.), torch.tensor(1.), 3), torch.logspace(0, 2, 0))",
    "logspace_out": "o = torch.empty(0); r = torch.logspace(0, 1, 5, out=o); "
    "p = torch.empty(4, dtype=torch.float64); torch.logspace(1, 2, 4, 2., out=p); "
    "out = (o, r is o, p)",
}


@pytest.mark.parametrize("name", sorted(EXACT))
def test_exact(name: str) -> None:
    check(EXACT[name])


@pytest.mark.parametrize("name", sorted(FLOAT))
def test_float(name: str) -> None:
    check(FLOAT[name], rtol=1e-6, atol=1e-7)
