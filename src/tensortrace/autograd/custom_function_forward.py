"""Forward-mode AD through a custom autograd.Function: its `jvp` staticmethod.

Mirrors `torch/csrc/autograd/custom_function.cpp`'s _process_forward_mode_AD and the
AutoFwGradMode(false) guards of `python_function.cpp`: forward (and jvp) run with forward grad
off, so they see plain tensors; when an input has a tangent, jvp(ctx, *input_tangents) is called
(None for an input without one) and its results become the outputs' tangents. A Function
without jvp raises torch's "You must implement the jvp function ..." (the base class's jvp).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tensortrace.autograd.forward_grad import any_level, fw_grad, set_fw_grad
from tensortrace.c10.autograd_state import autograd_state
from tensortrace.csrc.python_variable import TensorBase as PyTensor
from tensortrace.csrc.python_variable import THPVariable_Wrap


@contextmanager
def fw_grad_disabled() -> Iterator[None]:
    """at::AutoFwGradMode(false)."""
    prev = autograd_state.fw_grad_mode
    autograd_state.fw_grad_mode = False
    try:
        yield
    finally:
        autograd_state.fw_grad_mode = prev


def input_tangents(inputs: tuple[Any, ...]) -> list[Any] | None:
    """The inputs' tangents at level 0 (None for one without), or None when none has one."""
    if not any_level() or not autograd_state.fw_grad_mode:
        return None
    tangents = [
        fw_grad(a.cdata, 0) if isinstance(a, PyTensor) and a.cdata.defined() else None
        for a in inputs
    ]
    if all(t is None for t in tangents):
        return None
    return [THPVariable_Wrap(t) if t is not None else None for t in tangents]


def process_forward_mode_ad(
    cls: Any, ctx: Any, tangents: list[Any], output: Any, dirty: set[int]
) -> None:
    """Call jvp and give each tensor output its tangent (in place for a dirty input)."""
    with fw_grad_disabled():
        forward_grads = cls.jvp(ctx, *tangents)
    outputs = output if isinstance(output, tuple) else (output,)
    grads = forward_grads if isinstance(forward_grads, tuple) else (forward_grads,)
    if len(grads) != len(outputs):
        raise RuntimeError(
            f"Function {cls.__name__}.jvp() returned an incorrect number of forward gradients "
            f"(expected {len(outputs)} but got {len(grads)})"
        )
    for out, grad in zip(outputs, grads):
        if not isinstance(out, PyTensor) or grad is None:
            continue
        impl = out.cdata.unsafeGetTensorImpl()
        set_fw_grad(out.cdata, grad.cdata, 0, id(impl) in dirty)
