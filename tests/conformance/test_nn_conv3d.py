"""Conformance of F.conv3d / F.conv_transpose3d, nn.Conv3d / nn.ConvTranspose3d (through
aten::convolution > slow_conv3d, slow_conv_dilated3d, slow_conv_transpose3d), the padding modes
of every nn.ConvNd, and the 3-D reflection / replication pads, against torch 2.13: values,
gradients, shapes, strides, reprs and errors. Modules are moved to the input's device, so each
program runs on the emulated CUDA device too."""

from __future__ import annotations

import gc

import pytest

from .harness import check

PRE = "nn = torch.nn\nF = torch.nn.functional\n"


def _grads(call: str, x: str = "x", params: str = "w, b") -> str:
    grads = ", ".join(p + ".grad" for p in params.split(", "))
    return (
        f"y = {call}; (y * torch.randn(y.shape)).sum().backward(); "
        f"out = (y.detach(), {x}.grad, {grads})"
    )


_X = "x = torch.randn(2, 4, 5, 6, 5, requires_grad=True); "
_W = "w = torch.randn(6, 2, 2, 3, 2, requires_grad=True); b = torch.randn(6, requires_grad=True); "
_WT = "w = torch.randn(4, 3, 2, 3, 2, requires_grad=True); b = torch.randn(6, requires_grad=True); "

PROGRAMS = {
    "conv3d": _X + _W + _grads("F.conv3d(x, w, b, groups=2)"),
    "conv3d_stride_pad": _X + _W + _grads("F.conv3d(x, w, b, (1, 2, 2), (1, 0, 2), groups=2)"),
    "conv3d_dilated": _X + _W + _grads("F.conv3d(x, w, b, 2, 1, (2, 1, 2), 2)"),
    "conv3d_same": _X
    + _W
    + _grads("F.conv3d(x, w, b, padding='same', dilation=(2, 1, 1), groups=2)"),
    "conv3d_valid_nobias": "x = torch.randn(1, 2, 4, 4, 4, requires_grad=True); "
    "w = torch.randn(3, 2, 3, 1, 2, requires_grad=True); y = torch.conv3d(x, w, None, 1, 'valid'); "
    "y.sum().backward(); out = (y.detach(), x.grad, w.grad)",
    "conv3d_unbatched": "x = torch.randn(2, 3, 4, 5); w = torch.randn(4, 2, 2, 2, 2); "
    "out = (F.conv3d(x, w), F.conv3d(x, w, padding=1, stride=2))",
    "conv3d_float64": "x = torch.randn(1, 2, 3, 4, 3, dtype=torch.float64, requires_grad=True); "
    "w = torch.randn(2, 2, 2, 2, 2, dtype=torch.float64, requires_grad=True); "
    "y = F.conv3d(x, w, padding=1); y.pow(2).sum().backward(); "
    "out = (y.detach(), x.grad, w.grad, y.grad_fn.name())",
    "conv3d_double_backward": "x = torch.randn(2, 4, 3, 4, 3, dtype=torch.float64, "
    "requires_grad=True); w = torch.randn(6, 2, 2, 3, 2, dtype=torch.float64, requires_grad=True); "
    "b = torch.randn(6, dtype=torch.float64, requires_grad=True); "
    "y = F.conv3d(x, w, b, 2, 1, (1, 2, 1), 2); gx, gw, gb = torch.autograd.grad("
    "(y * y.detach().sin()).sum(), (x, w, b), create_graph=True); "
    "(gx.pow(2).sum() + gw.pow(3).sum() + gb.sum() * gx.sum()).backward(); "
    "out = (gx.detach(), gw.detach(), x.grad, w.grad, gx.grad_fn.name())",
    "conv_transpose_double_backward": "x = torch.randn(1, 4, 3, 4, dtype=torch.float64, "
    "requires_grad=True); w = torch.randn(4, 3, 3, 2, dtype=torch.float64, requires_grad=True); "
    "y = F.conv_transpose2d(x, w, None, 2, 1, 1, 2); gx, gw = torch.autograd.grad("
    "y.pow(2).sum(), (x, w), create_graph=True); (gx.sum() + gw.pow(2).sum()).backward(); "
    "out = (gx.detach(), gw.detach(), x.grad, w.grad)",
    "conv3d_non_contiguous": "x = torch.randn(2, 5, 4, 6, 3).permute(0, 4, 2, 3, 1); "
    "w = torch.randn(4, 3, 2, 2, 2).transpose(3, 4); out = F.conv3d(x, w, stride=(1, 2, 1))",
    "conv3d_empty_batch": "out = F.conv3d(torch.randn(0, 2, 3, 3, 3), torch.randn(3, 2, 2, 2, 2))",
    "conv_transpose3d": _X + _WT + _grads("F.conv_transpose3d(x, w, b, groups=2)"),
    "conv_transpose3d_args": _X + _WT + _grads("F.conv_transpose3d(x, w, b, 2, 1, 1, 2)"),
    "conv_transpose3d_dilated": _X
    + _WT
    + _grads("torch.conv_transpose3d(x, w, b, (1, 2, 3), 0, (0, 1, 1), 2, 2)"),
    "conv_transpose3d_unbatched": "x = torch.randn(2, 3, 2, 3); w = torch.randn(2, 3, 2, 2, 2); "
    "out = F.conv_transpose3d(x, w, stride=2)",
    "conv3d_module": "x = torch.randn(2, 4, 5, 5, 5, requires_grad=True); torch.manual_seed(1); "
    "m = nn.Conv3d(4, 6, (3, 2, 2), stride=(2, 1, 1), padding=1, groups=2).to(x.device); "
    "y = m(x); y.sum().backward(); out = (y.detach(), x.grad, m.weight.grad, m.bias.grad, "
    "m.weight.detach(), m.bias.detach())",
    "conv_transpose3d_module": "x = torch.randn(1, 4, 3, 3, 3, requires_grad=True); "
    "torch.manual_seed(1); "
    "m = nn.ConvTranspose3d(4, 2, 3, stride=2, padding=1, bias=False).to(x.device); "
    "y = m(x, output_size=[6, 6, 5]); y.sum().backward(); out = (y.detach(), x.grad, "
    "m.weight.grad)",
    "module_reprs": "out = [repr(nn.Conv3d(2, 4, 3)), repr(nn.Conv3d(2, 4, (1, 2, 3), stride=2, "
    "padding='same' if False else 1, dilation=(1, 1, 2), groups=2, bias=False, "
    "padding_mode='reflect')), repr(nn.ConvTranspose3d(2, 4, 2, stride=2, output_padding=1)), "
    "repr(nn.Conv2d(1, 1, 3, padding_mode='circular')), repr(nn.ReflectionPad3d(1)), "
    "repr(nn.ReplicationPad3d((1, 0, 2, 1, 0, 1))), repr(nn.ReflectionPad1d((1, 2))), "
    "repr(nn.ReplicationPad1d(2))]",
    # ---- padding modes of the ConvNd modules: F.pad, then a convolution without padding ----
    "padding_modes_3d": "x = torch.randn(1, 2, 4, 5, 4, requires_grad=True); outs = []\n"
    "torch.manual_seed(1)\n"
    "ms = [nn.Conv3d(2, 3, (3, 2, 3), padding=(1, 1, 2), padding_mode=mode) "
    "for mode in ('zeros', 'reflect', 'replicate', 'circular')]\n"
    "for m in ms:\n"
    "    m.to(x.device)\n"
    "    y = m(x); g, = torch.autograd.grad(y.sum(), x); outs += [y.detach(), g]\n"
    "out = outs",
    "padding_modes_same": "x = torch.randn(1, 2, 6, 5, requires_grad=True); outs = []\n"
    "torch.manual_seed(1)\n"
    "ms = [nn.Conv2d(2, 2, (4, 3), padding='same', padding_mode=mode) "
    "for mode in ('reflect', 'replicate', 'circular')]\n"
    "m1 = nn.Conv1d(2, 2, 3, padding=2, padding_mode='reflect')\n"
    "for m in ms:\n"
    "    m.to(x.device)\n"
    "    y = m(x); g, = torch.autograd.grad(y.sum(), x); outs += [y.detach(), g, "
    "m._reversed_padding_repeated_twice]\n"
    "out = (outs, m1.to(x.device)(x[0]).detach())",
    # ---- reflection / replication pads in 3-D (and the 1-D modules) ----
    "pad3d": "x = torch.randn(2, 3, 4, 3, 5, requires_grad=True); p = (1, 2, 0, 2, 3, 1); "
    "r = F.pad(x, p, mode='reflect'); q = F.pad(x, p, mode='replicate'); "
    "(r.pow(2).sum() + (q * torch.randn(q.shape)).sum()).backward(); "
    "out = (r.detach(), q.detach(), x.grad, r.grad_fn.name(), q.grad_fn.name())",
    "pad3d_modules": "x = torch.randn(3, 4, 3, 5); "
    "out = (nn.ReflectionPad3d(2)(x), nn.ReplicationPad3d((0, 1, 2, 0, 1, 3))(x), "
    "nn.ReflectionPad1d((2, 1))(x[0]), nn.ReplicationPad1d(3)(x[0]), "
    "torch._C._nn.reflection_pad3d(x, [1, 1, 1, 1, 1, 1]))",
    "pad3d_double_backward": "x = torch.randn(1, 1, 2, 3, 2, dtype=torch.float64, "
    "requires_grad=True); y = F.pad(x, (1, 1, 1, 1, 1, 1), mode='replicate'); "
    "g = torch.ones(y.shape, dtype=torch.float64, requires_grad=True); "
    "gx, = torch.autograd.grad(y, x, g, create_graph=True); gg, = torch.autograd.grad("
    "gx.pow(2).sum(), g); out = (gx.detach(), gg)",
}

ERRORS = {
    "err_conv3d_4d_weight": "out = F.conv3d(torch.randn(1, 2, 3, 3, 3), torch.randn(2, 2, 2, 2))",
    "err_conv3d_input_dims": "out = F.conv3d(torch.randn(2, 3, 3), torch.randn(2, 2, 2, 2, 2))",
    "err_conv3d_channels": "out = F.conv3d(torch.randn(1, 3, 3, 3, 3), torch.randn(2, 2, 2, 2, 2))",
    "err_conv3d_groups": "out = F.conv3d(torch.randn(1, 4, 3, 3, 3), torch.randn(3, 2, 2, 2, 2), "
    "groups=2)",
    "err_conv3d_kernel_too_big": "out = F.conv3d(torch.randn(1, 1, 3, 3, 3), "
    "torch.randn(1, 1, 2, 4, 2))",
    "err_conv3d_stride": "out = F.conv3d(torch.randn(1, 1, 3, 3, 3), torch.randn(1, 1, 2, 2, 2), "
    "stride=0)",
    "err_conv3d_padding_len": "out = F.conv3d(torch.randn(1, 1, 3, 3, 3), "
    "torch.randn(1, 1, 2, 2, 2), padding=(1, 1))",
    "err_conv3d_same_strided": "out = F.conv3d(torch.randn(1, 1, 3, 3, 3), "
    "torch.randn(1, 1, 2, 2, 2), stride=2, padding='same')",
    "err_conv3d_bias": "out = F.conv3d(torch.randn(1, 1, 3, 3, 3), torch.randn(2, 1, 2, 2, 2), "
    "torch.randn(3))",
    "err_conv_transpose3d_output_padding": "out = F.conv_transpose3d(torch.randn(1, 1, 3, 3, 3), "
    "torch.randn(1, 1, 2, 2, 2), stride=2, output_padding=2)",
    "err_conv_transpose3d_channels": "out = F.conv_transpose3d(torch.randn(1, 3, 3, 3, 3), "
    "torch.randn(2, 1, 2, 2, 2))",
    "err_transpose_padding_mode": "out = nn.ConvTranspose3d(1, 1, 2, padding_mode='reflect')",
    "err_output_size": "m = nn.ConvTranspose3d(1, 1, 3, stride=2); "
    "out = m(torch.randn(1, 1, 2, 2, 2), output_size=[9, 9, 9])",
    "err_pad3d_reflect_too_big": "out = F.pad(torch.randn(1, 1, 2, 3, 3), (0, 0, 0, 0, 2, 2), "
    "mode='reflect')",
    "err_pad3d_empty": "out = F.pad(torch.randn(1, 0, 2, 2, 2), (1, 1, 1, 1, 1, 1), "
    "mode='replicate')",
    "err_pad3d_input_dims": "out = torch._C._nn.replication_pad3d(torch.randn(2, 2, 2), "
    "[1, 1, 1, 1, 1, 1])",
}

LEAK_PROGRAMS = ["err_conv_transpose3d_channels"]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_conv3d(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_conv3d_errors(name: str) -> None:
    check(PRE + ERRORS[name])


@pytest.mark.parametrize("name", LEAK_PROGRAMS)
def test_an_error_leaks_nothing(name: str) -> None:
    """What the convolution allocated before it raised is freed with the exception."""
    import tensortrace

    namespace = {"torch": tensortrace, "nn": tensortrace.nn, "F": tensortrace.nn.functional}
    exec("x = torch.randn(3, 4)", namespace)  # noqa: S102 - warm up the allocator's state
    gc.collect()
    before = tensortrace.memory_allocated()
    with pytest.raises(RuntimeError):
        exec(ERRORS[name], namespace)  # noqa: S102 - the program under test
    gc.collect()
    assert tensortrace.memory_allocated() == before


def test_padding_mode_error_names_the_valid_modes() -> None:
    """torch formats a set literal, whose order differs between processes: compared as sets."""
    import re

    import tensortrace

    from .harness import torch

    def message(module: object) -> tuple[str, set[str]]:
        with pytest.raises(ValueError) as info:
            module.nn.Conv3d(1, 1, 2, padding_mode="mirror")  # type: ignore[attr-defined]
        text = str(info.value)
        found = re.search(r"\{(.*)\}", text)
        assert found is not None
        return text.replace(found.group(0), "{}"), set(found.group(1).split(", "))

    assert message(tensortrace) == message(torch)
