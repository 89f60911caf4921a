"""Conformance of nn.ModuleList, nn.ModuleDict, nn.ParameterList, nn.ParameterDict, nn.Unflatten
and torch.nn.utils (clip_grad_norm_, clip_grad_value_, parameters_to_vector,
vector_to_parameters, rnn.pad_sequence) against torch 2.13: container behaviour, reprs,
parameter and state_dict names, the values of the clipped gradients and their total norm, and
the errors of each (type and message).

Reprs of parameters built from factories pass device='cpu': the repr names a CUDA device, and
the programs also run with tensortrace's factories on the emulated CUDA device."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from .harness import check

PRE = "nn = torch.nn\nF = torch.nn.functional\n"
LIN = "nn.Linear(2, 3)"

# a model whose gradients are known: weights from manual_seed(0), one backward of a sum
GRADS = (
    "m = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))\n"
    "x = torch.randn(5, 3)\n"
    "m(x).pow(2).sum().backward()\n"
    "ps = list(m.parameters())\n"
)

PROGRAMS = {
    # ---- ModuleList --------------------------------------------------------------------
    "modulelist_repr_compressed": f"m = nn.ModuleList([{LIN} for _ in range(3)] + [nn.ReLU(), "
    "nn.ReLU(), nn.Linear(3, 1), nn.ReLU()]); out = (repr(m), repr(nn.ModuleList()))",
    "modulelist_nested_repr": f"m = nn.Sequential(nn.ModuleList([{LIN}, {LIN}]), "
    "nn.ModuleList([nn.ModuleList([nn.Tanh()])])); out = repr(m)",
    "modulelist_params": f"m = nn.ModuleList([{LIN}, nn.ReLU(), nn.Linear(3, 1)]); out = "
    "([n for n, _ in m.named_parameters()], list(m.state_dict()), "
    "[p.detach() for p in m.parameters()], [n for n, _ in m.named_modules()])",
    "modulelist_list_api": "m = nn.ModuleList([nn.ReLU()]); m.append(nn.Tanh()); "
    "m.extend([nn.Sigmoid(), nn.Identity()]); m.insert(1, nn.Flatten()); "
    "m += [nn.Softmax(dim=0)]; m[0] = nn.Linear(1, 1); del m[2]; p = m.pop(-1); "
    "out = (repr(m), list(m._modules), len(m), type(p).__name__, "
    "[type(x).__name__ for x in m])",
    "modulelist_slices": "m = nn.ModuleList([nn.ReLU(), nn.Tanh(), nn.Sigmoid(), "
    "nn.Identity()]); s = m[1:3]; r = m[::-2]; del m[::2]; out = (type(s).__name__, "
    "repr(s), repr(r), repr(m), list(m._modules), m[-1] is m[1])",
    "modulelist_add": "a = nn.ModuleList([nn.ReLU()]); b = a + [nn.Tanh()] + "
    "nn.ModuleList([nn.Sigmoid()]); out = (repr(b), repr(a), type(b).__name__)",
    "modulelist_to_zero_grad": "m = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 1)]); "
    "x = torch.randn(3, 2)\nfor layer in m:\n    x = layer(x)\nx.sum().backward(); "
    "g = [p.grad.clone() for p in m.parameters()]; m.zero_grad(); "
    "m.to(torch.float64); out = (g, [p.grad for p in m.parameters()], "
    "[p.dtype for p in m.parameters()])",
    "modulelist_dir": "m = nn.ModuleList([nn.ReLU()]); out = ('0' in dir(m), 'append' in dir(m))",
    # ---- ModuleDict --------------------------------------------------------------------
    "moduledict_api": "d = nn.ModuleDict({'b': nn.ReLU(), 'a': nn.Linear(2, 2)}); "
    "d['c'] = nn.Tanh(); d.update([('e', nn.Sigmoid())]); p = d.pop('b'); "
    "out = (repr(d), list(d.keys()), [type(v).__name__ for v in d.values()], "
    "[k for k, _ in d.items()], list(d), len(d), 'a' in d, 'b' in d, "
    "type(p).__name__, list(d.state_dict()), [n for n, _ in d.named_parameters()])",
    "moduledict_update_moduledict": "a = nn.ModuleDict({'x': nn.ReLU()}); b = nn.ModuleDict("
    "{'y': nn.Tanh(), 'x': nn.Sigmoid()}); a.update(b); del a['y']; c = nn.ModuleDict(); "
    "c.update(a); a.clear(); out = (repr(a), repr(c), len(c))",
    "moduledict_in_module": "class Net(nn.Module):\n    def __init__(self):\n"
    "        super().__init__()\n        self.heads = nn.ModuleDict({'cls': nn.Linear(3, 2), "
    "'reg': nn.Linear(3, 1)})\n    def forward(self, x, h):\n        return self.heads[h](x)\n"
    "m = Net(); x = torch.randn(4, 3); out = (repr(m), list(m.state_dict()), "
    "m(x, 'cls').detach(), m(x, 'reg').detach())",
    # ---- ParameterList -----------------------------------------------------------------
    "parameterlist_repr_one": "out = repr(nn.ParameterList([torch.randn(3, 4, device='cpu')]))",
    "parameterlist_repr": "p = nn.ParameterList([torch.randn(3, 4, device='cpu'), nn.Parameter("
    "torch.ones(2, dtype=torch.float64, device='cpu')), 5, 'x']); out = (repr(p), "
    "repr(nn.ParameterList()))",
    "parameterlist_api": "t = torch.randn(2, 3); p = nn.ParameterList([t]); p.append(torch.ones(2)"
    "); p.extend([torch.zeros(1)]); p += [nn.Parameter(torch.ones(3), requires_grad=False)]; "
    "p[1] = torch.full((2,), 7.0); s = p[1:]; out = (len(p), [type(x).__name__ for x in p], "
    "[x.requires_grad for x in p], [x.detach() for x in p], "
    "[n for n, _ in p.named_parameters()], list(p.state_dict()), type(s).__name__, len(s), "
    "p[-1].detach(), p[0].data_ptr() == t.data_ptr())",
    "parameterlist_in_module": "class Net(nn.Module):\n    def __init__(self):\n"
    "        super().__init__()\n        self.ws = nn.ParameterList([nn.Parameter(torch.ones(2, 2"
    ")) for _ in range(2)])\n    def forward(self, x):\n        for w in self.ws:\n"
    "            x = x @ w\n        return x\nm = Net(); m(torch.randn(3, 2)).sum().backward(); "
    "g = [p.grad.clone() for p in m.parameters()]; m.zero_grad(); out = (g, "
    "[p.grad for p in m.parameters()], list(m.state_dict()), [n for n, _ in m.named_parameters()])",
    "parameterlist_to": "p = nn.ParameterList([torch.ones(2), torch.zeros(3)]); p.to(torch.float64"
    "); out = ([x.dtype for x in p], [type(x).__name__ for x in p])",
    # ---- ParameterDict -----------------------------------------------------------------
    "parameterdict_repr": "d = nn.ParameterDict({'b': torch.ones(2, device='cpu'), 'a': "
    "nn.Parameter(torch.zeros(1, 2, device='cpu')), 'c': 'text'}); out = (repr(d), "
    "repr(nn.ParameterDict()))",
    "parameterdict_api": "from collections import OrderedDict\n"
    "d = nn.ParameterDict(OrderedDict([('z', torch.ones(2)), ('a', torch.zeros(2))])); "
    "d['m'] = torch.full((1,), 3.0); d.update([('q', nn.Parameter(torch.ones(1)))]); "
    "v = d.pop('a'); k, w = d.popitem(); s = d.setdefault('n', torch.ones(3)); "
    "c = d.copy(); e = d | nn.ParameterDict({'y': torch.zeros(1)}); "
    "out = (list(d.keys()), [k2 for k2, _ in d.items()], [x.detach() for x in d.values()], "
    "list(d), list(reversed(d)), len(d), 'z' in d, d.get('nope'), k, w.detach(), "
    "v.detach(), s.detach(), list(c), list(e), list(d.state_dict()), "
    "[n for n, _ in d.named_parameters()], type(d['z']).__name__)",
    "parameterdict_sorted_update": "d = nn.ParameterDict({'b': torch.ones(1), 'a': torch.ones(1)"
    "}); d.update({'d': torch.ones(1), 'c': torch.ones(1)}); d.clear(); d['x'] = None; "
    "out = (list(d), d['x'], list(d.state_dict()))",
    # ---- Unflatten ---------------------------------------------------------------------
    "unflatten": "m = nn.Unflatten(1, (2, 3)); x = torch.arange(24.).view(4, 6); y = m(x); "
    "out = (repr(m), y, repr(nn.Unflatten(-1, [2, 2])), "
    "nn.Sequential(nn.Flatten(), nn.Unflatten(1, (3, 2)))(torch.ones(2, 3, 2)))",
    # ---- clip_grad_norm_ ---------------------------------------------------------------
    "clip_grad_norm_2": GRADS + "n = nn.utils.clip_grad_norm_(m.parameters(), max_norm=1.0); "
    "out = (n, [p.grad for p in ps])",
    "clip_grad_norm_1": GRADS + "n = nn.utils.clip_grad_norm_(ps, 0.5, norm_type=1); "
    "out = (n, [p.grad for p in ps])",
    "clip_grad_norm_inf": GRADS + "n = nn.utils.clip_grad_norm_(ps, 0.1, norm_type=float('inf'));"
    " out = (n, [p.grad for p in ps])",
    "clip_grad_norm_no_clip": GRADS + "g = [p.grad.clone() for p in ps]; n = "
    "torch.nn.utils.clip_grad_norm_(ps, 1e6); out = (n, g, [p.grad for p in ps])",
    "clip_grad_norm_single_tensor": "p = torch.tensor([3.0, 4.0], requires_grad=True); "
    "(p * p).sum().backward(); n = nn.utils.clip_grad_norm_(p, 2.0); out = (n, p.grad, "
    "n.requires_grad)",
    "clip_grad_norm_skips_none": "a = nn.Parameter(torch.ones(2)); b = nn.Parameter(torch.ones(3"
    ")); (a * 4).sum().backward(); n = nn.utils.clip_grad_norm_([a, b], 1.0, 2.0); "
    "out = (n, a.grad, b.grad)",
    "clip_grad_norm_empty": "n = nn.utils.clip_grad_norm_([], 1.0); out = (n.item(), str(n.dtype))",
    "clip_grad_norm_nonfinite_ok": "p = nn.Parameter(torch.ones(2)); p.grad = torch.tensor("
    "[float('inf'), 1.0]); n = nn.utils.clip_grad_norm_([p], 1.0); out = (n, p.grad)",
    "clip_grad_norm_nonfinite_error": "p = nn.Parameter(torch.ones(2)); p.grad = torch.tensor("
    "[float('nan'), 1.0]); nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)",
    "clip_grad_norm_nonfinite_error_inf_norm": "p = nn.Parameter(torch.ones(2)); p.grad = "
    "torch.tensor([float('inf'), 1.0]); nn.utils.clip_grad_norm_([p], 1.0, norm_type='inf', "
    "error_if_nonfinite=True)",
    "get_total_norm_and_clip_with_norm": GRADS + "grads = [p.grad for p in ps]; t = "
    "nn.utils.get_total_norm(grads, 3.0); nn.utils.clip_grads_with_norm_(ps, 0.2, t); "
    "out = (t, grads)",
    # ---- clip_grad_value_ --------------------------------------------------------------
    "clip_grad_value": GRADS + "r = nn.utils.clip_grad_value_(m.parameters(), 0.3); "
    "out = (r, [p.grad for p in ps])",
    "clip_grad_value_single": "p = torch.tensor([-3.0, 0.1, 4.0], requires_grad=True); "
    "(p * p).sum().backward(); nn.utils.clip_grad_value_(p, clip_value=1); out = p.grad",
    # ---- parameters_to_vector / vector_to_parameters ----------------------------------
    "parameters_to_vector": "m = nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 1)); v = "
    "nn.utils.parameters_to_vector(m.parameters()); out = (v.detach(), v.requires_grad, "
    "v.grad_fn.name())",
    "vector_to_parameters": "m = nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 1)); v = "
    "torch.arange(11.); nn.utils.vector_to_parameters(v, m.parameters()); "
    "v[0] = 100.0; out = ([p.detach() for p in m.parameters()], "
    "[type(p).__name__ for p in m.parameters()], [p.requires_grad for p in m.parameters()])",
    "vector_to_parameters_not_tensor": "nn.utils.vector_to_parameters([1.0], [nn.Parameter("
    "torch.ones(1))])",
    # ---- rnn.pad_sequence --------------------------------------------------------------
    "pad_sequence": "a, b, c = torch.ones(3, 2), torch.arange(2.).view(1, 2), "
    "torch.full((2, 2), 5.0); ps = torch.nn.utils.rnn.pad_sequence; out = (ps([a, b, c]), "
    "ps([a, b, c], batch_first=True), ps([a, b, c], True, -1.0, 'left'), "
    "ps((b, c), padding_value=9, padding_side='left'), ps(torch.ones(2, 3)))",
    "pad_sequence_1d_int": "pad_sequence = torch.nn.utils.rnn.pad_sequence\n"
    "out = pad_sequence([torch.tensor([1, 2, 3]), torch.tensor([4])], batch_first=True)",
    "pad_sequence_grad": "a = torch.randn(3, requires_grad=True); b = torch.randn(1, "
    "requires_grad=True); y = nn.utils.rnn.pad_sequence([a, b]); (y * torch.arange(6.)"
    ".view(3, 2)).sum().backward(); out = (y.detach(), a.grad, b.grad, y.grad_fn.name())",
    "pad_sequence_empty": "nn.utils.rnn.pad_sequence([])",
    "pad_sequence_bad_side": "nn.utils.rnn.pad_sequence([torch.ones(2)], padding_side='top')",
    "pad_sequence_not_iterable": "nn.utils.rnn.pad_sequence(3)",
    # ---- a tutorial: an MLP in a ModuleList, 5 SGD steps with clipped gradients --------
    "tutorial_modulelist_mlp_clip": "class MLP(nn.Module):\n"
    "    def __init__(self, sizes):\n        super().__init__()\n"
    "        self.layers = nn.ModuleList([nn.Linear(a, b) for a, b in zip(sizes, sizes[1:])])\n"
    "    def forward(self, x):\n        for layer in self.layers[:-1]:\n"
    "            x = torch.relu(layer(x))\n        return self.layers[-1](x)\n"
    "model = MLP([4, 16, 16, 3]); opt = torch.optim.SGD(model.parameters(), lr=0.5)\n"
    "x = torch.randn(32, 4); y = torch.randint(0, 3, (32,)); losses = []; norms = []\n"
    "for _ in range(5):\n    opt.zero_grad()\n    loss = F.cross_entropy(model(x), y)\n"
    "    loss.backward()\n"
    "    norms.append(nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0))\n"
    "    opt.step()\n    losses.append(loss.detach())\n"
    "out = (losses, norms, repr(model), list(model.state_dict()))",
}

ERRORS = {
    "modulelist_index_out_of_range": "m = nn.ModuleList([nn.ReLU()]); m[1]",
    "modulelist_negative_out_of_range": "m = nn.ModuleList([nn.ReLU()]); m[-2] = nn.Tanh()",
    "modulelist_index_not_int": "m = nn.ModuleList([nn.ReLU()]); m['0']",
    "modulelist_append_not_module": "nn.ModuleList().append(3)",
    "modulelist_extend_not_iterable": "nn.ModuleList().extend(nn.ReLU())",
    "modulelist_not_callable": "nn.ModuleList([nn.ReLU()])(torch.ones(1))",
    "moduledict_non_string_key": "nn.ModuleDict({1: nn.ReLU()})",
    "moduledict_missing_key": "nn.ModuleDict({'a': nn.ReLU()})['b']",
    "moduledict_dotted_key": "nn.ModuleDict({'a.b': nn.ReLU()})",
    "moduledict_update_not_iterable": "nn.ModuleDict().update(3)",
    "moduledict_update_bad_pair": "nn.ModuleDict().update([('a', nn.ReLU(), 1)])",
    "moduledict_update_not_pair": "nn.ModuleDict().update([3])",
    "parameterlist_called": "nn.ParameterList([torch.ones(1)])(torch.ones(1))",
    "parameterlist_extend_tensor": "nn.ParameterList().extend(torch.ones(3))",
    "parameterlist_out_of_range": "nn.ParameterList([torch.ones(1)])[3]",
    "parameterlist_setitem_out_of_range": "p = nn.ParameterList(); p[0] = torch.ones(1)",
    "parameterdict_non_string_key": "d = nn.ParameterDict(); d[1] = torch.ones(1)",
    "parameterdict_missing_key": "nn.ParameterDict()['a']",
    "parameterdict_called": "nn.ParameterDict()(torch.ones(1))",
    "parameterdict_update_not_iterable": "nn.ParameterDict().update(5)",
    "unflatten_bad_sizes": "nn.Unflatten(1, 6)",
    "unflatten_bad_element": "nn.Unflatten(1, (2, 3.0))",
    "unflatten_wrong_product": "nn.Unflatten(1, (2, 2))(torch.ones(3, 6))",
}


@pytest.fixture(autouse=True)
def _collect_cycles() -> Iterator[None]:
    """The programs' classes and closures form reference cycles: collect them after each."""
    yield
    gc.collect()


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program(name: str) -> None:
    check(PRE + PROGRAMS[name], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error(name: str) -> None:
    check(PRE + ERRORS[name])
