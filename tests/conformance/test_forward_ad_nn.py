"""Conformance of forward-mode AD through torch.nn.functional and the reductions against torch
2.13: convolution, layer / batch / instance norm, pooling, padding, upsampling, losses,
activations, norms and sorting, with primal and tangent compared (values, shapes, strides)."""

from __future__ import annotations

import pytest

from .harness import check

PRE = (
    "fwAD = torch.autograd.forward_ad\nF = torch.nn.functional\n"
    "x = torch.randn(2, 3, 5, 5); tx = torch.randn(2, 3, 5, 5); w = torch.randn(4, 3, 3, 3)\n"
)


def dual(body: str) -> str:
    return (
        "with fwAD.dual_level():\n    d = fwAD.make_dual(x, tx)\n"
        f"    r = {body}\n    out = tuple(fwAD.unpack_dual(r))"
    )


OPS = {
    "conv2d": "F.conv2d(d, w, padding=1)",
    "conv2d_dual_weight_bias": "F.conv2d(x, fwAD.make_dual(w, torch.randn(4, 3, 3, 3)), "
    "fwAD.make_dual(torch.randn(4), torch.randn(4)), stride=2)",
    "conv1d": "F.conv1d(d[0], w[:, :, 0], groups=1)",
    "layer_norm": "F.layer_norm(d, (5,))",
    "layer_norm_affine": "F.layer_norm(d, (5, 5), torch.randn(5, 5), torch.randn(5, 5))",
    "layer_norm_dual_weight": "F.layer_norm(x, (5,), fwAD.make_dual(torch.randn(5), "
    "torch.randn(5)), fwAD.make_dual(torch.randn(5), torch.randn(5)))",
    "batch_norm_eval": "F.batch_norm(d, torch.zeros(3), torch.ones(3) * 2, torch.randn(3))",
    "batch_norm_train": "F.batch_norm(d, None, None, torch.randn(3), torch.randn(3), "
    "training=True)",
    "instance_norm": "F.instance_norm(d)",
    "max_pool2d": "F.max_pool2d(d, 2)",
    "avg_pool2d": "F.avg_pool2d(d, 2, stride=1)",
    "pad": "F.pad(d, (1, 2))",
    "interpolate": "F.interpolate(d, scale_factor=2)",
    "embedding": "F.embedding(torch.tensor([[1, 0], [4, 4]]), d[0, 0])",
    "dropout_eval": "F.dropout(d, 0.5, training=False)",
    "bce": "F.binary_cross_entropy(torch.sigmoid(d), torch.rand(2, 3, 5, 5))",
    "bce_logits": "F.binary_cross_entropy_with_logits(d, torch.rand(2, 3, 5, 5), "
    "pos_weight=torch.rand(5))",
    "smooth_l1": "F.smooth_l1_loss(d, x * 0.5, beta=0.5)",
    "huber": "F.huber_loss(d, x * 0.5, reduction='sum')",
    "l1": "F.l1_loss(d, x * 0.5)",
    "kl_div": "F.kl_div(F.log_softmax(d, 1), F.softmax(x, 1), reduction='batchmean')",
    "var": "d.var(1)",
    "std": "d.std()",
    "prod": "d[0, 0, 0].prod()",
    "norm": "d.norm()",
    "norm_dim_p1": "torch.linalg.vector_norm(d, 1, dim=(2, 3))",
    "norm_inf": "torch.linalg.vector_norm(d, float('inf'), dim=1)",
    "norm_p3": "torch.linalg.vector_norm(d, 3, dim=-1, keepdim=True)",
    "normalize": "F.normalize(d, dim=1)",
    "cosine_similarity": "F.cosine_similarity(d, x + 1)",
    "amax": "d.amax(1)",
    "amin": "d.amin((0, 2), keepdim=True)",
    "roll": "d.roll(1, 2)",
    "sort": "d.sort(1)[0]",
    "masked_select": "d.masked_select(x > 0)",
    "sgn_round": "d.sgn() + d.round() + d.floor() + d.trunc()",
    "fmod": "d.fmod(0.7) + d.remainder(0.7)",
    "activations": "F.hardswish(d) + F.mish(d) + F.celu(d) + F.hardsigmoid(d) + F.softplus(d)",
    "logsigmoid": "F.logsigmoid(d)",
    "glu": "F.glu(d[:, :2], 1)",
    "prelu": "F.prelu(d, torch.tensor([0.25, 0.5, 0.1]))",
    "special_unary": "torch.lgamma(d.abs() + 1) + torch.erfinv(d.tanh() * 0.5) + "
    "torch.logit(torch.sigmoid(d)) + d.sinc()",
    "xlogy": "torch.xlogy(d.abs(), x.abs() + 1)",
    "clamp_min_tensor": "torch.clamp_min(d, x)",
    "inplace_views": "d.clone().t_() if False else d[0, 0].clone().t_()",
    "squeeze_unsqueeze_": "d[:, :1].clone().squeeze_(1).unsqueeze_(0).transpose_(0, 1)",
    "group_norm": "F.group_norm(d, 3, torch.randn(3), torch.randn(3))",
    "group_norm_dual_weight": "F.group_norm(x, 1, fwAD.make_dual(torch.randn(3), torch.randn(3)))",
    "cumprod": "d.cumprod(1)",
    "cumprod_zeros": "fwAD.make_dual(torch.tensor([2.0, 0.0, 3.0, 0.0, 5.0]), "
    "torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0])).cumprod(0)",
    "index_put": "d.clone().index_put_((torch.tensor([0, 1]),), d[0, :1] * 2)",
    "setitem": "(lambda z: (z.__setitem__((0, 1), d[1, 0]), z)[1])(torch.zeros(2, 3, 5, 5))",
    "index_put_functional": "torch.index_put(x, (torch.tensor([1]),), d[0, :1], accumulate=True)",
    "logaddexp_erfc": "torch.logaddexp(d, x.flip(0)) + torch.erfc(d)",
    "nan_to_num": "torch.nan_to_num(d / (x > 0))",
    "inverse": "torch.linalg.inv(d[0, 0] + 3 * torch.eye(5))",
    "diag_embed": "torch.diag_embed(d[0, 0])",
    "cnn": "F.linear(F.max_pool2d(F.relu(F.conv2d(d, w, padding=1)), 2).flatten(1), "
    "torch.randn(7, 16))",
}

PROGRAMS = {name: dual(body) for name, body in OPS.items()}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_forward_ad_nn(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], rtol=1e-4, atol=1e-5)
