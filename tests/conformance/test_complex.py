"""Conformance of the complex dtypes against torch 2.13: creation, promotion, the conj and neg
bits, the views of the parts, complex / polar, abs / angle / sgn, arithmetic, reductions and
errors (values, dtypes, shapes, strides, offsets, the math bits)."""

from __future__ import annotations

import pytest

from .harness import check

Z = "z = torch.tensor([[1+2j, -3.5+0.5j, 0j], [2-1j, 1j, -4+0j]]); "  # complex64
ZD = "z = torch.tensor([1+2j, -3-4j, 0.5j], dtype=torch.cdouble); "
ZT = "z = torch.tensor([[1+2j, -3.5+0.5j, 0j], [2-1j, 1j, -4+0j]]).t(); "  # not contiguous

PROGRAMS = {
    # ---- dtypes, promotion, casting -------------------------------------------------------------
    "dtype_names": "out = [torch.complex64, torch.cfloat, torch.complex128, torch.cdouble, "
    "torch.complex32, torch.chalf]",
    "dtype_props": "out = [(d.is_complex, d.is_floating_point, d.itemsize, d.is_signed) for d in "
    "(torch.complex32, torch.complex64, torch.complex128, torch.float32)]",
    "promote_types": "ts = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, "
    "torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.bool, "
    "torch.complex32, torch.complex64, torch.complex128]; "
    "out = [torch.promote_types(a, b) for a in ts for b in ts]",
    "can_cast": "ts = [torch.int64, torch.float32, torch.bool, torch.complex64, "
    "torch.complex128]; out = [torch.can_cast(a, b) for a in ts for b in ts]",
    "result_type_scalar": "out = [torch.result_type(torch.tensor([1.]), 1j), "
    "torch.result_type(torch.tensor([1], dtype=torch.half), 1j), "
    "torch.result_type(torch.tensor([1.], dtype=torch.double), 1j), "
    "torch.result_type(torch.tensor([1]), 1j), "
    "torch.result_type(torch.tensor([1], dtype=torch.bfloat16), 1j), "
    "torch.result_type(torch.tensor(1j), torch.tensor([1.])), "
    "torch.result_type(torch.tensor(1j, dtype=torch.cdouble), "
    "torch.tensor([1.])), torch.result_type(1j, 2.)]",
    "default_complex_follows_default_float": "torch.set_default_dtype(torch.float64)\n"
    "try:\n    out = [torch.tensor([1j]), "
    "torch.tensor([1]) + 1j, torch.tensor([2.]) * 1j]\n"
    "finally:\n    torch.set_default_dtype(torch.float32)",
    "dtype_to_complex_real": "out = [torch.float32.to_complex(), torch.float16.to_complex(), "
    "torch.bfloat16.to_complex(), torch.complex128.to_real(), "
    "torch.bool.to_real(), torch.int32.to_real()]",
    "dtype_to_complex_int": "out = torch.int64.to_complex()",
    "finfo_complex": "out = [(f.eps, f.max, f.tiny, f.bits, f.dtype) for f in "
    "(torch.finfo(torch.complex64), torch.finfo(torch.complex128), "
    "torch.finfo(torch.complex32))]",
    "element_size": ZD + "out = [z.element_size(), z.is_complex(), z.is_floating_point(), "
    "torch.is_complex(z), torch.is_floating_point(z), z.dtype]",
    # ---- creation -----------------------------------------------------------------------------
    "tensor_list": "out = torch.tensor([1+2j, 3-4j])",
    "tensor_mixed": "out = torch.tensor([[1, 2.5j], [True, 3.]])",
    "tensor_scalar": "out = torch.tensor(1+2j)",
    "tensor_dtype": "out = [torch.tensor([1, 2], dtype=torch.cfloat), "
    "torch.tensor([1.5j], dtype=torch.complex128)]",
    "tensor_complex_to_float": "out = torch.tensor([1+2j], dtype=torch.float)",
    "zeros_ones_full": "out = [torch.zeros(2, 3, dtype=torch.cfloat), "
    "torch.ones(2, dtype=torch.cdouble), torch.full((2,), 1+1j), "
    "torch.full((2, 2), 3.0, dtype=torch.complex64), torch.full((1,), 2j)]",
    "full_overflow": "out = torch.full((2,), 1e300+1j, dtype=torch.cfloat)",
    "full_complex_into_float": "out = torch.full((2,), 1+1j, dtype=torch.float)",
    "empty_like_zeros_like": ZD + "out = [torch.zeros_like(z), torch.ones_like(z), "
    "torch.full_like(z, 2-1j), torch.empty_like(z).shape]",
    "arange_complex": "out = torch.arange(3, dtype=torch.cfloat)",
    "linspace_complex": "out = torch.linspace(0, 1, 3, dtype=torch.cfloat)",
    "rand_complex": "out = torch.rand(2, 3, dtype=torch.cfloat)",
    "randn_complex": "out = [torch.randn(4, dtype=torch.cfloat), "
    "torch.randn(3, dtype=torch.cdouble)]",
    "from_numpy": "import numpy as np; "
    "out = torch.from_numpy(np.array([1+2j, 3j], dtype=np.complex64))",
    "item_tolist": Z + "out = [z[0, 0].item(), z.tolist(), complex(z[1, 1])]",
    "float_of_complex": Z + "out = float(z[0, 0])",
    "int_of_complex": Z + "out = int(z[0, 0])",
    # ---- conversions --------------------------------------------------------------------------
    "to_complex": "out = [torch.tensor([1.5, -2]).to(torch.cfloat), "
    "torch.tensor([1, 2]).to(torch.cdouble), torch.tensor([True]).cfloat()]",
    "complex_to_real": Z + "out = [z.float(), z.double(), z.long(), z.bool(), z.int()]",
    "complex_to_complex": Z + "out = [z.to(torch.cdouble), z.cdouble().cfloat()]",
    "copy_into_real": Z + "x = torch.zeros(2, 3); x.copy_(z); out = x",
    "type_string": Z + "out = [z.type(), z.cdouble().type()]",
    # ---- the conj bit -------------------------------------------------------------------------
    "conj_view": Z + "c = z.conj(); out = [c, c.is_conj(), c.data_ptr() == z.data_ptr()]",
    "conj_real_is_self": "x = torch.tensor([1., 2.]); out = [x.conj(), x.conj().is_conj()]",
    "conj_twice": Z + "out = [z.conj().conj(), z.conj().conj().is_conj()]",
    "resolve_conj": Z + "r = z.conj().resolve_conj(); out = [r, r.is_conj()]",
    "conj_clone": Z + "out = [z.conj().clone(), z.conj().clone().is_conj()]",
    "conj_views_keep_bit": Z + "c = z.conj(); out = [c[0], c.t(), c.reshape(3, 2), c[:, 1:]]",
    "conj_arith": Z + "c = z.conj(); out = [c * 1, c + z, c * z, c - 1j, -c]",
    "conj_inplace": Z + "c = z.conj(); c.add_(1); out = [c, z]",
    "conj_inplace_mul": Z + "c = z.conj(); c.mul_(2j); out = [c, z]",
    "conj_physical": Z + "p = torch.conj_physical(z); out = [p, p.is_conj(), "
    "torch.conj_physical(z.conj()), torch.conj_physical(torch.ones(2))]",
    "conj_physical_inplace": Z + "z.conj_physical_(); out = z",
    "conj_to": Z + "out = [z.conj().to(torch.cdouble), z.conj().float(), z.conj().abs()]",
    "conj_item_tolist": Z + "c = z.conj(); out = [c[0, 0].item(), c.tolist()]",
    "conj_sum": Z + "out = [z.conj().sum(), z.conj().sum(0), z.conj().mean(1)]",
    "H_mH": Z + "out = [z.H, z.mH, z.H.is_conj(), z.mT, z.adjoint()]",
    "conj_contiguous": ZT + "c = z.conj().contiguous(); out = [c, c.is_conj()]",
    # ---- the parts ----------------------------------------------------------------------------
    "real_imag": Z + "out = [z.real, z.imag, torch.real(z), torch.imag(z)]",
    "real_imag_strides": ZT + "out = [z.real, z.imag]",
    "real_of_real": "x = torch.tensor([1., 2.]); out = [x.real, torch.real(x)]",
    "imag_of_real": "out = torch.tensor([1., 2.]).imag",
    "conj_imag_neg_bit": Z + "i = z.conj().imag; out = [i, i.is_neg(), z.conj().real]",
    "neg_bit_ops": Z + "i = z.conj().imag; out = [i + 1, i * i, i.sum(), i.resolve_neg(), "
    "i.clone(), i.clone().is_neg()]",
    "set_real_imag": Z + "z.real = torch.tensor([9., 8., 7.]); z.imag = 0.5; out = z",
    "real_view_writes": Z + "z.real.mul_(10); z.imag[0, 0] = -1; out = z",
    "view_as_real": Z + "out = torch.view_as_real(z)",
    "view_as_real_strided": ZT + "out = torch.view_as_real(z[1:])",
    "view_as_real_shares": Z + "r = torch.view_as_real(z); r[0, 0, 1] = 100; out = z",
    "view_as_real_conj": Z + "out = torch.view_as_real(z.conj())",
    "view_as_real_real": "out = torch.view_as_real(torch.tensor([1.]))",
    "view_as_complex": "x = torch.arange(8.).reshape(2, 2, 2); out = torch.view_as_complex(x)",
    "view_as_complex_1d": "out = torch.view_as_complex(torch.tensor([1., 2]))",
    "view_as_complex_double": "out = torch.view_as_complex(torch.ones(3, 2, dtype=torch.double))",
    "view_as_complex_roundtrip": Z + "out = torch.view_as_complex(torch.view_as_real(z))",
    "view_as_complex_bad_size": "out = torch.view_as_complex(torch.tensor([[1., 2, 3]]))",
    "view_as_complex_bad_stride": "out = torch.view_as_complex(torch.tensor([[1., 2], [3, 4]])"
    ".t())",
    "view_as_complex_bad_offset": "out = torch.view_as_complex(torch.tensor([1., 2, 3, 4])[1:3])",
    "view_as_complex_int": "out = torch.view_as_complex(torch.tensor([1, 2]))",
    "view_as_complex_0d": "out = torch.view_as_complex(torch.tensor(1.))",
    # ---- complex, polar -----------------------------------------------------------------------
    "complex": "out = torch.complex(torch.tensor([1., -2]), torch.tensor([0.5, 3]))",
    "complex_double": "out = torch.complex(torch.ones(2, dtype=torch.double), "
    "torch.zeros(2, dtype=torch.double))",
    "complex_broadcast": "out = torch.complex(torch.tensor([[1.], [2.]]), torch.tensor([3., 4]))",
    "complex_int": "out = torch.complex(torch.tensor([1]), torch.tensor([2]))",
    "complex_mixed": "out = torch.complex(torch.tensor([1.]), torch.tensor([2.], "
    "dtype=torch.double))",
    "complex_out": "o = torch.empty(2, dtype=torch.cfloat); "
    "r = torch.complex(torch.ones(2), torch.ones(2), out=o); out = [o, r is o]",
    "complex_out_wrong": "o = torch.empty(2, dtype=torch.cdouble); "
    "out = torch.complex(torch.ones(2), torch.ones(2), out=o)",
    "polar": "out = torch.polar(torch.tensor([2., 1.]), torch.tensor([0.5, -3.]))",
    "polar_double": "out = torch.polar(torch.ones(2, dtype=torch.double), "
    "torch.tensor([0., 3.14159], dtype=torch.double))",
    # ---- abs, angle, sgn, sign ----------------------------------------------------------------
    "abs": Z + "out = [z.abs(), torch.abs(z), abs(z), z.cdouble().abs()]",
    "abs_out_float": Z + "o = torch.empty(0); out = [torch.abs(z, out=o), o]",
    "abs_out_complex": Z + "o = torch.empty(0, dtype=torch.cfloat); out = torch.abs(z, out=o)",
    "abs_out_long": Z + "out = torch.abs(z, out=torch.empty(0, dtype=torch.long))",
    "abs_inplace": Z + "out = z.abs_()",
    "angle": Z + "out = [z.angle(), torch.angle(z.cdouble())]",
    "angle_real": "out = [torch.tensor([float('nan'), -0.0, -1, 2]).angle(), "
    "torch.tensor([-1, 2]).angle(), torch.tensor([True]).angle()]",
    "sgn": Z + "out = [z.sgn(), torch.sgn(torch.tensor([-3., 0, 5]))]",
    "sgn_inplace": Z + "z.sgn_(); out = z",
    "sign": "out = [torch.sign(torch.tensor([float('nan'), -0.0, -2, 3])), "
    "torch.tensor([True, False]).sign(), torch.tensor([-3, 0, 5]).sign()]",
    "sign_complex": Z + "out = z.sign()",
    # ---- arithmetic ---------------------------------------------------------------------------
    "add_sub": Z + "out = [z + z, z - 1, z + 2.5, z + 1j, 1j - z, z.add(z, alpha=2), "
    "z.sub(z, alpha=1j)]",
    "mul_div": Z + "out = [z * z, z * 2, z / (1 + 1j), z / 2, 2 / (z + 1)]",
    "promote_real_tensor": Z + "x = torch.tensor([1., 2, 3]); out = [z + x, x * z, "
    "z + torch.tensor([1, 2, 3]), z.cdouble() * x]",
    "promote_scalar_tensor": "x = torch.tensor([1., 2.]); out = [x + 1j, x * (2 - 1j), "
    "torch.tensor([1, 2]) + 1j, torch.tensor([1.], dtype=torch.double) "
    "+ 1j, torch.tensor([1.], dtype=torch.half).to(torch.float) + 1j]",
    "add_complex_into_real": "x = torch.tensor([1.]); out = x.add_(1j)",
    "alpha_complex_on_real": "out = torch.add(torch.ones(2), torch.ones(2), alpha=1j)",
    "pow": Z + "out = [z ** 2, z ** 0.5, z.pow(z), 2 ** z]",
    "neg": Z + "out = [-z, z.neg(), torch.neg(z)]",
    "reciprocal": ZD + "out = z.reciprocal()",
    "floor_div": Z + "out = z // 2",
    "remainder": Z + "out = z % 2",
    # SLEEF and glibc round the last bit of complex transcendentals differently from NumPy
    "unary_transcendental": ZD + "out = [z.exp(), z.log(), z.sqrt(), z.sin(), z.cos(), "
    "z.tanh(), z.sigmoid()]",
    "unary_more": ZD + "out = [z.log1p(), z.expm1(), z.asin(), z.acos(), z.atan(), z.sinh(), "
    "z.cosh(), z.asinh(), z.acosh(), z.atanh()]",
    # ---- comparisons --------------------------------------------------------------------------
    "eq_ne": Z + "out = [z == z, z != z.conj(), z == 1j, torch.eq(z, z.real)]",
    "lt_errors": Z + "out = z < z",
    "gt_scalar_errors": Z + "out = z > 1",
    "max_errors": Z + "out = z.max()",
    "clamp_errors": Z + "out = z.clamp(0, 1)",
    "isclose_allclose_equal": Z + "w = z + 1e-7; out = [torch.isclose(z, w), "
    "torch.allclose(z, w), torch.equal(z, z.clone()), "
    "torch.equal(z, w), torch.isclose(z, z.conj())]",
    "isnan_isfinite": "z = torch.tensor([complex(float('nan'), 1), complex(1, float('inf')), "
    "1j]); out = [z.isnan(), z.isinf(), z.isfinite()]",
    # ---- reductions ---------------------------------------------------------------------------
    "sum_mean_prod": Z + "out = [z.sum(), z.sum(0), z.mean(), z.mean(1), z.prod(), z.prod(0)]",
    "sum_dtype": Z + "out = [z.sum(dtype=torch.cdouble), torch.tensor([1., 2]).sum("
    "dtype=torch.cfloat)]",
    "cumsum": Z + "out = [z.cumsum(1), z.cumprod(0)]",
    "norm": Z + "out = [torch.linalg.norm(z), torch.linalg.vector_norm(z, 1), z.norm(), "
    "torch.linalg.norm(z, dim=1)]",
    "var_std": ZD + "out = [z.var(), z.std()]",
    # ---- matrix products ----------------------------------------------------------------------
    "mm_matmul": Z + "w = z.t() * 1j; out = [z @ w, torch.mm(z, w), torch.matmul(z, w.t()[0])]",
    "dot_vdot": ZD + "w = torch.tensor([2j, 1, -1+1j], dtype=torch.cdouble); "
    "out = [torch.dot(z, w), torch.vdot(z, w), z @ w]",
    "mm_conj": Z + "out = [z.conj() @ z.t(), z @ z.H, torch.mm(z.H, z)]",
    "mm_dtype_mismatch": Z + "out = z @ torch.ones(3, 2)",
    # ---- shape and indexing work on complex too --------------------------------------------------
    "shape_ops": Z + "out = [z.t(), z.reshape(3, 2), z.flip(0), torch.cat([z, z]), "
    "torch.stack([z[0], z[1]]), z.unsqueeze(0), z[:, ::2]]",
    "indexing": Z + "z[0, 1] = 5j; z[1] = torch.tensor([1., 2, 3]); "
    "out = [z, z[torch.tensor([1, 0])], z[z.real > 0]]",
    "where_masked_fill": Z + "out = [torch.where(z.real > 0, z, torch.zeros_like(z)), "
    "z.masked_fill(z.imag > 0, 1j)]",
    "fill_zero": Z + "z.fill_(2-3j); a = z.clone(); z.zero_(); out = [a, z]",
    # ---- the everyday ops on complex values ---------------------------------------------------
    "misc_shape_index": "v = torch.tensor([1j, 2]); out = [torch.where(torch.tensor([True, "
    "False]), v, 0), v.expand(2, 2), v.repeat(2), "
    "torch.cat([v, torch.ones(1)]), v.flip(0).roll(1), "
    "v[torch.tensor([True, False])], "
    "v.masked_select(torch.tensor([True, False])), "
    "v.gather(0, torch.tensor([1, 0])), torch.zeros(3, dtype=torch.cfloat)"
    ".scatter_(0, torch.tensor([2]), torch.tensor([5j])), "
    "v.index_select(0, torch.tensor([1])), v.diag(), v.diag().tril()]",
    "misc_linalg": "m = torch.tensor([[1j, 2], [3, 4j]]); v = torch.tensor([1j, 2]); "
    "out = [m.trace(), m.det(), torch.einsum('i,i->', v, v), torch.outer(v, v), "
    "torch.bmm(m[None], m[None]), m.mv(v), torch.linalg.matrix_norm(m), "
    "torch.linalg.vector_norm(v, dtype=torch.cdouble)]",
    "misc_logical": "v = torch.tensor([1j, 0]); out = [v.any(), v.nonzero(), v.count_nonzero(), "
    "v.bool(), v.logical_not(), v.isclose(v, equal_nan=True)]",
    "misc_new_type": "v = torch.tensor([1j, 2]); out = [v.new_zeros(2), v.new_tensor([3j]), "
    "v.new_full((2,), 5j), v.type(torch.complex128), "
    "v.type('torch.ComplexDoubleTensor'), v.to(torch.float16)]",
    "misc_inplace": "v = torch.tensor([1j, 2]); a = v.clone().mul_(1j); b = v.clone().div_(2); "
    "c = v.clone().pow_(2); d = v.clone().neg_(); e = v.clone().reciprocal_(); "
    "out = [a, b, c, d, e]",
    "misc_lerp_addcmul": "v = torch.tensor([1j, 2]); out = [v.lerp(torch.tensor([0j, 0]), 0.5), "
    "v.lerp(torch.tensor([4j, 1]), 0.75), v.addcmul(v, v, value=2), "
    "v.addcdiv(v, v + 1)]",
    "misc_activations": "v = torch.tensor([1j, 2]); out = [v.sigmoid(), v.tanh(), v.logsumexp(0)]",
    "real_into_complex_mul_": "out = torch.tensor([1., 2]).mul_(1j)",
    "isin_errors": "out = torch.isin(torch.tensor([1j, 2]), torch.tensor([2 + 0j]))",
    "unique_errors": "out = torch.tensor([1j, 2]).unique()",
    "unique_consecutive_errors": "out = torch.tensor([1j, 2]).unique_consecutive()",
    "unique_dim_errors": "out = torch.tensor([[1j, 2]]).unique(dim=0)",
    "argmax_errors": "out = torch.tensor([1j, 2]).argmax()",
    "argmin_dim_errors": "out = torch.argmin(torch.tensor([[1j, 2]]), 1)",
    "softmax_errors": "out = torch.tensor([1j, 2]).softmax(0)",
    "relu_errors": "out = torch.tensor([1j, 2]).relu()",
    "topk_errors": "out = torch.tensor([1j, 2]).topk(1)",
    "sort_errors": "out = torch.tensor([1j, 2]).sort()",
    "bitwise_not_errors": "out = torch.tensor([1j, 2]).bitwise_not()",
    # ---- torch.save / torch.load (the conj and neg bits travel as _rebuild_tensor_v2 metadata)
    "save_load": Z + "import io; b = io.BytesIO(); torch.save({'z': z, 'c': z.conj()}, b); "
    "b.seek(0); d = torch.load(b); out = [d['z'], d['c']]",
    "save_load_neg": Z + "import io; b = io.BytesIO(); torch.save(z.conj().imag, b); b.seek(0); "
    "out = torch.load(b)",
    "save_mixed_views": Z + "import io; out = torch.save([z, z.real], io.BytesIO())",
}


LAST_BIT = frozenset(
    {
        "misc_activations",
        "misc_linalg",
        "misc_lerp_addcmul",
        "unary_transcendental",
        "unary_more",
        "pow",
        "polar",
        "polar_double",
        "sgn",
        "sgn_inplace",
        "norm",
        "var_std",
    }
)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_complex(name: str) -> None:
    if name in LAST_BIT:
        check(PROGRAMS[name], rtol=1e-6, atol=1e-7)
    else:
        check(PROGRAMS[name])


def test_save_load_across_libraries(tmp_path: object) -> None:
    """A file written by one library is read by the other, math bits included."""
    import tensortrace

    torch = pytest.importorskip("torch")
    path = f"{tmp_path}/z.pt"
    z = tensortrace.tensor([1 + 2j, 3 - 4j])
    tensortrace.save({"c": z.conj(), "d": z.cdouble()}, path)
    theirs = torch.load(path)
    assert theirs["c"].is_conj() and theirs["c"].resolve_conj().tolist() == [1 - 2j, 3 + 4j]
    assert theirs["d"].dtype == torch.complex128
    torch.save({"i": torch.tensor([1j, 2 - 1j]).conj().imag}, path)
    ours = tensortrace.load(path)
    assert ours["i"].is_neg() and ours["i"].tolist() == [-1.0, 1.0]


def test_copy_complex_to_real_warns() -> None:
    """copy_impl's TORCH_WARN_ONCE (torch warns once per process, so this is checked on
    tensortrace alone, with torch's text)."""
    import warnings

    import tensortrace

    z = tensortrace.tensor([1 + 2j])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        real = z.float()
        tensortrace.zeros(1).copy_(z.real)  # a real source: no warning
    assert [str(w.message) for w in caught] == [
        "Casting complex values to real discards the imaginary part"
    ]
    assert caught[0].category is UserWarning and real.tolist() == [1.0]
