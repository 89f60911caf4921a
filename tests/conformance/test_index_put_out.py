"""Conformance of Tensor.index_put_ / torch.index_put and of the out= overloads of everyday ops
against torch 2.13 (values, dtypes, shapes, strides and errors; resizing an out tensor)."""

from __future__ import annotations

import pytest

from .harness import check

X = "x = torch.zeros(3, 4); "
A = "a = torch.arange(6.).reshape(2, 3); "

PROGRAMS = {
    # ---- index_put_ / index_put ---------------------------------------------------------------
    "index_put_rows": X + "x.index_put_((torch.tensor([0, 2]),), torch.tensor(1.)); out = x",
    "index_put_pairs": X + "out = [torch.index_put(x, (torch.tensor([0, 2]), "
    "torch.tensor([1, 3])), torch.tensor([5., 6.])), x]",
    "index_put_accumulate": "x = torch.zeros(3); out = x.index_put((torch.tensor([0, 0, 2]),), "
    "torch.tensor([1., 2., 3.]), True)",
    "index_put_accumulate_kw": "x = torch.zeros(3); x.index_put_([torch.tensor([1, 1])], "
    "torch.tensor(2.), accumulate=True); out = x",
    "index_put_mask": "x = torch.zeros(3); x.index_put_([torch.tensor([True, False, True])], "
    "torch.tensor(7.)); out = x",
    "index_put_returns_self": X + "out = x.index_put_((torch.tensor([1]),), torch.tensor(2.)) is x",
    "index_put_complex": "z = torch.zeros(2, dtype=torch.cfloat); "
    "z.index_put_((torch.tensor([1]),), torch.tensor(1j)); out = z",
    "index_put_not_tuple": X + "out = x.index_put_(torch.tensor([1]), torch.tensor(7.))",
    "index_put_none": X + "out = x.index_put_((None, torch.tensor([1])), torch.tensor(1.))",
    "index_put_int_index": X + "out = x.index_put_((1,), torch.tensor(1.))",
    "index_put_float_value": X + "out = x.index_put_((torch.tensor([1]),), 1.)",
    "index_put_dtype_mismatch": "out = torch.index_put(torch.zeros(2), (torch.tensor([1]),), "
    "torch.tensor(5))",
    "index_put_bad_shape": X + "out = x.index_put_((torch.tensor([0, 1]),), torch.ones(3))",
    # ---- out= overloads -----------------------------------------------------------------------
    "add_out": A + "c = torch.empty(2, 3); r = torch.add(a, a, out=c); out = [c, r is c]",
    "add_out_alpha": A + "c = torch.empty(0); torch.add(a, 1, alpha=2, out=c); out = c",
    "add_out_resize": A + "c = torch.empty(2); torch.add(a, a, out=c); out = c",
    "add_out_wrong_dtype": A + "out = torch.add(a, a, out=torch.empty(2, 3, dtype=torch.long))",
    "add_out_wider_dtype": A + "c = torch.empty(2, 3, dtype=torch.float64); "
    "torch.add(a, 1, out=c); out = c",
    "sub_mul_div_out": A + "c, d, e = torch.empty(0), torch.empty(0), torch.empty(0); "
    "torch.sub(a, 1, out=c); torch.mul(a, a, out=d); "
    "torch.div(a, 2, out=e); out = [c, d, e]",
    "unary_out": A + "outs = [torch.empty(0) for _ in range(6)]; "
    "[f(a, out=o) for f, o in zip((torch.exp, torch.log, torch.sqrt, torch.abs, "
    "torch.neg, torch.sin), outs)]; out = outs",
    "reduction_out": A + "s, m = torch.empty(0), torch.empty(0); torch.sum(a, 1, out=s); "
    "torch.mean(a, 0, keepdim=True, out=m); out = [s, m]",
    "matmul_out": A + "c = torch.empty(0); torch.matmul(a, a.t(), out=c); "
    "d = torch.empty(0); torch.mm(a, a.t(), out=d); out = [c, d]",
    "cat_stack_out": A + "c, d = torch.empty(0), torch.empty(0); torch.cat([a, a], out=c); "
    "torch.stack([a, a], out=d); out = [c, d]",
    "max_out": A + "v, i = torch.empty(0), torch.empty(0, dtype=torch.long); "
    "r = torch.max(a, 1, out=(v, i)); out = [v, i, r[0] is v]",
    "clamp_where_out": A + "c, d = torch.empty(0), torch.empty(0); torch.clamp(a, 1, 4, out=c); "
    "torch.where(a > 2, a, 0., out=d); out = [c, d]",
    "pow_out": A + "c = torch.empty(0); torch.pow(a, 2, out=c); out = c",
    "factories_out": "c = torch.empty(5); torch.zeros(2, out=c); z = c.clone(); "
    "torch.arange(4, out=c); out = [z, c]",
    "softmax_out": A + "c = torch.empty(0); r = torch.softmax(a, 1, out=c); out = [c, r is c]",
    "log_softmax_out": A + "c = torch.empty(2, 3); torch.log_softmax(a, 0, out=c); out = c",
    "softmax_out_dtype": A + "c = torch.empty(0, dtype=torch.float64); "
    "torch.softmax(a, 1, dtype=torch.float64, out=c); out = c",
    "softmax_out_noncontig": A + "c = torch.empty(3, 2).t(); torch.softmax(a, 1, out=c); out = c",
    "complex_polar_out": A + "c = torch.empty(0, dtype=torch.cfloat); "
    "torch.polar(a, a, out=c); out = c",
    "angle_sgn_out": A + "c, d = torch.empty(0), torch.empty(0); torch.angle(a - 2, out=c); "
    "torch.sgn(a - 2, out=d); out = [c, d]",
    "vdot_out": "x = torch.tensor([1+1j, 2j]); c = torch.empty(0, dtype=torch.cfloat); "
    "torch.vdot(x, x, out=c); out = c",
}


# float32 exp/log/cos/sin: SLEEF and NumPy may round the last bit differently
LAST_BIT = frozenset(
    {"softmax_out", "log_softmax_out", "softmax_out_noncontig", "complex_polar_out", "unary_out"}
)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_index_put_out(name: str) -> None:
    if name in LAST_BIT:
        check(PROGRAMS[name], rtol=1e-6, atol=1e-7)
    else:
        check(PROGRAMS[name])
