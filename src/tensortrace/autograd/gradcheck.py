"""torch.autograd.gradcheck: compare the backward formulas with finite differences.

Mirrors the slow mode of `torch/autograd/gradcheck.py`: the analytical Jacobian is built row by
row with torch.autograd.grad (one backward per output element, with a one-hot grad_output), the
numerical one column by column by central differences (perturbing one input element at a time,
under no_grad), and the two must agree within atol + rtol * |numerical|. Use float64 inputs.
Built on the public API only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import tensortrace as torch


class GradcheckError(RuntimeError):
    """torch.autograd.GradcheckError."""


def _as_tuple(x: Any) -> tuple[Any, ...]:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _flat_numpy(t: Any) -> np.ndarray:
    return np.array(t.detach().contiguous().numpy(), dtype=np.float64).reshape(-1)


def get_numerical_jacobian(
    fn: Callable[..., Any], inputs: Sequence[Any], input_index: int, output_index: int, eps: float
) -> np.ndarray:
    x = inputs[input_index]
    n_in = x.numel()
    with torch.no_grad():
        n_out = _as_tuple(fn(*inputs))[output_index].numel()
        jacobian = np.zeros((n_in, n_out))
        flat = x.view(-1)
        for k in range(n_in):
            original = flat[k].item()
            flat[k] = original + eps
            plus = _flat_numpy(_as_tuple(fn(*inputs))[output_index])
            flat[k] = original - eps
            minus = _flat_numpy(_as_tuple(fn(*inputs))[output_index])
            flat[k] = original
            jacobian[k] = (plus - minus) / (2 * eps)
    return jacobian


def get_analytical_jacobian(inputs: Sequence[Any], output: Any, input_index: int) -> np.ndarray:
    x = inputs[input_index]
    jacobian = np.zeros((x.numel(), output.numel()))
    for j in range(output.numel()):
        grad_output = torch.zeros(output.numel(), dtype=output.dtype)
        grad_output[j] = 1.0
        (grad,) = torch.autograd.grad(
            output, [x], grad_output.view(output.shape), retain_graph=True, allow_unused=True
        )
        if grad is not None:
            jacobian[:, j] = _flat_numpy(grad)
    return jacobian


def gradcheck(
    func: Callable[..., Any],
    inputs: Any,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
) -> bool:
    """True if every input's analytical Jacobian matches the numerical one."""
    inputs = _as_tuple(inputs)
    n_outputs = len(_as_tuple(func(*inputs)))
    for i, x in enumerate(inputs):
        if not (hasattr(x, "requires_grad") and x.requires_grad):
            continue
        for o in range(n_outputs):
            # a fresh graph, used before the perturbations bump the inputs' versions
            out = _as_tuple(func(*inputs))[o]
            if not (hasattr(out, "requires_grad") and out.requires_grad):
                continue
            analytical = get_analytical_jacobian(inputs, out, i)
            del out
            numerical = get_numerical_jacobian(func, inputs, i, o, eps)
            if not np.allclose(analytical, numerical, rtol=rtol, atol=atol):
                if not raise_exception:
                    return False
                raise GradcheckError(
                    f"Jacobian mismatch for output {o} with respect to input "
                    f"{i},\nnumerical:{numerical}\nanalytical:{analytical}\n"
                )
    return True
