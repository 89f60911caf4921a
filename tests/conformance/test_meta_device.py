"""Conformance of the meta device (`device="meta"`) against torch 2.13: tensors with sizes,
strides and a dtype and no data. Factories, views, elementwise ops, reductions, matmul,
convolution, cat/stack, copy_, `.to("meta")`, nn.init, nn modules built under
`with torch.device("meta")`, Module.to_empty, nn.utils.skip_init, autograd, reprs and the
errors of data access.

A meta tensor has no values to compare, so each program returns its tensors' facts (shape,
strides, dtype, device, is_meta) through `facts`, and reprs as strings.
"""

from __future__ import annotations

import gc

import pytest

from .harness import check

PRE = (
    "nn = torch.nn\nF = torch.nn.functional\n"
    "def facts(t):\n"
    "    if isinstance(t, (tuple, list)):\n"
    "        return [facts(v) for v in t]\n"
    "    return (tuple(t.shape), t.stride(), t.storage_offset(), str(t.dtype), "
    "str(t.device), t.is_meta)\n"
    "def m(*size, **kw):\n"
    "    return torch.empty(*size, device='meta', **kw)\n"
)

PROGRAMS = {
    # ---- factories ----
    "empty": "x = torch.empty(3, 4, device='meta'); out = (facts(x), x.data_ptr(), "
    "x.untyped_storage().nbytes(), x.nbytes, x.element_size())",
    "empty_strided": "out = facts(torch.empty_strided((2, 3), (1, 2), device='meta'))",
    "device_object": "d = torch.device('meta'); out = (str(d), d.type, repr(d), "
    "facts(torch.zeros(2, device=d)))",
    "factories": "out = facts([torch.zeros(2, 3, device='meta'), "
    "torch.ones(2, dtype=torch.int32, device='meta'), torch.full((2, 2), 7, device='meta'), "
    "torch.full((2,), True, device='meta'), torch.rand(2, 3, device='meta'), "
    "torch.randn(4, device='meta', dtype=torch.float64), "
    "torch.randint(0, 5, (2, 3), device='meta'), torch.arange(10, device='meta'), "
    "torch.arange(0, 1, 0.25, device='meta'), torch.linspace(0, 1, 5, device='meta'), "
    "torch.logspace(0, 1, 3, device='meta'), torch.eye(3, 2, device='meta'), "
    "torch.tensor([1.0, 2.0], device='meta'), torch.empty((), device='meta')])",
    "like_factories": "x = m(2, 3).t(); out = facts([torch.zeros_like(x), torch.ones_like(x), "
    "torch.full_like(x, 2), torch.rand_like(x), torch.randn_like(x), torch.empty_like(x), "
    "torch.empty_like(x, device='cpu'), torch.zeros_like(x, dtype=torch.int64), "
    "x.new_empty(4), x.new_zeros((2, 2)), x.new_ones(3), x.new_full((1,), 5.0)])",
    "device_context": "with torch.device('meta'):\n"
    "    out = facts([torch.empty(2), torch.zeros(2, 3), torch.arange(3), torch.rand(2), "
    "torch.tensor([1, 2])])",
    # ---- views and shape ops ----
    "views": "x = m(3, 4); out = facts([x.view(2, 6), x.reshape(12), x.t(), x.permute(1, 0), "
    "x.unsqueeze(0), x[None, :, 1:3], x[1], x[:, ::2], x.expand(2, 3, 4), x.flatten(), "
    "x.narrow(1, 1, 2), x.select(1, 2), x.diagonal(), x.unfold(1, 2, 1), "
    "x.as_strided((2, 2), (1, 2), 1), x.transpose(0, 1).contiguous(), x.squeeze(), "
    "x.view(-1, 2).T, x.movedim(0, 1), x.unflatten(1, (2, 2)), x.view(torch.int32)])",
    "multi_output_views": "x = m(4, 6); out = facts([*x.unbind(0), *x.split(4, 1), "
    "*x.chunk(3, 1), *torch.tensor_split(x, 3)])",
    "cat_stack": "x = m(2, 3); out = facts([torch.cat([x, x], 1), torch.cat([x, m(4, 3)]), "
    "torch.stack([x, x]), torch.stack([x, x], 2), torch.hstack([x, x]), torch.vstack([x, x])])",
    # ---- elementwise ----
    "unary": "x = m(3, 4); out = facts([x.neg(), x.exp(), x.sigmoid(), x.tanh(), x.abs(), "
    "x.sqrt(), x.relu(), F.gelu(x), F.silu(x), x.clamp(0, 1), x.round(), torch.isnan(x), "
    "m(3, dtype=torch.int64).abs(), x.t().exp(), x.to(torch.float16).log()])",
    "binary": "x = m(3, 4); out = facts([x + 1, x * x, x - m(4, dtype=torch.float64), x / 2, "
    "m(3, 4, dtype=torch.int32) + m(3, 4, dtype=torch.int64), m(3, 1) * m(1, 4), "
    "torch.maximum(x, x), x.pow(2), torch.atan2(x, x), m(3, dtype=torch.int64) // 2, "
    "x.t() + x.t(), x.lerp(x, 0.5), torch.addcmul(x, x, x)])",
    "comparison_where": "x = m(3, 4); out = facts([x == x, x < 1, x > m(4), x != 0, "
    "torch.where(x > 0, x, 0.0), torch.where(x > 0, x, m(3, 4, dtype=torch.float64)), "
    "torch.where(m(3, 1, dtype=torch.bool), m(4), m(3, 4)), x.masked_fill(x > 0, 1.0), "
    "torch.logical_and(x, x), torch.logical_not(x), x.isclose(x), torch.isnan(x)])",
    "inplace": "x = m(3, 4); r = [x.add_(1), x.mul_(x), x.fill_(1), x.zero_(), x.uniform_(), "
    "x.normal_(), x.masked_fill_(x > 0, 1.0), x.clamp_(0, 1), x.relu_(), x.exp_()]; "
    "out = (facts(r), all(t is x for t in r))",
    # ---- reductions ----
    "reductions": "x = m(3, 4); out = facts([x.sum(), x.sum(1), x.sum(0, keepdim=True), "
    "x.mean(), x.mean(1), x.max(), *x.max(1), *x.min(0), x.argmax(), x.argmax(1), x.amax(1), "
    "x.prod(1), x.std(1), x.var(), x.norm(), x.any(), x.all(1), x.cumsum(1), "
    "x.logsumexp(1), F.softmax(x, 1), F.log_softmax(x, 0), m(3, dtype=torch.int32).sum(), "
    "x.sum(dtype=torch.float64), *torch.std_mean(x, 0)])",
    # ---- matmul and friends ----
    "matmul": "x = m(3, 4); out = facts([x @ x.t(), torch.mm(x, x.t()), "
    "torch.bmm(m(2, 3, 4), m(2, 4, 5)), torch.matmul(m(2, 3, 4), m(4)), "
    "torch.matmul(m(4), m(4)), torch.matmul(m(5, 1, 3, 4), m(2, 4, 2)), "
    "torch.addmm(m(3), x, x.t()), F.linear(x, m(5, 4), m(5)), F.linear(x, m(5, 4)), "
    "torch.dot(m(3), m(3)), torch.mv(x, m(4)), torch.baddbmm(m(2, 3, 5), m(2, 3, 4), "
    "m(2, 4, 5)), torch.outer(m(3), m(2))])",
    "conv": "out = facts([F.conv1d(m(2, 3, 10), m(4, 3, 3), stride=2, padding=1), "
    "F.conv2d(m(1, 3, 8, 8), m(4, 3, 3, 3), m(4), padding=1), "
    "F.conv2d(m(3, 8, 8), m(4, 3, 3, 3)), F.conv2d(m(1, 4, 8, 8), m(6, 2, 3, 3), groups=2, "
    "dilation=2), F.conv2d(m(2, 3, 9, 7), m(4, 3, 2, 3), stride=(2, 1)), "
    "F.conv2d(m(1, 3, 8, 7), m(4, 3, 2, 3), padding='same'), "
    "F.conv_transpose2d(m(1, 4, 5, 5), m(4, 2, 3, 3), stride=2, output_padding=1), "
    "F.conv3d(m(1, 2, 4, 4, 4), m(3, 2, 2, 2, 2))])",
    "pooling_norms": "img = m(2, 4, 6, 6); out = facts([*F.max_pool2d(img, 3, 2, 1, "
    "return_indices=True), F.max_pool2d(img, 2), F.avg_pool2d(img, 2), "
    "F.adaptive_avg_pool2d(img, (2, 3)), F.adaptive_avg_pool2d(img, 1), "
    "F.batch_norm(img, m(4), m(4), training=False), F.batch_norm(img, m(4), m(4), m(4), m(4), "
    "training=True), F.layer_norm(img, (6, 6)), F.dropout(img, 0.5), F.softplus(img), "
    "F.cross_entropy(m(3, 5), m(3, dtype=torch.long)), F.mse_loss(m(3), m(3)), "
    "F.binary_cross_entropy(m(3), m(3)), F.logsigmoid(img), F.hardswish(img)])",
    "losses_backward": "x = m(3, 5, requires_grad=True); t = m(3, dtype=torch.long); "
    "(F.cross_entropy(x, t) + F.mse_loss(x, m(3, 5)) + F.nll_loss(x.log_softmax(1), t) + "
    "F.smooth_l1_loss(x, m(3, 5)) + F.l1_loss(x, m(3, 5))).backward(); out = facts(x.grad)",
    "attention_rnn": "mha = nn.MultiheadAttention(8, 2, device='meta'); "
    "enc = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, device='meta'); "
    "lstm = nn.LSTM(4, 5, device='meta'); "
    "out = facts([*mha(m(3, 2, 8), m(3, 2, 8), m(3, 2, 8)), enc(m(3, 2, 8)), "
    "*lstm(m(3, 2, 4))[1], F.scaled_dot_product_attention(m(2, 3, 4), m(2, 5, 4), m(2, 5, 6)), "
    "F.scaled_dot_product_attention(m(1, 2, 3, 4), m(1, 2, 3, 4), m(1, 2, 3, 4), "
    "is_causal=True), m(3, 4).tril(), m(2, 3, 3).triu(1), *m(3, 5).topk(2), "
    "m(3, 4).gather(1, m(3, 2, dtype=torch.long))])",
    "indexing": "x = m(3, 4); x[0] = 1.0; x[m(2, dtype=torch.long)] = m(4); x[:, 1] += 2; "
    "x[x > 0] = 0.0; x[1:, ::2] = m(2, 2); r = x.index_put((m(2, dtype=torch.long),), m(()), "
    "accumulate=True); out = facts([x, r, x[m(2, dtype=torch.long)], x[..., None]])",
    "group_norm": "gn = nn.GroupNorm(2, 4, device='meta'); xi = m(2, 4, 3, 3, "
    "requires_grad=True); y = gn(xi); y.sum().backward(); "
    "out = facts([y, xi.grad, gn.weight.grad, F.group_norm(m(2, 4, 5), 4)])",
    "padding_fold": "x = m(1, 2, 4, 4, requires_grad=True); outs = [F.pad(x, (1, 2, 0, 1), "
    "mode='reflect'), F.pad(m(2, 5), (2, 1), mode='replicate'), F.pad(m(1, 1, 3, 3, 3), "
    "(1,) * 6, mode='replicate'), F.pad(m(2, 3, 5), (2, 2), mode='reflect'), "
    "F.pad(x, (1, 1, 1, 1), mode='circular'), F.pad(x, (1, 1)), F.unfold(x, 2), "
    "F.fold(m(2, 8, 9), 4, 2)]; (F.pad(x, (1, 1, 1, 1), mode='reflect').sum() + "
    "F.pad(x, (1, 1, 1, 1), mode='replicate').sum() + F.unfold(x, 2).sum()).backward(); "
    "out = facts(outs + [x.grad])",
    "scatter_cum": "x = m(3, 4); i = m(3, 2, dtype=torch.long); out = facts([x.scatter(1, i, "
    "m(3, 2)), x.scatter(1, i, 1.0), x.scatter_add(1, i, m(3, 2)), m(3, 4).scatter_(1, i, "
    "m(3, 2), reduce='add'), x.cumprod(1), x.logcumsumexp(1), *x.cummax(1), *x.cummin(0), "
    "x.cumsum(0)])",
    # ---- copies and device moves ----
    "copy_into_meta": "x = m(3, 4); r = x.copy_(torch.ones(3, 4)); r2 = x.copy_(torch.ones(4)); "
    "out = (facts(r), r is x, r2 is x, facts(x.copy_(m(3, 4, dtype=torch.int64))))",
    "to_meta": "x = torch.randn(3, 4); out = facts([x.to('meta'), x.t().to('meta'), "
    "x.to(device='meta', dtype=torch.float64), m(2).to(torch.int32), m(2).to('meta'), "
    "m(2, 3).t().clone(), m(2).detach(), m(2, 3).t().contiguous(), torch.clone(m(2))])",
    "to_meta_identity": "x = m(2); out = (x.to('meta') is x, x.to(torch.float32) is x)",
    "resize": "x = m(3); x.resize_(6, 2); y = m(0); y.resize_(4); "
    "out = (facts(x), x.untyped_storage().nbytes(), facts(y))",
    "set_": "x = m(2, 3); y = m(0); y.set_(x.untyped_storage(), 1, (2, 2), (1, 2)); "
    "a = facts(y); y.set_(); b = (facts(y), y.untyped_storage().nbytes()); "
    "z = m(0); z.set_(x.untyped_storage(), 0, (10,)); w = m(0); w.set_(x); "
    "out = (a, b, facts(z), x.untyped_storage().nbytes(), facts(w))",
    "save_load": "import io\nb = io.BytesIO(); torch.save({'w': m(1000, 1000), "
    "'v': m(3, 2).t(), 'c': torch.ones(2, device='cpu')}, b); small = len(b.getvalue()) < 3000; "
    "r = []\nfor ml in (None, 'cpu', 'meta'):\n    b.seek(0); d = torch.load(b, map_location=ml)\n"
    "    r.append({k: (facts(v), v.untyped_storage().nbytes()) for k, v in d.items()})\n"
    "out = (small, r, repr(torch.UntypedStorage(5, device='meta')))",
    # ---- printing ----
    "reprs": "out = [repr(m(3, 4)), str(m(2, dtype=torch.int64)), repr(m(0)), repr(m(())), "
    "repr(m(2, dtype=torch.float16)), repr(m(2, 2, dtype=torch.complex64)), "
    "repr(m(2, requires_grad=True)), repr(m(2, requires_grad=True) * 2), "
    "repr(m(2, dtype=torch.bool)), repr(nn.Parameter(m(2, 3))), str(m(1, 2).t())]",
    "storage_repr": "x = m(3); out = (repr(x.untyped_storage()), str(x.untyped_storage()), "
    "x.untyped_storage().device.type, x.is_meta, x.is_cpu, x.is_cuda, x.get_device())",
    # ---- nn ----
    "nn_under_device_context": "with torch.device('meta'):\n"
    "    lin = nn.Linear(1000, 1000)\n"
    "    conv = nn.Conv2d(3, 8, 3, padding=1)\n"
    "    ln = nn.LayerNorm(16)\n"
    "    emb = nn.Embedding(50, 16, padding_idx=0)\n"
    "    bn = nn.BatchNorm2d(8)\n"
    "out = (facts([lin.weight, lin.bias, conv.weight, ln.weight, emb.weight, bn.running_mean, "
    "bn.num_batches_tracked]), type(lin.weight).__name__, lin.weight.requires_grad, "
    "repr(lin), repr(lin.weight), facts([lin(m(4, 1000)), conv(m(2, 3, 8, 8)), "
    "bn(m(2, 8, 8, 8)), ln(m(2, 5, 16)), emb(m(2, 5, dtype=torch.long)), "
    "bn.eval()(m(2, 8, 4, 4))]))",
    "nn_device_kwarg": "mods = [nn.Linear(3, 4, device='meta'), nn.Conv1d(2, 3, 2, device='meta'), "
    "nn.LayerNorm([2, 3], device='meta'), nn.Embedding(5, 2, device='meta'), "
    "nn.BatchNorm1d(3, device='meta')]; "
    "out = [facts(list(mod.parameters()) + list(mod.buffers())) for mod in mods]",
    "module_to_meta": "seq = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)); "
    "p = seq[0].weight; seq.to('meta'); "
    "out = (facts(list(seq.parameters())), seq[0].weight is p, facts(seq(m(5, 3))))",
    "to_empty": "with torch.device('meta'):\n"
    "    lin = nn.Linear(1000, 1000)\n"
    "r = lin.to_empty(device='cpu')\n"
    "lin.reset_parameters()\n"
    "out = (r is lin, facts([lin.weight, lin.bias]), type(lin.weight).__name__, "
    "lin.weight.requires_grad, bool(lin.weight.abs().max() <= 1000 ** -0.5), "
    "facts(lin(torch.ones(2, 1000, device='cpu'))))",
    "to_empty_recurse": "seq = nn.Sequential(nn.Linear(3, 4, device='meta'), "
    "nn.BatchNorm1d(4, device='meta')); "
    "a = [p.device.type for p in seq.to_empty(device='cpu', recurse=False).parameters()]; "
    "b = [t.device.type for t in seq.to_empty(device='cpu').state_dict().values()]; "
    "out = (a, b)",
    "to_empty_meta_again": "lin = nn.Linear(2, 3); lin.to_empty(device='meta'); "
    "out = facts([lin.weight, lin.bias])",
    "skip_init": "s = nn.utils.skip_init(nn.Linear, 5, 3); "
    "s2 = nn.utils.skip_init(nn.Linear, 5, 3, bias=False, device='meta'); "
    "s3 = nn.utils.skip_init(nn.Conv2d, 2, 4, 3, dtype=torch.float64); "
    "out = (facts([s.weight, s.bias, s2.weight, s3.weight]), s2.bias, type(s).__name__)",
    # under the meta device context, as a model's reset_parameters runs there (eye_ makes its
    # result with torch.eye(out=), which takes the default device)
    "init_on_meta": "w = m(4, 5); i = nn.init; fs = [i.kaiming_uniform_, i.kaiming_normal_, "
    "i.xavier_uniform_, i.xavier_normal_, i.zeros_, i.ones_, i.normal_, i.uniform_, "
    "i.trunc_normal_, i.orthogonal_, i.eye_, lambda t: i.constant_(t, 3.0), "
    "lambda t: i.sparse_(t, 0.5)]\n"
    "with torch.device('meta'):\n"
    "    r = [f(w) for f in fs]\n"
    "out = (facts(r), all(t is w for t in r), facts(i.dirac_(m(4, 2, 3))))",
    "load_state_dict_into_meta": "lin = nn.Linear(2, 3, device='meta'); "
    "keys = lin.load_state_dict(nn.Linear(2, 3).state_dict()); "
    "out = (facts([lin.weight, lin.bias]), list(keys.missing_keys))",
    # ---- autograd ----
    "autograd": "x = m(3, 4, requires_grad=True); y = (x * 2).exp().sum(); "
    "name = type(y.grad_fn).__name__; y.backward(); "
    "out = (name, facts(x.grad), x.grad.is_meta, y.requires_grad)",
    "autograd_nn": "lin = nn.Linear(4, 2, device='meta'); "
    "c = nn.Conv2d(2, 3, 3, device='meta'); xi = m(1, 2, 5, 5, requires_grad=True); "
    "lin(m(3, 4)).relu().mean().backward(); c(xi).sum().backward(); "
    "out = facts([lin.weight.grad, lin.bias.grad, c.weight.grad, c.bias.grad, xi.grad])",
    "autograd_nn_norms": "ln = nn.LayerNorm(2, device='meta'); bn = nn.BatchNorm2d(2, "
    "device='meta'); e = nn.Embedding(5, 2, device='meta'); xi = m(2, 2, 4, 4, "
    "requires_grad=True); y = ln(bn(F.max_pool2d(xi, 2) + F.avg_pool2d(xi, 2)) "
    "+ F.adaptive_avg_pool2d(xi, (2, 2)) + e(m(2, 2, dtype=torch.long)).unsqueeze(1)); "
    "y.sum().backward(); out = facts([xi.grad, ln.weight.grad, bn.weight.grad, e.weight.grad])",
    "autograd_grad": "x = m(2, 3, requires_grad=True); w = m(3, 5, requires_grad=True); "
    "g = torch.autograd.grad((x @ w).tanh().sum(), (x, w)); out = facts(list(g))",
}

ERRORS = {
    "err_item": "out = m(()).item()",
    "err_item_of_sum": "out = m(3, 4).sum().item()",
    "err_item_numel": "out = m(3).item()",
    "err_bool": "out = bool(m(2).sum())",
    "err_float": "out = float(m(()))",
    "err_int": "out = int(m((), dtype=torch.int64))",
    "err_tolist": "out = m(3, 4).tolist()",
    "err_numpy": "out = m(3, 4).numpy()",
    "err_copy_out_of_meta": "out = torch.empty(3, 4).copy_(m(3, 4))",
    "err_to_cpu": "out = m(3).to('cpu')",
    "err_cpu": "out = m(3).cpu()",
    "err_copy_into_meta_shape": "out = m(3, 4).copy_(torch.ones(2, 4))",
    "err_nonzero": "out = m(3).nonzero()",
    "err_view": "out = m(2, 3).t().view(6)",
    "err_empty_negative": "out = torch.empty(-1, device='meta')",
    "err_meta_plus_cpu": "out = m(2, 3) + torch.ones(2, 3, device='cpu')",
    "err_cpu_times_meta": "out = torch.ones(2, 3, device='cpu') * m(3)",
    "err_where_mixed": "out = torch.where(m(2, dtype=torch.bool), m(2), "
    "torch.ones(2, device='cpu'))",
}

LEAK_PROGRAMS = ["err_copy_out_of_meta", "err_tolist"]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_meta(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name])


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_meta_errors(name: str) -> None:
    check(PRE + ERRORS[name])


@pytest.mark.parametrize("name", LEAK_PROGRAMS)
def test_an_error_leaks_nothing(name: str) -> None:
    """What the op allocated on the CPU before it refused the meta tensor is freed with the
    exception."""
    import tensortrace

    namespace = {"torch": tensortrace}
    exec(PRE + "x = torch.randn(3, 4)", namespace)  # noqa: S102 - warm up the allocator
    gc.collect()
    before = tensortrace.memory_allocated()
    with pytest.raises(NotImplementedError):
        exec(ERRORS[name], namespace)  # noqa: S102 - the program under test
    gc.collect()
    assert tensortrace.memory_allocated() == before
