"""Anomaly mode against torch 2.13: the NaN check, the forward's stack on each Node, the warnings.

Each program runs in tensortrace and in torch (tests/conformance/harness.py). The warnings a
program raises are part of its `out`, as `(head, last frame)`: the message up to the stack, and
the last frame of the forward's stack in the program itself (the frames of the libraries and of
the test around it, and torch's " (Triggered internally at ...)" suffix, are not compared).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pytest

import tensortrace

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "conformance"))
from harness import check  # noqa: E402

PRELUDE = """
import warnings
def summary(message):
    message = message.split(" (Triggered internally at ")[0]
    head, _, stack = message.partition(":\\n")
    frames = [line for line in stack.splitlines() if line.startswith('  File "<string>"')]
    return (head, frames[-1:])
def caught(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            result = fn()
        except RuntimeError as e:
            result = ("RuntimeError", str(e))
    return result, [summary(str(x.message)) for x in w]
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone()
    @staticmethod
    def backward(ctx, g):
        raise RuntimeError("Some error in backward")
class Outer(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone()
    @staticmethod
    def backward(ctx, g):
        return Bad.apply(g)
"""

PROGRAMS: dict[str, str] = {
    "nan_check": "x = torch.tensor([0.0, 1.0], requires_grad=True)\n"
    "def f():\n"
    "    with torch.autograd.detect_anomaly():\n"
    "        z = x.sqrt() * 0\n"
    "        (z / z).sum().backward()\n"
    "out = caught(f)",
    "nan_check_first_output": "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "def f():\n"
    "    with torch.autograd.set_detect_anomaly(True):\n"
    "        (x * float('nan')).sum().backward()\n"
    "out = caught(f)",
    "check_nan_false": "x = torch.tensor([0.0, 1.0], requires_grad=True)\n"
    "def f():\n"
    "    with torch.autograd.detect_anomaly(check_nan=False):\n"
    "        z = x * 0\n"
    "        (z / z).sum().backward()\n"
    "    return x.grad\n"
    "out = caught(f)",
    "node_made_outside_anomaly": "x = torch.tensor([0.0, 1.0], requires_grad=True)\n"
    "z = x * 0\n"
    "y = z / z\n"
    "def f():\n"
    "    with torch.autograd.set_detect_anomaly(True):\n"
    "        y.sum().backward()\n"
    "out = caught(f)",
    "inplace_hint": "x = torch.ones(3, requires_grad=True)\n"
    "def f():\n"
    "    with torch.autograd.set_detect_anomaly(True):\n"
    "        y = x.exp()\n"
    "        y.add_(1)\n"
    "        y.sum().backward()\n"
    "out = caught(f)",
    "custom_function_error": "x = torch.ones(3, requires_grad=True)\n"
    "def f():\n"
    "    with torch.autograd.detect_anomaly():\n"
    "        Bad.apply(x).sum().backward()\n"
    "out = caught(f)",
    "parent_of_a_double_backward_node": "x = torch.ones(3, requires_grad=True)\n"
    "def f():\n"
    "    with torch.autograd.set_detect_anomaly(True):\n"
    "        g, = torch.autograd.grad(Outer.apply(x).sum(), x, create_graph=True)\n"
    "        torch.autograd.grad(g.sum(), x)\n"
    "out = caught(f)",
    "metadata": "x = torch.ones(2, requires_grad=True)\n"
    "plain = x.exp()\n"
    "with torch.autograd.set_detect_anomaly(True):\n"
    "    y = x.exp() * 2\n"
    "    g, = torch.autograd.grad(x.sqrt().sum(), x, create_graph=True)\n"
    "out = (dict(plain.grad_fn.metadata), sorted(y.grad_fn.metadata),\n"
    "       sorted(y.grad_fn.next_functions[0][0].metadata), sorted(g.grad_fn.metadata),\n"
    "       type(g.grad_fn.metadata['parent_']).__name__, g.grad_fn.metadata['parent_'].name(),\n"
    "       y.grad_fn.metadata['traceback_'][-1].splitlines()[0])",
    "flags": "a = (torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())\n"
    "with torch.autograd.set_detect_anomaly(True, check_nan=False):\n"
    "    b = (torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())\n"
    "    with torch.autograd.set_detect_anomaly(False):\n"
    "        c = (torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())\n"
    "    d = (torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())\n"
    "torch.autograd.set_detect_anomaly(True)\n"
    "e = torch.is_anomaly_enabled()\n"
    "torch.set_anomaly_enabled(False)\n"
    "out = (a, b, c, d, e, torch.is_anomaly_enabled())",
    "detect_anomaly_warns_once_made": "def f():\n"
    "    cm = torch.autograd.detect_anomaly()\n"
    "    return torch.is_anomaly_enabled()\n"
    "out = caught(f)",
    "set_anomaly_enabled_bad_type": "torch.set_anomaly_enabled('yes')",
    "set_anomaly_enabled_bad_check_nan": "torch.set_anomaly_enabled(True, 1)",
}


@pytest.fixture(autouse=True)
def _anomaly_off() -> object:
    """A failed program must not leave anomaly mode on for the next test."""
    yield
    tensortrace.set_anomaly_enabled(False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import torch

        torch.set_anomaly_enabled(False)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_anomaly_mode(name: str) -> None:
    check(PRELUDE + PROGRAMS[name])


def test_no_metadata_is_made_when_anomaly_mode_is_off() -> None:
    x = tensortrace.ones(2, requires_grad=True)
    y = x.exp()
    assert y.grad_fn.metadata_ is None  # type: ignore[union-attr]
