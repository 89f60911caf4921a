"""Conformance of the ops torch.nn.functional is made of (softmax, log_softmax, linear, the losses,
addcmul/addcdiv/lerp) and of their gradients, against torch 2.13: values, dtypes, strides,
grad_fn names, and errors (type and message)."""

from __future__ import annotations

import pytest

from .harness import check

PRE = "F = torch.nn.functional\n"
CLOSE = {"rtol": 1e-6, "atol": 1e-7}  # exp/log differ from torch's SLEEF in the last bit

FORWARD = {
    # ---- softmax / log_softmax -----------------------------------------------------------
    "softmax_dims": "x = torch.randn(4, 5); out = (x.softmax(1), x.softmax(0), x.softmax(-1), "
    "torch.softmax(x, 1), F.softmax(x, dim=0))",
    "log_softmax_dims": "x = torch.randn(4, 5); out = (x.log_softmax(1), x.log_softmax(0), "
    "torch.log_softmax(x, -2), F.log_softmax(x, dim=1))",
    "softmax_3d_middle": "x = torch.randn(2, 3, 4); out = (x.softmax(1), x.log_softmax(1))",
    "softmax_dtype": "x = torch.randn(3, 4); out = (x.softmax(1, dtype=torch.float64), "
    "F.log_softmax(x, 1, dtype=torch.float64))",
    "softmax_noncontiguous": "x = torch.randn(3, 4).t(); out = (x.softmax(1), x.log_softmax(0))",
    "softmax_scalar": "out = (torch.randn(()).softmax(0), torch.randn(()).log_softmax(-1))",
    "softmax_empty": "out = (torch.randn(0, 3).softmax(1), torch.randn(0, 3).log_softmax(0))",
    "softmax_large_logits": "x = torch.tensor([[1000., 0., -1000.]]); out = (x.softmax(1), "
    "x.log_softmax(1))",
    "softmax_double": "x = torch.randn(3, 4, dtype=torch.float64); out = x.softmax(1)",
    "softmax_half": "out = torch.randn(2, 3).half().softmax(0)",
    "softmax_implicit_dim": "out = (F.softmax(torch.randn(2, 3)), F.softmax(torch.randn(3)), "
    "F.log_softmax(torch.randn(2, 3, 4)))",
    "linear_2d_bias": "out = F.linear(torch.randn(3, 4), torch.randn(5, 4), torch.randn(5))",
    "linear_no_bias": "out = F.linear(torch.randn(3, 4), torch.randn(5, 4))",
    "linear_3d": "out = F.linear(torch.randn(2, 3, 4), torch.randn(5, 4), torch.randn(5))",
    "linear_1d": "out = F.linear(torch.randn(4), torch.randn(5, 4), torch.randn(5))",
    "linear_noncontiguous": "out = F.linear(torch.randn(4, 3).t(), torch.randn(5, 4), "
    "torch.randn(5))",
    # ---- losses --------------------------------------------------------------------------
    "cross_entropy_reductions": "x = torch.randn(4, 5); t = torch.tensor([0, 4, 2, 1]); out = "
    "[F.cross_entropy(x, t, reduction=r) for r in ('none', 'mean', "
    "'sum')]",
    "cross_entropy_weight_ignore": "x = torch.randn(4, 5); t = torch.tensor([0, -100, 2, 1]); "
    "out = [F.cross_entropy(x, t, weight=torch.rand(5), "
    "reduction=r) for r in ('none', 'mean', 'sum')]",
    "cross_entropy_1d": "out = F.cross_entropy(torch.randn(5), torch.tensor(3))",
    "cross_entropy_probs": "x = torch.randn(4, 5); p = torch.randn(4, 5).softmax(1); out = "
    "[F.cross_entropy(x, p, reduction=r) for r in ('none', 'mean', 'sum')]",
    "cross_entropy_label_smoothing": "x = torch.randn(4, 5); t = torch.tensor([0, 4, 2, 1]); "
    "out = [F.cross_entropy(x, t, label_smoothing=0.1, "
    "reduction=r) for r in ('none', 'mean', 'sum')]",
    "nll_loss": "x = torch.randn(4, 5).log_softmax(1); t = torch.tensor([0, 4, 2, 1]); out = "
    "[F.nll_loss(x, t, reduction=r) for r in ('none', 'mean', 'sum')]",
    "nll_loss_weight": "x = torch.randn(4, 5); t = torch.tensor([0, 4, 2, 1]); "
    "out = F.nll_loss(x, t, weight=torch.rand(5))",
    "nll_loss_1d_input": "x = torch.randn(4); out = (F.nll_loss(x, torch.tensor(1)), "
    "F.nll_loss(x, torch.tensor([2])), F.nll_loss(x, torch.tensor([3]), "
    "reduction='none'))",
    "nll_loss_all_ignored": "out = F.nll_loss(torch.randn(2, 3), torch.tensor([-100, -100]))",
    "nll_loss_empty": "out = (F.nll_loss(torch.randn(0, 3), torch.zeros(0, dtype=torch.int64)), "
    "F.nll_loss(torch.randn(0, 3), torch.zeros(0, dtype=torch.int64), "
    "reduction='sum'))",
    "mse_loss": "x = torch.randn(4, 5); y = torch.randn(4, 5); out = [F.mse_loss(x, y, "
    "reduction=r) for r in ('none', 'mean', 'sum')]",
    "mse_loss_broadcast": "out = F.mse_loss(torch.randn(3), torch.randn(2, 3))",
    "mse_loss_weight": "x = torch.randn(4); out = F.mse_loss(x, torch.zeros(4), "
    "weight=torch.rand(4))",
    "bce_with_logits": "x = torch.randn(4, 5) * 20; y = torch.rand(4, 5); out = "
    "[F.binary_cross_entropy_with_logits(x, y, reduction=r) for r in "
    "('none', 'mean', 'sum')]",
    "bce_with_logits_weights": "x = torch.randn(4, 5); y = torch.rand(4, 5); out = "
    "F.binary_cross_entropy_with_logits(x, y, weight=torch.rand(5), "
    "pos_weight=torch.rand(5))",
    "functional_activations": "x = torch.randn(4, 5); out = (F.relu(x), F.sigmoid(x), F.tanh(x))",
    "relu_inplace": "x = torch.randn(4, 5); y = F.relu(x, inplace=True); out = (x, y is x)",
    "nn_namespace_ops": "x = torch.randn(3, 4); out = (torch._C._nn.linear(x, torch.randn(2, 4)),"
    " torch._C._nn.log_sigmoid(x * 30), torch.binary_cross_entropy_with_logits"
    "(x, torch.rand(3, 4)))",
    # python's atoi("Mean") is 0: an omitted reduction is 'none' through the bare binding
    "nn_binding_default_reduction": "x = torch.randn(3, 4); out = (torch._C._nn.mse_loss(x, x * "
    "2), torch._C._nn.nll_loss(x, torch.tensor([0, 1, 3])))",
    # ---- the pointwise ops the optimizers use --------------------------------------------
    "addcmul_addcdiv": "x = torch.randn(3, 4); a = torch.randn(3, 4); b = torch.rand(3, 4) + 1; "
    "out = (torch.addcmul(x, a, b), torch.addcmul(x, a, b, value=0.3), "
    "x.addcdiv(a, b, value=-2), x.clone().addcmul_(a, b, value=0.5), "
    "x.clone().addcdiv_(a, b))",
    "addcmul_promotes": "out = torch.addcmul(torch.arange(3), torch.rand(3), torch.rand(3))",
    "lerp": "x = torch.randn(3, 4); e = torch.randn(3, 4); out = (torch.lerp(x, e, 0.1), "
    "x.lerp(e, 0.7), x.clone().lerp_(e, 1.0), x.lerp(e, 0.0))",
    "broadcast_tensors": "out = torch.broadcast_tensors(torch.rand(3, 1), torch.rand(4), "
    "torch.rand(()))",
}

ERRORS = {
    "softmax_int": "torch.softmax(torch.arange(3), 0)",
    "softmax_int_dim0": "torch.arange(6).reshape(3, 2).softmax(0)",
    "log_softmax_int": "torch.log_softmax(torch.arange(3), 0)",
    "softmax_bad_dim": "torch.randn(3).softmax(2)",
    "softmax_half_to_float_cpu": "torch._softmax(torch.randn(3), 0, True)",
    "linear_shapes": "F.linear(torch.randn(3, 4), torch.randn(5, 3))",
    "linear_scalar": "F.linear(torch.randn(()), torch.randn(5, 3))",
    "nll_target_out_of_bounds": "F.nll_loss(torch.randn(3, 4), torch.tensor([0, 1, 4]))",
    "nll_target_negative": "F.nll_loss(torch.randn(3, 4), torch.tensor([0, -1, 2]))",
    "nll_target_out_of_bounds_none": "F.nll_loss(torch.randn(3, 4), torch.tensor([0, 1, 9]), "
    "reduction='none')",
    "nll_batch_mismatch": "F.nll_loss(torch.randn(3, 4), torch.tensor([0, 1]))",
    "nll_float_target": "F.nll_loss(torch.randn(3, 4), torch.tensor([0., 1., 2.]))",
    "nll_int32_target": "F.nll_loss(torch.randn(3, 4), torch.tensor([0, 1, 2]).int())",
    "nll_scalar_input": "F.nll_loss(torch.randn(()), torch.tensor(0))",
    "nll_1d_input_1d_target": "F.nll_loss(torch.randn(4), torch.tensor([1, 2]))",
    "nll_bad_weight": "F.nll_loss(torch.randn(3, 4), torch.tensor([0, 1, 2]), "
    "weight=torch.rand(3))",
    "nll_3d_target_size": "F.nll_loss(torch.randn(3, 4, 2), torch.zeros(3, 4, dtype=torch.int64))",
    "cross_entropy_out_of_bounds": "F.cross_entropy(torch.randn(3, 4), torch.tensor([0, 1, 4]))",
    "cross_entropy_batch_mismatch": "F.cross_entropy(torch.randn(3, 4), torch.tensor([0, 1]))",
    "cross_entropy_int_probs": "F.cross_entropy(torch.randn(3, 4), torch.zeros(3, 4, "
    "dtype=torch.int64))",
    "cross_entropy_probs_ignore_index": "F.cross_entropy(torch.randn(3, 4), torch.rand(3, 4), "
    "ignore_index=1)",
    "cross_entropy_bad_smoothing": "F.cross_entropy(torch.randn(3, 4), torch.tensor([0, 1, 2]), "
    "label_smoothing=1.5)",
    "bad_reduction": "F.cross_entropy(torch.randn(3, 4), torch.tensor([0, 1, 2]), reduction='avg')",
    "mse_shape_mismatch": "F.mse_loss(torch.randn(3), torch.randn(2))",
    "mse_int": "F.mse_loss(torch.arange(3), torch.arange(3))",
    "mse_weight_size": "F.mse_loss(torch.randn(3), torch.randn(3), weight=torch.rand(2))",
    "bce_size_mismatch": "F.binary_cross_entropy_with_logits(torch.randn(3), torch.rand(4))",
    "addcdiv_integers": "torch.addcdiv(torch.rand(3), torch.arange(3), torch.arange(3))",
    "lerp_dtype_mismatch": "torch.lerp(torch.rand(3), torch.rand(3).double(), 0.5)",
    "broadcast_tensors_mismatch": "torch.broadcast_tensors(torch.rand(3), torch.rand(2))",
}

GRADS = {
    "grad_cross_entropy": "x = torch.randn(4, 5, requires_grad=True); t = torch.tensor([0, 4, 2, "
    "1]); l = F.cross_entropy(x, t); l.backward(); out = (l, x.grad, "
    "l.grad_fn.name(), [f[0].name() for f in l.grad_fn.next_functions])",
    "grad_cross_entropy_weight_none": "x = torch.randn(4, 5, requires_grad=True); t = "
    "torch.tensor([0, -100, 2, 1]); l = F.cross_entropy(x, t, "
    "weight=torch.rand(5), reduction='none'); "
    "l.backward(torch.rand(4)); out = (l, x.grad)",
    "grad_cross_entropy_probs": "x = torch.randn(4, 5, requires_grad=True); l = F.cross_entropy("
    "x, torch.randn(4, 5).softmax(1)); l.backward(); out = x.grad",
    "grad_nll_loss_sum_weight": "x = torch.randn(4, 5, requires_grad=True); l = F.nll_loss(x, "
    "torch.tensor([1, 2, 3, 0]), weight=torch.rand(5), "
    "reduction='sum'); l.backward(); out = (x.grad, l.grad_fn.name())",
    "grad_nll_loss_1d": "x = torch.randn(5, requires_grad=True); F.nll_loss(x, torch.tensor(2))"
    ".backward(); out = x.grad",
    "grad_mse_loss": "x = torch.randn(4, 5, requires_grad=True); y = torch.randn(4, 5, "
    "requires_grad=True); l = F.mse_loss(x, y); l.backward(); out = (x.grad, "
    "y.grad, l.grad_fn.name())",
    "grad_mse_loss_sum": "x = torch.randn(4, 5, requires_grad=True); F.mse_loss(x, torch.zeros(4, "
    "5), reduction='sum').backward(); out = x.grad",
    "grad_bce_with_logits": "x = torch.randn(4, 5, requires_grad=True); y = torch.rand(4, 5, "
    "requires_grad=True); l = F.binary_cross_entropy_with_logits(x, y, "
    "weight=torch.rand(5), pos_weight=torch.rand(5)); l.backward(); out = "
    "(x.grad, y.grad, l.grad_fn.name())",
    "grad_softmax": "x = torch.randn(4, 5, requires_grad=True); s = x.softmax(1); (s * "
    "torch.randn(4, 5)).sum().backward(); out = (x.grad, s.grad_fn.name())",
    "grad_log_softmax_dim0": "x = torch.randn(4, 5, requires_grad=True); s = x.log_softmax(0); "
    "(s * torch.randn(4, 5)).sum().backward(); out = (x.grad, "
    "s.grad_fn.name())",
    "grad_activations": "x = torch.randn(4, 5, requires_grad=True); r = [F.relu(x), F.sigmoid(x),"
    " F.tanh(x)]; sum(v.sum() for v in r).backward(); out = (x.grad, "
    "[v.grad_fn.name() for v in r])",
    "grad_linear": "w = torch.randn(2, 3, requires_grad=True); b = torch.randn(2, requires_grad="
    "True); x = torch.randn(5, 3, requires_grad=True); y = F.linear(x, w, b); "
    "y.pow(2).sum().backward(); out = (x.grad, w.grad, b.grad, y.grad_fn.name(), "
    "[f[0].name() if f[0] else None for f in y.grad_fn.next_functions])",
    "grad_linear_3d": "w = torch.randn(2, 3, requires_grad=True); b = torch.randn(2, "
    "requires_grad=True); y = F.linear(torch.randn(2, 5, 3), w, b); "
    "y.sum().backward(); out = (w.grad, b.grad, y.grad_fn.name())",
    "grad_addcmul_addcdiv_lerp": "x = torch.randn(4, 5, requires_grad=True); a = torch.randn(4, "
    "5, requires_grad=True); b = torch.rand(4, 5, requires_grad=True);"
    " r = [torch.addcmul(x, a, b, value=0.5), torch.addcdiv(x, a, "
    "b + 1, value=-2), torch.lerp(x, a, 0.3)]; sum(v.sum() for v in "
    "r).backward(); out = (x.grad, a.grad, b.grad, [v.grad_fn.name() "
    "for v in r])",
}


@pytest.mark.parametrize("name", sorted(FORWARD))
def test_forward(name: str) -> None:
    check(PRE + FORWARD[name], **CLOSE)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error(name: str) -> None:
    check(PRE + ERRORS[name])


@pytest.mark.parametrize("name", sorted(GRADS))
def test_grad(name: str) -> None:
    check(PRE + GRADS[name], rtol=1e-5, atol=1e-6)


LEAK_PROGRAMS = [
    "nll_target_out_of_bounds",
    "nll_target_out_of_bounds_none",
    "mse_int",
    "cross_entropy_out_of_bounds",
    "softmax_int",
    "linear_shapes",
    "addcdiv_integers",
    "bce_size_mismatch",
]


@pytest.mark.parametrize("name", LEAK_PROGRAMS)
def test_an_error_leaks_nothing(name: str) -> None:
    """The outputs a kernel allocated before it raised are freed with the exception."""
    import gc

    import tensortrace

    namespace = {"torch": tensortrace, "F": tensortrace.nn.functional}
    exec("x = torch.randn(3, 4)", namespace)  # noqa: S102 - warm up the allocator's state
    gc.collect()  # earlier tests' cyclic garbage is not this program's
    before = tensortrace.memory_allocated()
    with pytest.raises(Exception):  # noqa: B017 - the conformance tests check which one
        exec(ERRORS[name], namespace)  # noqa: S102 - the program under test
    gc.collect()
    assert tensortrace.memory_allocated() == before
