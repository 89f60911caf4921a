"""Conformance of torch.set_default_device, torch.get_default_device and torch.device as a
context manager and a decorator (torch/__init__.py, torch/utils/_device.py's DeviceContext;
Note [The default device at the binding layer]).

The programs here run through the harness, on the CPU and (with the harness's default device)
on the emulated CUDA device; each sets the default device it tests itself. The CUDA default
device is compared against torch's with the meta device in tests/cuda/test_default_device.py.
"""

from __future__ import annotations

import pytest

import tensortrace

from .harness import check, torch

FACTORIES = (
    "[torch.zeros(2), torch.ones(2), torch.empty(2).shape, torch.full((2,), 1.5), "
    "torch.arange(3), torch.linspace(0, 1, 3), torch.logspace(0, 1, 3), torch.eye(2), "
    "torch.rand(2), torch.randn(2), torch.randint(3, (2,)), torch.randperm(3), "
    "torch.tensor([1.5]), torch.as_tensor([1, 2]), torch.asarray([1.5]), "
    "torch.scalar_tensor(2.5), torch.empty_strided((2,), (1,)).shape, torch.tril_indices(3, 3), "
    "torch.triu_indices(3, 3)]"
)

PROGRAMS = {
    "set_cpu": "torch.set_default_device('cpu'); out = [str(torch.get_default_device()), "
    f"repr(torch.get_default_device()), *{FACTORIES}]",
    "set_cpu_device_object": "torch.set_default_device(torch.device('cpu')); "
    "out = [repr(torch.get_default_device()), torch.zeros(2)]",
    "set_none": "torch.set_default_device('cpu'); torch.set_default_device(None); "
    "out = [repr(torch.get_default_device()), torch.ones(2)]",
    "with_device": "with torch.device('cpu') as d:\n"
    f"    out = [repr(d), repr(torch.get_default_device()), *{FACTORIES}]\n",
    "with_device_returns_itself": "d = torch.device('cpu')\nwith d as e:\n    pass\nout = e is d",
    "with_device_nested": "torch.set_default_device('cpu')\nwith torch.device('cpu'):\n"
    "    with torch.device('cpu'):\n        a = torch.zeros(1)\n    b = torch.ones(1)\n"
    "out = [a, b, torch.full((1,), 2.0), repr(torch.get_default_device())]",
    "set_device_decorator": "@torch.utils._device.set_device('cpu')\ndef f(n):\n"
    "    return torch.arange(n), repr(torch.get_default_device())\nout = [f(3), f.__name__]",
    "explicit_device_wins": "torch.set_default_device('cpu'); out = torch.zeros(2, device='cpu')",
    "out_argument": "torch.set_default_device('cpu'); o = torch.empty(0); "
    "r = torch.zeros(3, out=o); out = [o, r is o]",
    "nn_module_parameters": "torch.set_default_device('cpu'); m = torch.nn.Linear(3, 2); "
    "x = torch.randn(4, 3, requires_grad=True); m(x).pow(2).sum().backward(); "
    "out = [m.weight, m.bias, m.weight.grad, x.grad]",
    "nn_module_buffers": "with torch.device('cpu'):\n    m = torch.nn.BatchNorm1d(3)\n"
    "    y = m(torch.randn(4, 3))\nout = [y, m.running_mean, m.running_var, "
    "m.num_batches_tracked]",
    "tensor_from_tensor": "torch.set_default_device('cpu'); t = torch.arange(3.); "
    "out = [torch.tensor(t), torch.as_tensor(t), torch.asarray(t)]",
    "like_and_new_follow_input": "torch.set_default_device('cpu'); t = torch.ones(2); "
    "out = [torch.zeros_like(t), t.new_zeros(3), t.new_tensor([1, 2])]",
    "torch_Tensor_ctor": "torch.set_default_device('cpu'); out = [torch.Tensor(2).shape, "
    "torch.Tensor([1.5, 2])]",
    # ---- bad input ---------------------------------------------------------------------------
    "bad_device_type": "torch.set_default_device('foo')",
    "bad_device_string": "torch.set_default_device('cuda:x')",
    "bad_device_empty": "torch.set_default_device('')",
    "bad_with_device": "with torch.device('bar'):\n    pass",
    "bad_factory_under_default": "torch.set_default_device('cpu'); torch.zeros('a')",
    "bad_factory_kwarg_under_default": "with torch.device('cpu'):\n    torch.ones(2, dtype=3)",
    "error_inside_with_restores": "torch.set_default_device(None)\n"
    "try:\n    with torch.device('cpu'):\n"
    "        torch.zeros('a')\nexcept TypeError as e:\n    msg = str(e)\n"
    "out = [msg, torch.zeros(1), repr(torch.get_default_device())]",
}


# float32 sums in another order than torch's
CLOSE = {"nn_module_parameters", "nn_module_buffers"}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_default_device(name: str) -> None:
    if name in CLOSE:
        check(PROGRAMS[name], rtol=1e-5, atol=1e-6)
    else:
        check(PROGRAMS[name])


def test_initial_default_device_is_the_cpu() -> None:
    # outside the harness: a [cuda] program starts with the CUDA default device
    assert repr(tensortrace.get_default_device()) == repr(torch.get_default_device())
    assert str(tensortrace.get_default_device()) == "cpu"
