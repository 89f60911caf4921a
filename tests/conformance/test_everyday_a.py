"""Conformance of the everyday APIs of issue 15, part A, against torch 2.13.0.

T / H / mT / mH and adjoint (views and their errors), numel / nelement / element_size / dim,
Tensor.type(), the new_* factories and new_tensor; then the random functions (bit-exact after
manual_seed), the norms, finfo / iinfo, and the long tail, each with its errors.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from .harness import check

PROGRAMS = {
    # ---- transposes --------------------------------------------------------------------------
    "T_2d": "out = torch.rand(2, 3).T",
    "T_3d": "out = torch.rand(2, 3, 4).T",
    "T_1d": "out = torch.rand(3).T",
    "T_0d": "out = torch.tensor(1.5).T",
    "T_of_view": "x = torch.rand(4, 5)[1:, ::2]; out = x.T",
    "T_int": "out = torch.arange(6).reshape(2, 3).T",
    "H_2d": "out = torch.rand(2, 3).H",
    "H_0d": "out = torch.tensor(2.).H",
    "H_1d": "out = torch.rand(3).H",
    "H_3d": "out = torch.rand(2, 2, 2).H",
    "mT_3d": "out = torch.rand(2, 3, 4).mT",
    "mT_0d": "out = torch.tensor(2.).mT",
    "mT_1d": "out = torch.rand(3).mT",
    "mH_3d": "out = torch.rand(2, 3, 4).mH",
    "mH_1d": "out = torch.rand(3).mH",
    "adjoint": "out = torch.adjoint(torch.rand(2, 3, 4))",
    "adjoint_method": "out = torch.rand(3, 4).adjoint()",
    "T_shares_storage": "x = torch.rand(2, 3); y = x.T; y[0, 1] = 5.; out = x",
    # ---- properties --------------------------------------------------------------------------
    "numel": "x = torch.rand(2, 3, 4); out = [x.numel(), torch.numel(x), x.nelement()]",
    "numel_0d": "out = torch.numel(torch.tensor(3))",
    "element_size": "out = [torch.rand(2).element_size(), torch.arange(2).element_size(), "
    "torch.tensor([True]).element_size(), "
    "torch.zeros(1, dtype=torch.float16).element_size()]",
    "dims": "x = torch.rand(2, 3); out = [x.dim(), x.ndim, x.ndimension()]",
    # ---- type() ------------------------------------------------------------------------------
    "type_names": "out = [torch.rand(2).type(), torch.arange(2).type(), "
    "torch.tensor([True]).type(), torch.zeros(1, dtype=torch.int8).type(), "
    "torch.zeros(1, dtype=torch.uint8).type(), "
    "torch.zeros(1, dtype=torch.float16).type(), "
    "torch.zeros(1, dtype=torch.bfloat16).type(), "
    "torch.zeros(1, dtype=torch.int16).type(), "
    "torch.zeros(1, dtype=torch.int32).type(), "
    "torch.zeros(1, dtype=torch.float64).type()]",
    "type_dtype": "out = torch.rand(2, 3).type(torch.float64)",
    "type_string": "out = torch.rand(2, 3).mul(10).type('torch.IntTensor')",
    "type_same": "x = torch.rand(2); out = x.type(torch.float32) is x and "
    "x.type('torch.FloatTensor') is x",
    "type_tensor_class": "x = torch.arange(3); out = x.type(torch.Tensor)",
    "type_bad_string": "out = torch.rand(2).type('torch.int32')",
    "type_bad_obj": "out = torch.rand(2).type(3)",
    # ---- new_* -------------------------------------------------------------------------------
    "new_zeros": "x = torch.arange(3); out = x.new_zeros(2, 3)",
    "new_zeros_list": "x = torch.rand(3).T; out = x.new_zeros([2, 3], dtype=torch.float64)",
    "new_ones": "out = torch.rand(2, 2)[:, 0].new_ones((2, 3))",
    "new_full": "out = torch.arange(3).new_full((2, 2), 7)",
    "new_full_float_into_int": "out = torch.arange(3).new_full((2,), 2.5)",
    "new_empty_shape": "out = torch.rand(2).new_empty(3, 4).shape",
    "new_tensor": "out = torch.rand(2).new_tensor([1, 2, 3])",
    "new_tensor_dtype": "out = torch.arange(2).new_tensor([1.5, 2.5], dtype=torch.float64)",
    "new_tensor_from_int": "out = torch.arange(2).new_tensor([1.7, -2.2])",
    "new_tensor_requires_grad": "out = torch.rand(2).new_tensor([1.], requires_grad=True)"
    ".requires_grad",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_everyday(name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(PROGRAMS[name])


RANDOM = {
    # ---- torch.normal: every overload, bit-exact (sizes >= 16 take normal_fill's 16-wide path)
    "normal_TT": "out = torch.normal(torch.zeros(3), torch.ones(3))",
    "normal_TT_big": "out = torch.normal(torch.arange(20.), torch.arange(1., 21.))",
    "normal_TT_broadcast": "out = torch.normal(torch.zeros(2, 1), torch.ones(3) * 2)",
    "normal_TT_mismatch": "out = torch.normal(torch.zeros(2), torch.ones(3))",
    "normal_TT_std_int": "out = torch.normal(torch.arange(3.), torch.arange(3))",
    "normal_TT_mean_int": "out = torch.normal(torch.arange(3), torch.arange(3.))",
    "normal_TT_double": "out = torch.normal(torch.zeros(17, dtype=torch.float64), torch.ones(17))",
    "normal_Tf": "out = torch.normal(torch.arange(4.).reshape(2, 2), 2.)",
    "normal_Tf_default_std": "out = torch.normal(torch.zeros(5))",
    "normal_Tf_big_T": "out = torch.normal(torch.zeros(4, 5).T, 0.5)",
    "normal_Tf_int": "out = torch.normal(torch.arange(3), 1.)",
    "normal_Tf_neg_std": "out = torch.normal(torch.zeros(3), -1.)",
    "normal_fT": "out = torch.normal(1.5, torch.full((2, 9), 3.))",
    "normal_fT_int": "out = torch.normal(2., torch.arange(3))",
    "normal_fT_neg": "out = torch.normal(0., -torch.ones(3))",
    "normal_TT_neg": "out = torch.normal(torch.zeros(3), -torch.ones(3))",
    "normal_ff": "out = torch.normal(2., 3., (4, 5))",
    "normal_ff_kw": "out = torch.normal(mean=0., std=1., size=(3,))",
    "normal_ff_int_args": "out = torch.normal(0, 1, size=(2, 3))",
    "normal_ff_dtype": "out = torch.normal(0., 1., (17,), dtype=torch.float64)",
    "normal_ff_neg": "out = torch.normal(0., -1., (3,))",
    "normal_ff_no_size": "out = torch.normal(0., 1.)",
    "normal_generator": "g = torch.Generator().manual_seed(3); "
    "out = torch.normal(torch.zeros(20), 1., generator=g)",
    "normal_out": "o = torch.empty(3); r = torch.normal(torch.zeros(3), torch.ones(3), out=o); "
    "out = (o, r is o)",
    "normal_out_resize": "o = torch.empty(0); torch.normal(0., torch.ones(2, 3), out=o); out = o",
    "normal_out_ff": "o = torch.empty(0); torch.normal(1., 2., (18,), out=o); out = o",
    "normal_then_rand": "a = torch.normal(torch.zeros(5), 1.); out = (a, torch.rand(3))",
    "normal_std_zero": "out = torch.normal(torch.arange(3.), 0.)",
    "normal_empty": "out = torch.normal(torch.zeros(0), torch.ones(0))",
    "normal_method_": "out = torch.empty(20).normal_(1., 2.)",
    # ---- bernoulli -----------------------------------------------------------------------
    "bernoulli_tensor": "out = torch.bernoulli(torch.rand(4, 5))",
    "bernoulli_method": "out = torch.full((3, 3), 0.5).bernoulli()",
    "bernoulli_double_p": "out = torch.bernoulli(torch.rand(10, dtype=torch.float64))",
    "bernoulli_p": "out = torch.bernoulli(torch.zeros(20), 0.3)",
    "bernoulli_p_method": "out = torch.zeros(2, 3).bernoulli(0.7)",
    "bernoulli_T": "out = torch.bernoulli(torch.rand(3, 4).T)",
    "bernoulli_inplace_tensor": "x = torch.zeros(3, 4); x.bernoulli_(torch.rand(4)); out = x",
    "bernoulli_inplace_float": "x = torch.zeros(25); x.bernoulli_(0.25); out = x",
    "bernoulli_inplace_default": "x = torch.zeros(7, dtype=torch.int64); x.bernoulli_(); out = x",
    "bernoulli_inplace_bool": "x = torch.zeros(7, dtype=torch.bool); x.bernoulli_(0.5); out = x",
    "bernoulli_bad_p": "out = torch.zeros(3).bernoulli_(1.5)",
    "bernoulli_bad_p_tensor": "out = torch.bernoulli(torch.tensor([0.5, 2.0]))",
    "bernoulli_int_p": "out = torch.bernoulli(torch.ones(3, dtype=torch.int64))",
    "bernoulli_out": "o = torch.empty(2, dtype=torch.int64); "
    "torch.bernoulli(torch.rand(2, 2), out=o); out = o",
    "bernoulli_generator": "g = torch.Generator().manual_seed(7); "
    "out = torch.bernoulli(torch.full((9,), 0.5), generator=g)",
    "bernoulli_then_rand": "a = torch.bernoulli(torch.rand(5)); out = (a, torch.rand(2))",
    # ---- multinomial (Gumbel trick / binary search) and exponential_ ---------------------
    "mn1": "out = torch.multinomial(torch.tensor([0.1, 0.2, 0.7]), 1)",
    "mn_norep": "out = torch.multinomial(torch.tensor([1., 2., 3., 4.]), 3)",
    "mn_rep": "out = torch.multinomial(torch.tensor([0.1, 0.2, 0.7]), 10, replacement=True)",
    "mn_rep2d": "out = torch.multinomial(torch.rand(3, 5), 7, True)",
    "mn_2d_1": "out = torch.rand(4, 6).multinomial(1)",
    "mn_f64": "out = torch.multinomial(torch.rand(2, 5, dtype=torch.float64), 20, True)",
    "mn_too_many": "out = torch.multinomial(torch.ones(3), 4)",
    "mn_neg": "out = torch.multinomial(torch.tensor([-1., 2.]), 1)",
    "mn_neg_rep": "out = torch.multinomial(torch.tensor([-1., 2.]), 2, True)",
    "mn_zero": "out = torch.multinomial(torch.zeros(3), 1)",
    "mn_int": "out = torch.multinomial(torch.ones(3, dtype=torch.int64), 1)",
    "mn_3d": "out = torch.multinomial(torch.ones(2, 2, 2), 1)",
    "mn_n0": "out = torch.multinomial(torch.ones(3), 0)",
    "mn_gen": "g = torch.Generator().manual_seed(5); "
    "out = torch.multinomial(torch.ones(9), 4, generator=g)",
    "mn_then": "a = torch.multinomial(torch.ones(4), 2); out = (a, torch.rand(2))",
    "mn_out": "o = torch.empty(0, dtype=torch.int64); "
    "torch.multinomial(torch.ones(4), 2, out=o); out = o",
    "exp_": "out = torch.empty(20).exponential_()",
    "exp_lambd": "out = torch.empty(3, 4).exponential_(2.5)",
    "exp_bad": "out = torch.empty(3).exponential_(-1.)",
    "exp_int": "out = torch.empty(3, dtype=torch.int64).exponential_()",
    "exp_T": "out = torch.empty(3, 4).T.exponential_()",
    "rand_like": "out = torch.rand_like(torch.zeros(3, 4).T)",
    "randn_like": "out = torch.randn_like(torch.zeros(20, dtype=torch.float64))",
    "randint_like": "out = torch.randint_like(torch.zeros(2, 3), 10)",
    "randint_like_low": "out = torch.randint_like(torch.zeros(5, dtype=torch.int32), 3, 9)",
}


@pytest.mark.parametrize("name", sorted(RANDOM))
def test_random(name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(RANDOM[name])


@pytest.mark.parametrize("op", ["rand", "randn"])
def test_random_out_of_another_size_is_resized_without_a_warning(op: str) -> None:
    # TensorFactories.cpp's rand_out and randn_out call result.resize_(size), not resize_output
    torch = pytest.importorskip("torch")
    import tensortrace

    def warnings_of(lib: Any) -> list[str]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = lib.empty(3)
            getattr(lib, op)(2, out=out)
        assert tuple(out.shape) == (2,)
        return [str(w.message) for w in caught]

    assert warnings_of(tensortrace) == warnings_of(torch) == []


# Norms reduce in a different order than torch's vectorized kernels, and svd/det come from
# NumPy's LAPACK rather than MKL: values agree to a few ulps, so they compare with rtol=1e-5.
NORMS = {
    "norm_default": "out = torch.norm(torch.arange(12.).reshape(3, 4))",
    "norm_method": "out = torch.arange(12.).reshape(3, 4).norm()",
    "norm_p1": "out = torch.arange(-6., 6.).norm(1)",
    "norm_p3": "out = torch.arange(-6., 6.).norm(3)",
    "norm_p0": "out = torch.tensor([0., 1., -2., 0.]).norm(0)",
    "norm_inf": "out = torch.arange(-6., 6.).reshape(3, 4).norm(float('inf'))",
    "norm_neg_inf": "out = torch.arange(-6., 6.).reshape(3, 4).norm(-float('inf'))",
    "norm_dim": "out = torch.arange(12.).reshape(3, 4).norm(dim=1)",
    "norm_dim_keepdim": "out = torch.norm(torch.arange(12.).reshape(3, 4), dim=0, keepdim=True)",
    "norm_dim_p": "out = torch.norm(torch.arange(24.).reshape(2, 3, 4), p=1, dim=(0, 2))",
    "norm_fro_dims": "out = torch.norm(torch.arange(24.).reshape(2, 3, 4), 'fro', dim=(1, 2))",
    "norm_nuc": "out = torch.norm(torch.arange(12.).reshape(3, 4), 'nuc')",
    "norm_nuc_3d": "out = torch.norm(torch.arange(24.).reshape(2, 3, 4), 'nuc', dim=(1, 2))",
    "norm_int": "out = torch.norm(torch.arange(5))",
    "norm_dtype": "out = torch.norm(torch.arange(5.), dtype=torch.float64)",
    "norm_T": "out = torch.arange(12.).reshape(3, 4).T.norm(dim=1)",
    "norm_p_none": "out = torch.norm(torch.arange(4.), p=None)",
    "norm_fro_3dims": "out = torch.norm(torch.arange(24.).reshape(2, 3, 4), 'fro', dim=(0, 1, 2))",
    "norm_bad_str": "out = torch.norm(torch.arange(12.).reshape(3, 4), 'foo')",
    "norm_empty": "out = torch.norm(torch.zeros(0))",
    "norm_one_element_dim": "out = torch.arange(3.).reshape(3, 1).norm(dim=1)",
    "norm_0d": "out = torch.tensor(-3.).norm()",
    "vector_norm": "out = torch.linalg.vector_norm(torch.arange(-4., 4.))",
    "vector_norm_ord": "out = torch.linalg.vector_norm(torch.arange(-4., 4.).reshape(2, 4), "
    "ord=3.5, dim=1)",
    "vector_norm_keepdim": "out = torch.linalg.vector_norm(torch.arange(8.).reshape(2, 4), "
    "dim=-1, keepdim=True)",
    "vector_norm_empty_inf": "out = torch.linalg.vector_norm(torch.zeros(0), float('inf'))",
    "vector_norm_bad_dtype": "out = torch.linalg.vector_norm(torch.arange(4.), dtype=torch.int64)",
    "vector_norm_narrowing": "out = torch.linalg.vector_norm(torch.arange(4., "
    "dtype=torch.float64), dtype=torch.float32)",
    "vector_norm_out": "o = torch.empty(0); torch.linalg.vector_norm(torch.arange(4.), out=o); "
    "out = o",
    "matrix_norm": "out = torch.linalg.matrix_norm(torch.arange(12.).reshape(3, 4))",
    "matrix_norm_1": "out = torch.linalg.matrix_norm(torch.arange(-6., 6.).reshape(3, 4), 1)",
    "matrix_norm_neg1": "out = torch.linalg.matrix_norm(torch.arange(-6., 6.).reshape(3, 4), -1)",
    "matrix_norm_inf": "out = torch.linalg.matrix_norm(torch.arange(-6., 6.).reshape(3, 4), "
    "float('inf'))",
    "matrix_norm_2": "out = torch.linalg.matrix_norm(torch.arange(12.).reshape(3, 4), 2)",
    "matrix_norm_neg2": "out = torch.linalg.matrix_norm(torch.arange(1., 10.).reshape(3, 3), -2)",
    "matrix_norm_keepdim": "out = torch.linalg.matrix_norm(torch.arange(24.).reshape(2, 3, 4), "
    "1, keepdim=True)",
    "matrix_norm_nuc_keepdim": "out = torch.linalg.matrix_norm(torch.arange(24.).reshape(2, 3, "
    "4), 'nuc', dim=(0, 2), keepdim=True)",
    "matrix_norm_bad_ord": "out = torch.linalg.matrix_norm(torch.ones(3, 3), 3)",
    "matrix_norm_1d": "out = torch.linalg.matrix_norm(torch.ones(3))",
    "matrix_norm_same_dims": "out = torch.linalg.matrix_norm(torch.ones(3, 3), dim=(0, -2))",
    "matrix_norm_int": "out = torch.linalg.matrix_norm(torch.ones(3, 3, dtype=torch.int64))",
    "linalg_norm": "out = torch.linalg.norm(torch.arange(12.).reshape(3, 4))",
    "linalg_norm_ord_2d": "out = torch.linalg.norm(torch.arange(12.).reshape(3, 4), 1)",
    "linalg_norm_fro": "out = torch.linalg.norm(torch.arange(12.).reshape(3, 4), 'fro')",
    "linalg_norm_dim": "out = torch.linalg.norm(torch.arange(12.).reshape(3, 4), dim=1)",
    "linalg_norm_3d_ord": "out = torch.linalg.norm(torch.ones(2, 2, 2), 2)",
    "linalg_norm_3dims": "out = torch.linalg.norm(torch.ones(2, 2, 2), dim=(0, 1, 2))",
    "det": "out = torch.det(torch.tensor([[2., 1.], [1., 3.]]))",
    "det_batch": "out = torch.linalg.det(torch.arange(8.).reshape(2, 2, 2) + torch.eye(2))",
    "det_method": "out = torch.eye(3).mul(2).det()",
    "det_nonsquare": "out = torch.det(torch.ones(2, 3))",
    "det_int": "out = torch.det(torch.ones(2, 2, dtype=torch.int64))",
    "svdvals": "out = torch.linalg.svdvals(torch.arange(6.).reshape(2, 3))",
    "amax": "out = torch.amax(torch.tensor([[1., 5.], [3., 2.]]), 1)",
    "amax_all": "out = torch.tensor([[1., 5.], [3., 2.]]).amax()",
    "amin_dims": "out = torch.arange(24.).reshape(2, 3, 4).amin((0, 2), keepdim=True)",
    "amax_nan": "out = torch.tensor([1., float('nan'), 2.]).amax()",
    "amax_empty": "out = torch.zeros(0, 3).amax(0)",
    "aminmax": "out = tuple(torch.aminmax(torch.tensor([[1, 5], [3, -2]])))",
    "aminmax_dim": "r = torch.aminmax(torch.tensor([[1., 5.], [3., 2.]]), dim=0, keepdim=True); "
    "out = (r.min, r.max)",
    "aminmax_empty": "out = torch.aminmax(torch.zeros(0))",
}


@pytest.mark.parametrize("name", sorted(NORMS))
def test_norms(name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(NORMS[name], rtol=1e-5, atol=1e-6)


MISC = {
    # ---- keepdim's NumPy spellings (numpy_compatibility_arg_names) ---------------------------
    "keepdims_sum": "out = torch.arange(6.).reshape(2, 3).sum(1, keepdims=True)",
    "keepdims_mean": "out = torch.mean(torch.arange(6.).reshape(2, 3), dim=0, keepdims=True)",
    "axis_sum": "out = torch.arange(6.).reshape(2, 3).sum(axis=0)",
    "keepdims_max": "out = tuple(torch.arange(6.).reshape(2, 3).max(axis=1, keepdims=True))",
    "keepdims_norm": "out = torch.linalg.vector_norm(torch.ones(2, 3), dim=1, keepdims=True)",
    "keepdims_amax": "out = torch.ones(2, 3).amax(1, keepdims=True)",
    "keepdims_and_axis_clash": "out = torch.sum(torch.ones(2), dim=0, axis=0)",
    "x_alias": "out = torch.sum(a=torch.ones(2))",
    # ---- finfo / iinfo -----------------------------------------------------------------------
    "finfo_repr": "out = [repr(torch.finfo(t)) for t in (torch.float32, torch.float64, "
    "torch.float16, torch.bfloat16)]",
    "finfo_attrs": "f = torch.finfo(torch.float32); out = [f.bits, f.eps, f.max, f.min, f.tiny, "
    "f.smallest_normal, f.resolution, f.dtype]",
    "finfo_default": "out = str(torch.finfo())",
    "finfo_eq": "out = torch.finfo(torch.float16) == torch.finfo(torch.half)",
    "finfo_int": "out = torch.finfo(torch.int32)",
    "finfo_str_arg": "out = torch.finfo('float')",
    "iinfo_repr": "out = [repr(torch.iinfo(t)) for t in (torch.uint8, torch.int8, torch.int16, "
    "torch.int32, torch.int64)]",
    "iinfo_attrs": "i = torch.iinfo(torch.int64); out = [i.bits, i.max, i.min, i.dtype]",
    "iinfo_bool": "out = torch.iinfo(torch.bool)",
    "iinfo_float": "out = torch.iinfo(torch.float32)",
    "iinfo_none": "out = torch.iinfo()",
    "finfo_clamp": "x = torch.tensor([0., 1.]); out = x.clamp(min=torch.finfo(x.dtype).eps)",
}


@pytest.mark.parametrize("name", sorted(MISC))
def test_misc(name: str) -> None:
    check(MISC[name])


# The long tail: isnan/isinf/isfinite, isin, conj_physical, frexp, trapezoid, cumulative_trapezoid,
# cov, corrcoef, histc, the inverse trig/hyperbolic functions, frac, ^ << >>, hypot.
TAIL = {
    "isnan": "out = torch.isnan(torch.tensor([1., float('nan'), 2.]))",
    "isnan_int": "out = torch.tensor([1, 2]).isnan()",
    "isinf": "out = torch.isinf(torch.tensor([1., float('inf'), -float('inf'), float('nan')]))",
    "isinf_int": "out = torch.isinf(torch.arange(3))",
    "isfinite": "out = torch.isfinite(torch.tensor([1., float('inf'), float('nan')]))",
    "isfinite_int": "out = torch.arange(3).isfinite()",
    "isin": "out = torch.isin(torch.tensor([[1, 2], [3, 4]]), torch.tensor([2, 3]))",
    "isin_invert": "out = torch.isin(torch.arange(5), torch.tensor([1, 3]), invert=True)",
    "isin_scalar": "out = torch.isin(torch.arange(4), 2)",
    "isin_scalar_elem": "out = torch.isin(3, torch.arange(5))",
    "isin_promote": "out = torch.isin(torch.tensor([1.5, 2.0]), torch.tensor([2, 3]))",
    "isin_bool": "out = torch.isin(torch.tensor([True]), torch.tensor([True]))",
    "conj_physical": "x = torch.rand(3); out = (torch.conj_physical(x), x.conj_physical() is x)",
    "frexp": "out = tuple(torch.frexp(torch.tensor([0., 1., 8., -3.5, 1e-3])))",
    "frexp_named": "r = torch.tensor([10., 0.25]).frexp(); out = (r.mantissa, r.exponent)",
    "frexp_int": "out = torch.frexp(torch.tensor([1, 2]))",
    "frexp_f64": "out = tuple(torch.frexp(torch.tensor([3., 5.], dtype=torch.float64)))",
    "trapezoid": "out = torch.trapezoid(torch.tensor([1., 5., 10.]))",
    "trapezoid_int": "out = torch.trapezoid(torch.tensor([1, 2, 3]))",
    "trapezoid_dx": "out = torch.trapezoid(torch.tensor([1., 5., 10.]), dx=2)",
    "trapezoid_x": "out = torch.trapezoid(torch.tensor([1., 5., 10.]), torch.tensor([1., 3., 6.]))",
    "trapezoid_2d": (
        "y = torch.arange(9.).reshape(3, 3); out = (torch.trapezoid(y), torch.trapezoid(y, dim=0))"
    ),
    "trapezoid_2d_x": (
        "y = torch.arange(9.).reshape(3, 3); "
        "x = torch.tensor([1., 3., 6.]); out = torch.trapezoid(y, x, dim=0)"
    ),
    "trapezoid_empty": "out = torch.trapezoid(torch.zeros(2, 0))",
    "trapezoid_bad_x": "out = torch.trapezoid(torch.tensor([1., 2, 3]), torch.tensor([0., 1.]))",
    "cumulative_trapezoid": "out = torch.cumulative_trapezoid(torch.tensor([1., 5., 10.]))",
    "cumulative_trapezoid_int": "out = torch.cumulative_trapezoid(torch.tensor([1, 2, 3]))",
    "cumulative_trapezoid_x": (
        "out = torch.cumulative_trapezoid(torch.tensor([1., 5., 10.]), torch.tensor([1., 3., 6.]))"
    ),
    "cumulative_trapezoid_2d": (
        "out = torch.cumulative_trapezoid(torch.arange(9.).reshape(3, 3), dx=0.5, dim=0)"
    ),
    "cov": "out = torch.cov(torch.tensor([[0., 1., 2.], [2., 1., 0.]]))",
    "cov_1d": "out = torch.cov(torch.tensor([1., 2.]))",
    "cov_int": "out = torch.cov(torch.tensor([[1, 2, 3], [2, 4, 7]]))",
    "cov_correction": "out = torch.cov(torch.arange(8.).reshape(2, 4), correction=0)",
    "cov_fweights": (
        "out = torch.cov(torch.arange(8.).reshape(2, 4), fweights=torch.tensor([1, 2, 1, 3]))"
    ),
    "cov_aweights": (
        "out = torch.cov(torch.arange(8.).reshape(2, 4), aweights=torch.tensor([0.5, 1., 1., 2.]))"
    ),
    "cov_both": (
        "out = torch.cov(torch.arange(8.).reshape(2, 4), "
        "fweights=torch.tensor([1, 2, 1, 3]), aweights=torch.tensor([0.5, 1., 1., 2.]))"
    ),
    "cov_3d": "out = torch.cov(torch.ones(2, 2, 2))",
    "cov_bool": "out = torch.cov(torch.ones(2, 2, dtype=torch.bool))",
    "cov_bad_fweights": "out = torch.cov(torch.ones(2, 3), fweights=torch.tensor([1., 2., 3.]))",
    "cov_dof": "out = torch.cov(torch.tensor([[1.], [2.]]))",
    "corrcoef": "out = torch.corrcoef(torch.tensor([[0., 1., 2.], [2., 1., 0.], [1., 3., 2.]]))",
    "corrcoef_1d": "out = torch.corrcoef(torch.tensor([1., 2., 4.]))",
    "corrcoef_method": "out = torch.arange(12.).reshape(3, 4).corrcoef()",
    "histc": "out = torch.histc(torch.tensor([1., 2, 1]), bins=4, min=0, max=3)",
    "histc_auto": "out = torch.histc(torch.rand(100), bins=10)",
    "histc_default": "out = torch.rand(50).histc()",
    "histc_outside": "out = torch.histc(torch.tensor([-1., 0.5, 1., 5.]), bins=2, min=0, max=1)",
    "histc_const": "out = torch.histc(torch.full((3,), 2.), bins=4)",
    "histc_empty": "out = torch.histc(torch.tensor([]), bins=3)",
    "histc_int": "out = torch.histc(torch.tensor([1, 2]))",
    "histc_bins": "out = torch.histc(torch.tensor([1., 2.]), bins=-1)",
    "histc_minmax": "out = torch.histc(torch.tensor([1., 2.]), bins=4, min=3, max=1)",
    "histc_inf": "out = torch.histc(torch.tensor([1., float('inf')]))",
    "histc_f64": "out = torch.histc(torch.randn(200, dtype=torch.float64), bins=7, min=-2, max=2)",
    "histogram": "out = tuple(torch.histogram(torch.tensor([1., 2, 1]), bins=4, "
    "range=(0., 3.), weight=torch.tensor([1., 2., 4.])))",
    "histogram_density": "out = tuple(torch.histogram(torch.tensor([1., 2, 1]), bins=4, "
    "range=(0., 3.), density=True))",
    "histogram_const": "out = tuple(torch.histogram(torch.tensor([2., 2.]), bins=2))",
    "histogram_edges": "out = tuple(torch.histogram(torch.tensor([1., 2, 1, 7]), "
    "torch.tensor([0., 1.5, 3.])))",
    "histogram_method": "r = torch.rand(50).histogram(5); out = (r.hist, r.bin_edges)",
    "histogram_randn": "out = tuple(torch.histogram(torch.randn(300), bins=9, range=(-2., 2.)))",
    "histogram_int": "out = torch.histogram(torch.arange(3), 2)",
    "histogram_bad_bins": "out = torch.histogram(torch.rand(3), bins=0)",
    "histogram_edge_dtype": "out = torch.histogram(torch.rand(3), torch.tensor([0., 1.], "
    "dtype=torch.float64))",
    "log1p": "out = torch.log1p(torch.tensor([0., 1e-8, 1.]))",
    "asinh_int": "out = torch.asinh(torch.arange(4))",
    "asinh_inplace": "x = torch.tensor([0.5, -2.]); x.asinh_(); out = x",
    "atanh_out": "o = torch.empty(2); torch.atanh(torch.tensor([0.5, -0.5]), out=o); out = o",
    "frac": "out = torch.frac(torch.tensor([1., 2.5, -3.2]))",
    "frac_int": "out = torch.frac(torch.arange(3))",
    "acos_outside": "out = torch.acos(torch.tensor([2.]))",
    "xor": "out = torch.tensor([1, 2, 3]) ^ torch.tensor([3, 2, 1])",
    "xor_bool": "out = torch.tensor([True, False]) ^ True",
    "xor_scalar": "out = torch.bitwise_xor(torch.tensor([5, 6]), 3)",
    "xor_float": "out = torch.bitwise_xor(torch.tensor([1.]), torch.tensor([2.]))",
    "xor_inplace": "x = torch.tensor([7, 8]); x ^= 1; out = x",
    "rxor": "out = 3 ^ torch.tensor([1, 2])",
    "lshift": (
        "out = torch.bitwise_left_shift(torch.tensor([-1, -2, 3], "
        "dtype=torch.int8), torch.tensor([1, 0, 3], dtype=torch.int8))"
    ),
    "lshift_big": (
        "out = torch.tensor([1, 1], dtype=torch.int32) << torch.tensor([31, 40], dtype=torch.int32)"
    ),
    "rshift": "out = torch.tensor([-16, 16, 7]) >> torch.tensor([2, 2, 70])",
    "rshift_scalar": "out = torch.bitwise_right_shift(torch.tensor([8, -8]), 1)",
    "shift_float": "out = torch.tensor([1.]) << 1",
    "hypot": "out = torch.hypot(torch.tensor([4.0]), torch.tensor([3.0, 4.0, 5.0]))",
    "hypot_int": "out = torch.hypot(torch.tensor([3]), torch.tensor([4]))",
    "hypot_method": "out = torch.tensor([[3., 5.]]).hypot(torch.tensor([[4.], [12.]]))",
}


@pytest.mark.parametrize("name", sorted(TAIL))
def test_long_tail(name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(TAIL[name], rtol=1e-6, atol=1e-7)


def test_T_warns_on_3d() -> None:
    import tensortrace

    with pytest.warns(UserWarning, match="The use of `x.T` on tensors of dimension other than 2"):
        _ = tensortrace.rand(2, 3, 4).T
    with pytest.warns(UserWarning, match="Tensor.T is deprecated on 0-D tensors"):
        _ = tensortrace.tensor(1.0).T
