"""Conformance of torch.nn's modules, Parameter, init and torch.optim's bookkeeping against torch
2.13: weights after manual_seed (bit-equal), forward values, repr, state_dict keys and metadata,
load_state_dict, attribute routing, and the errors of each (type and message)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from .harness import check

PRE = "nn = torch.nn\nF = torch.nn.functional\n"
MLP = "nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2), nn.Sigmoid())"

# Initial weights come from the same generator draws: they must be bit-identical (BIT_EQUAL);
# the rest may differ from torch in the last bit of an exp or a sum.
BIT_EQUAL = {
    "linear_init_bit_equal",
    "mlp_init_bit_equal",
    "linear_dtype_init",
    "init_draws",
    "apply_and_init",
    "load_state_dict",
    "parameter_shares_storage",
}
EXACT = {
    "linear_init_bit_equal": "m = nn.Linear(4, 3); out = (m.weight.detach(), m.bias.detach())",
    "mlp_init_bit_equal": f"m = {MLP}; out = [p.detach() for p in m.parameters()]",
    "linear_dtype_init": "m = nn.Linear(3, 2, dtype=torch.float64); out = (m.weight.detach(), "
    "m.bias.dtype)",
    "linear_repr": "out = (repr(nn.Linear(4, 3)), repr(nn.Linear(3, 2, bias=False)))",
    "sequential_repr": f"out = repr({MLP})",
    "nested_repr": "m = nn.Sequential(nn.Sequential(nn.Linear(2, 2), nn.Tanh()), nn.Flatten(), "
    "nn.Identity(), nn.Softmax(dim=1)); out = repr(m)",
    "module_reprs": "out = [repr(x) for x in (nn.MSELoss(), nn.CrossEntropyLoss(), nn.NLLLoss(), "
    "nn.BCEWithLogitsLoss(), nn.ReLU(), nn.ReLU(inplace=True), nn.Sigmoid(), "
    "nn.Tanh(), nn.Flatten(0), nn.Softmax(), nn.Identity(3, x=1), nn.Module())]",
    "custom_module_repr": "class Net(nn.Module):\n    def __init__(self):\n        super()"
    ".__init__()\n        self.fc1 = nn.Linear(2, 3)\n        self.act = "
    "nn.ReLU()\n        self.register_buffer('mask', torch.ones(3))\n"
    "    def forward(self, x):\n        return self.act(self.fc1(x)) * "
    "self.mask\nm = Net(); out = (repr(m), list(m.state_dict()), "
    "[n for n, _ in m.named_parameters()], [n for n, _ in "
    "m.named_buffers()], m(torch.randn(4, 2)).detach())",
    "parameter_repr": "p = nn.Parameter(torch.randn(2, 3)); out = (repr(p), p.requires_grad, "
    "p.is_leaf, type(p).__name__, isinstance(p, torch.Tensor))",
    "parameter_no_grad": "p = nn.Parameter(torch.randn(2), requires_grad=False); out = (repr(p), "
    "p.requires_grad)",
    "parameter_shares_storage": "t = torch.randn(3); p = nn.Parameter(t); t[0] = 5.0; out = "
    "(p.detach(), p.data_ptr() == t.data_ptr())",
    "state_dict": f"m = {MLP}; sd = m.state_dict(); out = (type(sd).__name__, list(sd), "
    "dict(sd._metadata), [v.requires_grad for v in sd.values()], "
    "type(sd['0.weight']).__name__)",
    "state_dict_keep_vars": "m = nn.Linear(2, 2); sd = m.state_dict(keep_vars=True); out = "
    "(type(sd['weight']).__name__, sd['weight'] is m.weight)",
    "load_state_dict": "m = nn.Linear(3, 2); r = m.load_state_dict({'weight': torch.zeros(2, 3), "
    "'bias': torch.ones(2)}); out = (repr(r), m.weight.detach(), "
    "m.bias.detach(), m.weight.requires_grad)",
    "load_state_dict_non_strict": "m = nn.Sequential(nn.Linear(2, 2)); r = m.load_state_dict("
    "{'0.weight': torch.zeros(2, 2), 'x': torch.ones(1)}, "
    "strict=False); out = (repr(r), r.missing_keys, "
    "r.unexpected_keys, m[0].weight.detach())",
    "load_state_dict_roundtrip": f"a = {MLP}; b = {MLP}; b.load_state_dict(a.state_dict()); "
    "x = torch.randn(5, 4); out = (a(x).detach(), b(x).detach())",
    "children_modules": f"m = {MLP}; out = ([type(c).__name__ for c in m.children()], "
    "[n for n, _ in m.named_modules()], [n for n, _ in m.named_children()], "
    "len(list(m.modules())), len(list(m.parameters())))",
    "train_eval": f"m = {MLP}; m.eval(); a = [x.training for x in m.modules()]; m.train(); "
    "out = (a, [x.training for x in m.modules()])",
    "sequential_indexing": f"m = {MLP}; out = (repr(m[0]), repr(m[-1]), repr(m[1:3]), len(m), "
    "[type(x).__name__ for x in m])",
    "sequential_append_delete": "m = nn.Sequential(nn.Linear(2, 2), nn.ReLU()); m.append(nn.Tanh"
    "()); del m[0]; out = (repr(m), list(m._modules))",
    "apply_and_init": "m = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 1))\n"
    "def init(mod):\n    if isinstance(mod, nn.Linear):\n        "
    "nn.init.xavier_uniform_(mod.weight)\n        nn.init.zeros_(mod.bias)\n"
    "m.apply(init); out = [p.detach() for p in m.parameters()]",
    "setattr_routing": "m = nn.Module(); m.w = nn.Parameter(torch.ones(2)); m.sub = nn.Linear("
    "1, 1); m.plain = 3; m.register_buffer('b', torch.zeros(1)); m.b = "
    "torch.ones(1); m.w = None; out = (list(m._parameters), list(m._modules), "
    "list(m._buffers), m.plain, m.w, m.b)",
    "module_to_double": "m = nn.Linear(3, 2); w = m.weight; m.to(torch.float64); out = "
    "(m.weight is w, m.weight.dtype, m(torch.randn(4, 3, "
    "dtype=torch.float64)).detach(), repr(nn.Parameter()))",
    "zero_grad": "m = nn.Linear(3, 2); m(torch.randn(4, 3)).sum().backward(); g = m.weight.grad"
    ".clone(); m.zero_grad(); out = (g, m.weight.grad, m.bias.grad)",
    "zero_grad_keep": "m = nn.Linear(3, 2); m(torch.randn(4, 3)).sum().backward(); "
    "m.zero_grad(set_to_none=False); out = (m.weight.grad, m.bias.grad)",
    "requires_grad_": "m = nn.Linear(3, 2).requires_grad_(False); out = [p.requires_grad for p "
    "in m.parameters()]",
    # ---- init -----------------------------------------------------------------------------
    "init_fans_gains": "w = torch.empty(3, 5, 2); out = (nn.init._calculate_fan_in_and_fan_out(w)"
    ", [nn.init.calculate_gain(n) for n in ('linear', 'sigmoid', 'tanh', "
    "'relu', 'selu', 'leaky_relu')], nn.init.calculate_gain('leaky_relu', 0.2))",
    "init_draws": "w = torch.empty(3, 5); out = [f(w).clone() for f in (nn.init.kaiming_uniform_,"
    " nn.init.kaiming_normal_, nn.init.xavier_uniform_, nn.init.xavier_normal_, "
    "nn.init.uniform_, nn.init.normal_, nn.init.zeros_, nn.init.ones_, lambda t: "
    "nn.init.constant_(t, 0.3), lambda t: nn.init.kaiming_uniform_(t, mode='fan_out',"
    " nonlinearity='relu'), lambda t: nn.init.uniform_(t, -2, 2))]",
    "init_no_grad": "p = nn.Parameter(torch.empty(2, 2)); r = nn.init.normal_(p); out = (r is p, "
    "p.grad_fn, p.is_leaf)",
    # ---- modules' forward ----------------------------------------------------------------
    "losses_modules": "x = torch.randn(4, 5); t = torch.tensor([0, 4, 2, 1]); out = "
    "[nn.CrossEntropyLoss(reduction=r)(x, t) for r in ('none', 'sum', 'mean')] "
    "+ [nn.NLLLoss(weight=torch.rand(5))(x.log_softmax(1), t), "
    "nn.MSELoss(reduction='sum')(x, x * 2), nn.BCEWithLogitsLoss(pos_weight="
    "torch.rand(5))(x, torch.rand(4, 5)), nn.CrossEntropyLoss(label_smoothing="
    "0.2)(x, t)]",
    "mlp_forward": f"m = {MLP}; out = m(torch.randn(5, 4)).detach()",
    "flatten_forward": "out = (nn.Flatten()(torch.randn(2, 3, 4)), nn.Flatten(0, 1)(torch.randn("
    "2, 3, 4)), nn.Flatten()(torch.randn(2, 3, 4).transpose(1, 2)))",
    # ---- optim bookkeeping ---------------------------------------------------------------
    "sgd_repr_state_dict": "o = torch.optim.SGD(nn.Linear(3, 2).parameters(), lr=0.1, momentum="
    "0.9); out = (repr(o), o.state_dict())",
    "adam_repr_state_dict": "o = torch.optim.Adam(nn.Linear(3, 2).parameters(), lr=0.1); out = "
    "(repr(o), o.state_dict())",
    "adam_state_after_step": "m = nn.Linear(3, 2); o = torch.optim.Adam(m.parameters()); "
    "m(torch.randn(4, 3)).sum().backward(); o.step(); s = o.state_dict("
    ")['state']; out = (sorted(s), sorted(s[0]), s[0]['step'], "
    "s[1]['exp_avg'])",
    "adamw_state_after_step": "m = nn.Linear(3, 2); o = torch.optim.AdamW(m.parameters(), lr=0.1)"
    "; m(torch.randn(4, 3)).sum().backward(); o.step(); out = (repr(o), o.state_dict(), "
    "m.weight.detach())",
    "rmsprop_state_after_step": "m = nn.Linear(3, 2); o = torch.optim.RMSprop(m.parameters(), "
    "momentum=0.9, centered=True)\nfor _ in range(2):\n    o.zero_grad(); m(torch.randn(4, 3))"
    ".pow(2).sum().backward(); o.step()\nout = (repr(o), o.state_dict(), m.weight.detach())",
    "adagrad_state_before_step": "o = torch.optim.Adagrad(nn.Linear(3, 2).parameters(), "
    "initial_accumulator_value=0.5); out = (repr(o), o.state_dict())",
    "adagrad_new_group_state": "m = nn.Linear(3, 2); o = torch.optim.Adagrad([m.weight], "
    "initial_accumulator_value=0.5); o.add_param_group({'params': [m.bias], "
    "'initial_accumulator_value': 2.0}); m(torch.randn(4, 3)).sum().backward(); o.step(); "
    "out = (o.state_dict(), m.bias.detach())",
    # a deep copy stands for a saved checkpoint: torch's load_state_dict keeps (aliases) the
    # state tensors it is given, tensortrace's clones them
    "optimizer_load_state_dict_resumes": "import copy; m = nn.Linear(3, 2); "
    "x = torch.randn(4, 3); "
    "m2 = nn.Linear(3, 2); m2.load_state_dict(m.state_dict())\n"
    "def run(mod, o):\n    o.zero_grad(); mod(x).pow(2).sum().backward(); o.step()\n"
    "out = []\nfor make in (lambda p: torch.optim.RMSprop(p, momentum=0.5, centered=True), "
    "lambda p: torch.optim.Adagrad(p, lr_decay=0.1), lambda p: torch.optim.AdamW(p)):\n"
    "    o = make(m.parameters()); run(m, o); run(m, o)\n"
    "    o2 = make(m2.parameters()); m2.load_state_dict(m.state_dict()); "
    "o2.load_state_dict(copy.deepcopy(o.state_dict()))\n"
    "    run(m, o); run(m2, o2); out += [m.weight.detach().clone(), m2.weight.detach().clone(), "
    "o2.state_dict()]",
    "param_groups": "m = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1)); o = torch.optim.SGD(["
    "{'params': m[0].parameters()}, {'params': m[1].parameters(), 'lr': 0.5}], "
    "lr=0.1, momentum=0.5); out = (repr(o), [g['lr'] for g in o.param_groups], "
    "o.state_dict()['param_groups'])",
    "optimizer_zero_grad": "m = nn.Linear(3, 2); o = torch.optim.SGD(m.parameters(), lr=0.1); "
    "m(torch.randn(4, 3)).sum().backward(); o.zero_grad(); out = "
    "(m.weight.grad, m.bias.grad)",
    "optimizer_zero_grad_keep": "m = nn.Linear(3, 2); o = torch.optim.SGD(m.parameters(), lr=0.1)"
    "; m(torch.randn(4, 3)).sum().backward(); "
    "o.zero_grad(set_to_none=False); out = m.weight.grad",
    "step_skips_no_grad": "m = nn.Linear(3, 2); o = torch.optim.SGD(m.parameters(), lr=0.1); "
    "o.step(); out = m.weight.detach()",
    "step_under_no_grad": "m = nn.Linear(3, 2); o = torch.optim.SGD(m.parameters(), lr=0.1); "
    "m(torch.randn(4, 3)).sum().backward(); o.step(); out = "
    "(m.weight.grad_fn, m.weight.is_leaf, m.weight.requires_grad)",
    "sgd_closure": "m = nn.Linear(3, 1); x = torch.randn(4, 3); o = torch.optim.SGD(m.parameters()"
    ", lr=0.1)\ndef closure():\n    o.zero_grad()\n    l = m(x).pow(2).mean()\n"
    "    l.backward()\n    return l\nout = (o.step(closure), m.weight.detach())",
}

ERRORS = {
    "assign_tensor_to_parameter": "m = nn.Linear(3, 2); m.weight = torch.zeros(2, 3)",
    "assign_int_to_module": "m = nn.Sequential(nn.Linear(1, 1)); m[0]; setattr(m, '0', 3)",
    "missing_attribute": "m = nn.Linear(3, 2); m.foo",
    "register_parameter_dot": "nn.Module().register_parameter('a.b', None)",
    "register_parameter_empty": "nn.Module().register_parameter('', None)",
    "register_parameter_tensor": "nn.Module().register_parameter('w', torch.zeros(2))",
    "register_parameter_non_leaf": "x = torch.ones(2, requires_grad=True); p = nn.Parameter(x); "
    "nn.Module().register_parameter('w', p * 2)",
    "register_parameter_exists": "m = nn.Module(); m.w = 3; m.register_parameter('w', None)",
    "register_buffer_not_tensor": "nn.Module().register_buffer('x', 3)",
    "register_buffer_bad_name": "nn.Module().register_buffer(3, torch.zeros(1))",
    "add_module_not_module": "nn.Module().add_module('x', 3)",
    "before_init": "class M(nn.Module):\n    def __init__(self):\n        self.w = nn.Parameter("
    "torch.ones(1))\nM()",
    "module_kwargs": "nn.Module(foo=1)",
    "no_forward": "nn.Module()(torch.ones(1))",
    "load_missing": "nn.Linear(3, 2).load_state_dict({'weight': torch.zeros(2, 3)})",
    "load_unexpected_and_size": "nn.Linear(3, 2).load_state_dict({'weight': torch.zeros(2, 4), "
    "'bias': torch.ones(2), 'extra': torch.ones(1)})",
    "load_nested_missing": f"{MLP}.load_state_dict({{'0.weight': torch.zeros(8, 4)}})",
    "train_not_bool": "nn.Linear(1, 1).train(1)",
    "to_int_dtype": "nn.Linear(1, 1).to(torch.int64)",
    "sequential_index": "nn.Sequential(nn.ReLU())[3]",
    "linear_forward_shape": "nn.Linear(3, 2)(torch.randn(4, 5))",
    "fan_1d": "nn.init._calculate_fan_in_and_fan_out(torch.empty(3))",
    "gain_unknown": "nn.init.calculate_gain('foo')",
    "gain_bad_param": "nn.init.calculate_gain('leaky_relu', 'x')",
    "kaiming_bad_mode": "nn.init.kaiming_uniform_(torch.empty(3, 2), mode='fan_x')",
    "sgd_empty": "torch.optim.SGD([], lr=0.1)",
    "sgd_tensor": "torch.optim.SGD(torch.zeros(2), lr=0.1)",
    "sgd_negative_lr": "torch.optim.SGD(nn.Linear(2, 2).parameters(), lr=-1)",
    "sgd_negative_momentum": "torch.optim.SGD(nn.Linear(2, 2).parameters(), momentum=-1)",
    "sgd_nesterov": "torch.optim.SGD(nn.Linear(2, 2).parameters(), lr=0.1, nesterov=True)",
    "sgd_non_leaf": "x = torch.ones(2, requires_grad=True); torch.optim.SGD([x * 2], lr=0.1)",
    "sgd_not_tensor": "torch.optim.SGD([1.0], lr=0.1)",
    "sgd_set": "o = torch.optim.SGD({nn.Parameter(torch.ones(1))}, lr=0.1); "
    "out = len(o.param_groups[0]['params'])",
    "sgd_overlapping_groups": "p = nn.Parameter(torch.ones(1)); torch.optim.SGD([{'params': [p]}, "
    "{'params': [p]}], lr=0.1)",
    "adam_beta": "torch.optim.Adam(nn.Linear(2, 2).parameters(), betas=(1.0, 0.9))",
    "adam_beta2": "torch.optim.Adam(nn.Linear(2, 2).parameters(), betas=(0.9, -0.1))",
    "adam_eps": "torch.optim.Adam(nn.Linear(2, 2).parameters(), eps=-1.0)",
    "adam_lr": "torch.optim.Adam(nn.Linear(2, 2).parameters(), lr=-0.1)",
    "adam_weight_decay": "torch.optim.Adam(nn.Linear(2, 2).parameters(), weight_decay=-0.1)",
    "adamw_lr": "torch.optim.AdamW(nn.Linear(2, 2).parameters(), lr=-1)",
    "adamw_beta": "torch.optim.AdamW(nn.Linear(2, 2).parameters(), betas=(0.9, 1.0))",
    "rmsprop_lr": "torch.optim.RMSprop(nn.Linear(2, 2).parameters(), lr=-1)",
    "rmsprop_eps": "torch.optim.RMSprop(nn.Linear(2, 2).parameters(), eps=-1e-8)",
    "rmsprop_momentum": "torch.optim.RMSprop(nn.Linear(2, 2).parameters(), momentum=-0.5)",
    "rmsprop_weight_decay": "torch.optim.RMSprop(nn.Linear(2, 2).parameters(), weight_decay=-1)",
    "rmsprop_alpha": "torch.optim.RMSprop(nn.Linear(2, 2).parameters(), alpha=-0.9)",
    "adagrad_lr": "torch.optim.Adagrad(nn.Linear(2, 2).parameters(), lr=-0.5)",
    "adagrad_lr_decay": "torch.optim.Adagrad(nn.Linear(2, 2).parameters(), lr_decay=-1)",
    "adagrad_weight_decay": "torch.optim.Adagrad(nn.Linear(2, 2).parameters(), weight_decay=-1)",
    "adagrad_initial_accumulator": "torch.optim.Adagrad(nn.Linear(2, 2).parameters(), "
    "initial_accumulator_value=-0.1)",
    "adagrad_eps": "torch.optim.Adagrad(nn.Linear(2, 2).parameters(), eps=-1.0)",
}


@pytest.fixture(autouse=True)
def _collect_cycles() -> Iterator[None]:
    """Programs that define a class or a function make reference cycles (the function's
    __globals__ is the namespace that holds it), which keep their tensors allocated until the
    cycle collector runs: collect them here, so later tests start from the memory they expect."""
    yield
    gc.collect()


@pytest.mark.parametrize("name", sorted(EXACT))
def test_module(name: str) -> None:
    if name in BIT_EQUAL:
        check(PRE + EXACT[name])
    else:
        check(PRE + EXACT[name], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error(name: str) -> None:
    check(PRE + ERRORS[name])
