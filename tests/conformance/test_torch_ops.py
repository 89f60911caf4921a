"""Conformance of torch.ops (torch/_ops.py) against torch 2.13: OpOverloadPacket and OpOverload
names, reprs and schemas, calls by overload and by packet (the JIT's schema matching), results
with gradients, the argument errors of createStackForSchema, and the dispatcher introspection
torch._C offers (_dispatch_has_kernel_for_dispatch_key)."""

from __future__ import annotations

import pytest

from .harness import check

PRE = "aten = torch.ops.aten\n"

PROGRAMS = {
    # ---- names, reprs, identity ----
    "packet_names": "p = aten.add; out = [repr(p), str(p), p.__name__, p._qualified_op_name, "
    "[n in p.overloads() for n in ('Tensor', 'Scalar', 'out')]]",
    "overload_names": "o = aten.add.Tensor; out = [repr(o), str(o), o.__name__, o._overloadname, "
    "o.name(), o.namespace, o._opname, o.__qualname__, o.overloadpacket is aten.add, "
    "o is aten.add.Tensor, aten.relu.default is aten.relu.default, str(aten.relu.default), "
    "repr(aten.relu.default), aten.relu.default.__name__, aten.relu.default.name()]",
    "overloads_lists": "out = [aten.abs.overloads(), aten.addcmul.overloads(), "
    "aten.amax.overloads(), aten.argmax.overloads(), aten._softmax.overloads(), "
    "aten.relu.default.overloadpacket.__name__]",
    "schemas": "names = ['add.Tensor', 'add.Scalar', 'add.out', 'add_.Tensor', "
    "'sum.dim_IntList', 'max.dim', 'view.default', 'relu.default', 'zeros.default', "
    "'cat.default', 'split.Tensor', 'conv2d.default', 'layer_norm.default', 'rrelu.default', "
    "'linalg_qr.default', 'contiguous.default', 'randint.default', 'max_pool2d.default', "
    "'huber_loss.default', 'unbind.int', 'std.correction', 'gelu.default', 'leaky_relu.default']; "
    "out = [str(getattr(getattr(aten, n.split('.')[0]), n.split('.')[1])._schema) "
    "for n in names]",
    "schema_fields": "s = aten.add.Tensor._schema; out = [s.name, s.overload_name, "
    "[a.name for a in s.arguments], [a.kwarg_only for a in s.arguments], len(s.returns), "
    "s.is_mutable, aten.add_.Tensor._schema.is_mutable, "
    "aten.add_.Tensor._schema.arguments[0].alias_info.is_write, "
    "aten.add.Tensor._schema.arguments[0].alias_info is None]",
    # ---- calls ----
    "call_overload": "a = torch.randn(2, 3); b = torch.randn(2, 3); "
    "out = (aten.add.Tensor(a, b), aten.add.Tensor(a, b, alpha=2), "
    "aten.add.Tensor(a, other=b), aten.add.Scalar(a, 2.5), aten.mul.Tensor(a, 3))",
    "call_packet": "a = torch.randn(2, 3); b = torch.randn(2, 3); "
    "out = (aten.add(a, b), aten.add(a, 2), aten.mul(a, b), aten.sum(a), aten.sum(a, [0]), "
    "aten.sum(a, [1], True), aten.max(a, 1), aten.max(a))",
    "call_factories": "out = (aten.zeros.default([2, 3]), aten.zeros([2], dtype=torch.int64), "
    "aten.ones.default((1, 2), dtype=torch.float64), aten.arange.start(1, 7, dtype=torch.int32))",
    "call_views": "x = torch.arange(12.); v = aten.view.default(x, [3, 4]); "
    "t = aten.transpose.int(v, 0, 1); out = (v, t, t.is_contiguous(), "
    "aten.split.Tensor(x, 5), aten.unbind.int(v), v.data_ptr() == x.data_ptr())",
    "call_inplace_out": "x = torch.zeros(3); y = torch.ones(3); r = aten.add_.Tensor(x, y); "
    "o = torch.empty(3); r2 = aten.mul.out(y, 4, out=o); out = (x, r is x, o, r2 is o)",
    "call_lists_dtypes": "a = torch.randn(2, 2); out = (aten.cat.default([a, a], 1), "
    "aten.stack([a, a]), aten.to.dtype(a, torch.float64), aten._to_copy.default(a, "
    "dtype=torch.int32), aten.max_pool2d.default(torch.randn(1, 1, 4, 4), 2), "
    "aten.clamp.default(a, -0.5, 0.5))",
    "grad": "x = torch.randn(3, requires_grad=True); w = torch.randn(3, requires_grad=True); "
    "y = aten.mul.Tensor(x, w); z = aten.sum.default(aten.sin.default(y)); z.backward(); "
    "out = (z.detach(), x.grad, w.grad, y.grad_fn.name(), z.grad_fn.name())",
    "grad_packet": "x = torch.randn(2, 3, requires_grad=True); "
    "y = aten.mean(aten.exp(x), [1]); y.sum().backward(); out = (y.detach(), x.grad)",
    "no_grad": "x = torch.randn(3, requires_grad=True)\nwith torch.no_grad():\n"
    "    y = aten.mul.Tensor(x, 2)\nout = (y, y.requires_grad)",
    # ---- dispatcher introspection ----
    "has_kernel": "h = torch._C._dispatch_has_kernel_for_dispatch_key; out = ["
    "h('aten::add.Tensor', 'CPU'), h('aten::add.Tensor', 'AutogradCPU'), "
    "h('aten::relu', 'Autograd'), h('aten::relu', 'CompositeImplicitAutograd'), "
    "aten.add.Tensor.has_kernel_for_dispatch_key('CPU')]",
    "err_has_kernel_no_op": "out = torch._C._dispatch_has_kernel_for_dispatch_key("
    "'aten::add', 'CPU')",
    "err_has_kernel_bad_key": "out = torch._C._dispatch_has_kernel_for_dispatch_key("
    "'aten::add.Tensor', 'Bogus')",
    "dump_missing": "out = torch._C._dispatch_dump('aten::no_such_op')",
    # ---- errors ----
    "err_unknown_op": "out = aten.no_such_op",
    "err_unknown_namespace_op": "out = torch.ops.no_such_ns.foo",
    "err_unknown_overload": "out = aten.add.no_such_overload",
    "err_no_default": "out = aten.add_.default",
    "err_missing_arg": "out = aten.add.Tensor(torch.ones(1))",
    "err_too_many_positional": "out = aten.add.Tensor(torch.ones(1), torch.ones(1), 2)",
    "err_too_many_args": "out = aten.relu.default(torch.ones(1), torch.ones(1))",
    "err_unknown_kwarg": "out = aten.add.Tensor(torch.ones(1), torch.ones(1), beta=2)",
    "err_both_positional_keyword": "out = aten.add.Tensor(torch.ones(1), torch.ones(1), "
    "other=torch.ones(1))",
    "err_bad_type": "out = aten.add.Tensor(torch.ones(2), 'x')",
    "err_bad_scalar": "out = aten.add.Tensor(torch.ones(2), torch.ones(2), alpha='x')",
    "err_number_not_tensor": "out = aten.atan2.default(torch.ones(2), 2)",
    "err_int_list": "out = aten.zeros.default(2)",
    "err_packet_no_match": "out = aten.addcmul(torch.ones(2), torch.ones(2), 2)",
    "err_packet_abs": "out = aten.abs('x')",
    "err_packet_kwarg": "out = aten.amax(torch.ones(2), dims=[0])",
    "err_kernel_error": "out = aten.mm.default(torch.ones(2, 3), torch.ones(2, 3))",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_torch_ops(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], rtol=1e-6, atol=1e-6)
