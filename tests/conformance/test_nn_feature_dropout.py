"""Conformance of channel-wise dropout (F.dropout1d/2d/3d, nn.Dropout1d/2d/3d,
torch.feature_dropout and feature_dropout_) against torch 2.13: bit-equal channel masks after
manual_seed, train/eval, in-place, unbatched inputs, gradients, reprs and errors."""

from __future__ import annotations

import pytest

from .harness import check

PRE = "nn = torch.nn\nF = torch.nn.functional\n"

PROGRAMS = {
    "dropout1d": "x = torch.randn(4, 6, 5); out = (F.dropout1d(x), F.dropout1d(x, 0.2), "
    "F.dropout1d(x, training=False), F.dropout1d(x, 0.0), F.dropout1d(x, 1.0))",
    "dropout1d_unbatched": "x = torch.randn(6, 5); out = (F.dropout1d(x, 0.5), x)",
    "dropout2d": "x = torch.randn(3, 8, 4, 4); out = (F.dropout2d(x), F.dropout2d(x, 0.7), "
    "F.dropout2d(x, training=False))",
    "dropout2d_3d_input": "x = torch.randn(4, 6, 5); out = F.dropout2d(x, 0.5)",
    "dropout2d_2d_input": "x = torch.randn(4, 6); out = F.dropout2d(x, 0.5)",
    "dropout3d": "x = torch.randn(2, 5, 2, 3, 3); out = (F.dropout3d(x), "
    "F.dropout3d(x, training=False))",
    "dropout3d_unbatched": "x = torch.randn(5, 2, 3, 3); out = F.dropout3d(x, 0.4)",
    "torch_feature_dropout": "x = torch.ones(3, 7, 2); out = (torch.feature_dropout(x, 0.3, "
    "True), torch.feature_dropout(x, 0.3, False), torch.feature_dropout(x, 1.0, True))",
    "inplace": "x = torch.randn(4, 6, 3); y = F.dropout1d(x, 0.5, inplace=True); "
    "z = torch.randn(2, 3, 4, 4); w = F.dropout2d(z, 0.5, inplace=True); "
    "out = (x, y is x, z, w is z)",
    "inplace_unbatched": "x = torch.randn(6, 3); y = F.dropout1d(x, 0.5, inplace=True); "
    "out = (x, y, x.shape)",
    "feature_dropout_": "x = torch.randn(4, 4, 2); y = torch.feature_dropout_(x, 0.5, True); "
    "out = (x, y is x)",
    "double": "out = F.dropout2d(torch.randn(3, 4, 2, 2, dtype=torch.float64), 0.25)",
    "grad": "x = torch.randn(4, 5, 3, 3, requires_grad=True); y = F.dropout2d(x, 0.4); "
    "(y * torch.randn(y.shape)).sum().backward(); out = (y.detach(), x.grad)",
    "empty": "out = (F.dropout2d(torch.randn(0, 3, 2, 2), 0.5), "
    "torch.feature_dropout(torch.randn(0), 0.5, True))",
    "modules": "ms = [nn.Dropout1d(0.3), nn.Dropout2d(), nn.Dropout3d(0.6)]; "
    "xs = [torch.randn(2, 8, 4), torch.randn(2, 8, 3, 3), torch.randn(2, 8, 2, 2, 2)]; "
    "a = [m(x) for m, x in zip(ms, xs)]; [m.eval() for m in ms]; "
    "b = [m(x) is x for m, x in zip(ms, xs)]; out = (a, b)",
    "module_reprs": "out = [repr(m) for m in (nn.Dropout1d(), nn.Dropout2d(0.1, inplace=True), "
    "nn.Dropout3d(0.25), nn.Dropout(0.3))]",
    "dcgan_discriminator": "d = nn.Sequential(nn.Conv2d(3, 8, 4, 2, 1), nn.LeakyReLU(0.2), "
    "nn.Dropout2d(0.25), nn.Conv2d(8, 1, 4, 1, 0), nn.Sigmoid()); x = torch.randn(2, 3, 8, 8); "
    "y = d(x); y.sum().backward(); out = (y.detach(), d[0].weight.grad)",
    # ---- errors ----
    "err_p": "out = F.dropout2d(torch.randn(2, 3, 4, 4), 1.5)",
    "err_p_1d": "out = F.dropout1d(torch.randn(2, 3, 4), -0.1)",
    "err_p_3d": "out = F.dropout3d(torch.randn(2, 3, 4, 4, 4), 2.0)",
    "err_dim_1d": "out = F.dropout1d(torch.randn(2, 3, 4, 5), 0.5)",
    "err_torch_p": "out = torch.feature_dropout(torch.randn(3, 3), -0.5, True)",
    "err_torch_dim": "out = torch.feature_dropout(torch.randn(3), 0.5, True)",
    "err_module_p": "out = nn.Dropout2d(1.1)",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_feature_dropout(name: str) -> None:
    # the convolution's weight gradient sums in another order than torch's kernel
    tol = 1e-5 if name == "dcgan_discriminator" else 0.0
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], rtol=tol, atol=tol)
