"""torch.set_default_device("cuda") and `with torch.device("cuda"):` on the emulated device,
against torch 2.13 with the meta device in cuda's place (torch here has no CUDA; meta is as
much "not the CPU" as cuda is).

Each program runs in tensortrace with DEV = "cuda" and in torch with DEV = "meta"; what it
leaves in `out` is compared with the device types mapped (cuda <-> meta): which tensors land
on the default device and which stay on the CPU, their shapes and dtypes, and the errors (type
and message, the device named as DEV). The mode stack is left empty after each program.
"""

from __future__ import annotations

import math
import re
import threading
from typing import Any

import numpy as np
import pytest

import tensortrace
from tensortrace.aten.python_torch_function_tls import pop_stack, stack_len

torch = pytest.importorskip("torch")


def _clear_modes(module: Any) -> None:
    module.set_default_device(None)
    if module is tensortrace:
        while stack_len():
            pop_stack()
    else:
        from torch.overrides import _pop_mode

        while torch._C._len_torch_function_stack():
            _pop_mode()


def _normal_text(text: str) -> str:
    return re.sub(r"\bcuda:0\b|\bcuda\b|\bmeta\b", "DEV", text)


def _summary(value: Any) -> Any:
    """Tensors as (device type, shape, dtype), devices and strings with the device as DEV."""
    if isinstance(value, (torch.Tensor, tensortrace.Tensor)):
        kind = value.device.type
        return (
            "tensor",
            "DEV" if kind in ("cuda", "meta") else kind,
            tuple(value.shape),
            str(value.dtype),
        )
    if isinstance(value, (torch.device, tensortrace.device)):
        return ("device", _normal_text(str(value)))
    if isinstance(value, str):
        return _normal_text(value)
    if isinstance(value, (tuple, list)):
        return [_summary(v) for v in value]
    return value


def _run(module: Any, program: str, device: str) -> Any:
    namespace: dict[str, Any] = {"torch": module, "np": np, "math": math, "DEV": device}
    try:
        exec(program, namespace)
    except Exception as exc:
        return ("error", type(exc).__name__, _normal_text(str(exc)))
    finally:
        _clear_modes(module)
    return _summary(namespace["out"])


FACTORIES = (
    "[torch.zeros(2), torch.ones(2), torch.empty(2), torch.full((2,), 1.5), torch.arange(3), "
    "torch.linspace(0, 1, 3), torch.logspace(0, 1, 3), torch.eye(2), torch.rand(2), "
    "torch.randn(2), torch.randint(3, (2,)), torch.randperm(3), torch.tensor([1.5]), "
    "torch.as_tensor([1, 2]), torch.asarray([1.5]), torch.scalar_tensor(2.5), "
    "torch.empty_strided((2,), (1,)), torch.tril_indices(3, 3), torch.triu_indices(3, 3)]"
)

PROGRAMS = {
    "set_default_device": f"torch.set_default_device(DEV); out = {FACTORIES}",
    "get_default_device": "torch.set_default_device(DEV); a = torch.get_default_device(); "
    "torch.set_default_device(None); out = [a, torch.get_default_device()]",
    "with_device": f"with torch.device(DEV) as d:\n    out = [d, torch.get_default_device(), "
    f"*{FACTORIES}]",
    "with_restores": "with torch.device(DEV):\n    a = torch.zeros(1)\n"
    "out = [a, torch.zeros(1), torch.get_default_device()]",
    "error_inside_with": "try:\n    with torch.device(DEV):\n        raise ValueError('x')\n"
    "except ValueError:\n    pass\nout = [torch.zeros(1), torch.get_default_device()]",
    "nested_innermost_wins": "torch.set_default_device(DEV)\nwith torch.device('cpu'):\n"
    "    a = torch.zeros(1)\n    with torch.device(DEV):\n        b = torch.zeros(1)\n"
    "    c = torch.zeros(1)\nout = [a, b, c, torch.zeros(1)]",
    "explicit_device_wins": "torch.set_default_device(DEV); out = [torch.zeros(2, device='cpu'), "
    "torch.tensor([1], device='cpu'), torch.arange(2, device=torch.device('cpu'))]",
    "not_constructors": "torch.set_default_device(DEV); c = torch.ones(2, device='cpu'); "
    "out = [torch.Tensor(2), torch.Tensor([1.5]), torch.from_numpy(np.ones(2)), "
    "torch.zeros_like(c), torch.ones_like(c), torch.empty_like(c), torch.rand_like(c), "
    "torch.full_like(c, 2), c.new_zeros(2), c.new_tensor([1]), c.new_empty(1), c + 1, "
    "torch.zeros_like(torch.zeros(2))]",
    "tensor_of_cpu_tensor_moves": "c = torch.ones(2, device='cpu'); torch.set_default_device(DEV)"
    "; out = [torch.tensor(c), torch.as_tensor(c), torch.asarray(c)]",
    "nn_parameters_and_buffers": "torch.set_default_device(DEV); "
    "m = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2)); "
    "out = [*m.parameters(), *m.buffers()]",
    "nn_module_in_with": "with torch.device(DEV):\n    m = torch.nn.Conv2d(1, 2, 3)\n"
    "out = [m.weight, m.bias, torch.nn.Linear(1, 1).weight]",
    "out_on_another_device": "torch.set_default_device(DEV); "
    "torch.zeros(3, out=torch.empty(3, device='cpu'))",
    "out_on_another_device_arange": "with torch.device(DEV):\n"
    "    torch.arange(3, out=torch.empty(3, device='cpu'))",
    "out_dtype_first": "torch.set_default_device(DEV); "
    "torch.zeros(3, dtype=torch.int64, out=torch.empty(3, device='cpu'))",
    "set_storage_of_another_device": "torch.set_default_device(DEV); "
    "torch.empty(0).set_(torch.empty(2, device='cpu').untyped_storage())",
    "bad_call_unchanged": "torch.set_default_device(DEV); torch.zeros('a')",
    "bad_call_kwargs_unchanged": "with torch.device(DEV):\n    torch.ones(2, dtype=3)",
    "set_default_device_bad": "torch.set_default_device('foo')",
    # set_default_device inside `with torch.device`: DeviceContext.__enter__ takes the with's
    # context off the stack (as its prev_mode), the with's exit pops the default's context
    # instead, and set_default_device(None) puts the with's context back: torch's own quirk
    "set_inside_with_quirk": "with torch.device(DEV):\n    torch.set_default_device('cpu')\n"
    "    a = torch.zeros(1)\nb = torch.zeros(1)\ntorch.set_default_device(None)\n"
    "c = torch.zeros(1)\nout = [a, b, c, torch.get_default_device()]",
    "set_twice": "torch.set_default_device(DEV); torch.set_default_device('cpu'); "
    "a = torch.zeros(1); torch.set_default_device(DEV); out = [a, torch.zeros(1)]",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_default_device_against_meta(name: str) -> None:
    program = PROGRAMS[name]
    assert _run(tensortrace, program, "cuda") == _run(torch, program, "meta")


def test_values_on_the_default_device() -> None:
    """The factories on the CUDA default device make what they make on the CPU."""
    try:
        tensortrace.manual_seed(0)
        tensortrace.set_default_device("cuda")
        on_cuda = [
            t.cpu() for t in (tensortrace.rand(3), tensortrace.arange(4.0), tensortrace.eye(2))
        ]
    finally:
        tensortrace.set_default_device(None)
    tensortrace.manual_seed(0)
    on_cpu = [tensortrace.rand(3), tensortrace.arange(4.0), tensortrace.eye(2)]
    for a, b in zip(on_cuda, on_cpu):
        assert tensortrace.equal(a, b)


def test_default_device_is_per_thread() -> None:
    seen: list[str] = []
    try:
        tensortrace.set_default_device("cuda")
        worker = threading.Thread(target=lambda: seen.append(str(tensortrace.zeros(1).device)))
        worker.start()
        worker.join()
        seen.append(str(tensortrace.zeros(1).device))
    finally:
        tensortrace.set_default_device(None)
    assert seen == ["cpu", "cuda:0"]


def test_no_leak_after_an_error_on_the_default_device() -> None:
    cpu_out = tensortrace.empty(3, device="cpu")
    before = tensortrace.cuda.memory_allocated()
    try:
        with tensortrace.device("cuda"):
            with pytest.raises(RuntimeError, match="does not match device type"):
                tensortrace.zeros(3, out=cpu_out)
            with pytest.raises(RuntimeError, match="the devices must match"):
                tensortrace.empty(4).set_(cpu_out.untyped_storage())
    finally:
        _clear_modes(tensortrace)
    assert tensortrace.cuda.memory_allocated() == before
    assert stack_len() == 0
