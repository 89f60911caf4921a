"""Helpers of the distributions: broadcast_all, logits <-> probs, lazy_property.

Mirrors `torch/distributions/utils.py`. Where torch calls an op this runtime does not have yet
(F.softmax, logsumexp, gather), the helper here computes the same formula from the ops it has,
and uses the op itself as soon as it exists.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import update_wrapper
from numbers import Number
from typing import Any

import tensortrace as torch
from tensortrace.csrc.size import Size

__all__ = [
    "broadcast_all",
    "broadcast_shapes",
    "clamp_probs",
    "lazy_property",
    "logits_to_probs",
    "probs_to_logits",
    "tril_matrix_to_vec",
    "vec_to_tril_matrix",
]

_Number = (Number,)
EMPTY_SIZE = Size()  # the default sample_shape (torch.Size() is not built yet at import)
euler_constant = 0.57721566490153286060  # Euler Mascheroni Constant


def broadcast_all(*values: Any) -> tuple[Any, ...]:
    """Numbers become tensors like the first tensor (or of the default dtype); then
    torch.broadcast_tensors."""
    if not all(isinstance(v, torch.Tensor) or isinstance(v, _Number) for v in values):
        raise ValueError(
            "Input arguments must all be instances of Number, torch.Tensor or "
            "objects implementing __torch_function__."
        )
    if not all(isinstance(v, torch.Tensor) for v in values):
        options: dict[str, Any] = {"dtype": torch.get_default_dtype()}
        for value in values:
            if isinstance(value, torch.Tensor):
                options = {"dtype": value.dtype, "device": value.device}
                break
        new_values = [
            v if isinstance(v, torch.Tensor) else torch.tensor(v, **options) for v in values
        ]
        return tuple(torch.broadcast_tensors(*new_values))
    return tuple(torch.broadcast_tensors(*values))


def broadcast_shapes(*shapes: Sequence[int]) -> Any:
    """torch.broadcast_shapes: the shape the given shapes broadcast to (torch's message when
    they do not)."""
    result: list[int] = []
    for shape in shapes:
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        for i in range(-1, -len(shape) - 1, -1):
            if len(result) < -i:
                result.insert(0, shape[i])
            elif result[i] == 1:
                result[i] = shape[i]
            elif shape[i] != 1 and shape[i] != result[i]:
                raise RuntimeError(
                    f"Shape mismatch: objects cannot be broadcast to a single shape.  "
                    f"Mismatch is between {tuple(result)} and {shape}."
                )
    return torch.Size(result)


def _sum_rightmost(value: Any, dim: int) -> Any:
    """Sum out the rightmost `dim` dimensions of value (none for dim == 0)."""
    if dim == 0:
        return value
    required_shape = value.shape[:-dim] + (-1,)
    return value.reshape(required_shape).sum(-1)


def _standard_normal(shape: Sequence[int], dtype: Any, device: Any) -> Any:
    return torch.empty(shape, dtype=dtype, device=device).normal_()


def _softmax_last(logits: Any) -> Any:
    """F.softmax(logits, dim=-1): exp(x - max) / sum, as the CPU kernel computes it."""
    if hasattr(torch, "softmax"):
        return torch.softmax(logits, -1)
    shifted = (logits - logits.amax([-1], True)).exp()
    return shifted * shifted.sum(-1, keepdim=True).reciprocal()


def _logsumexp_last(x: Any) -> Any:
    """x.logsumexp(dim=-1, keepdim=True): ReduceOps.cpp's max-shifted form."""
    if hasattr(x, "logsumexp"):
        return x.logsumexp(dim=-1, keepdim=True)
    maxes = x.amax([-1], True)
    maxes_shift = torch.where(maxes.abs() == float("inf"), torch.zeros_like(maxes), maxes)
    return (x - maxes_shift).exp().sum(-1, keepdim=True).log() + maxes_shift


def _gather_last(x: Any, index: Any) -> Any:
    """x.gather(-1, index) for an index of size 1 along the last dim."""
    if hasattr(x, "gather"):
        return x.gather(-1, index)
    n = x.shape[-1]
    flat = x.reshape(-1, n)
    rows = torch.arange(flat.shape[0])
    return flat[rows, index.reshape(-1)].reshape(index.shape)


def logits_to_probs(logits: Any, is_binary: bool = False) -> Any:
    if is_binary:
        return torch.sigmoid(logits)
    return _softmax_last(logits)


def clamp_probs(probs: Any) -> Any:
    eps = torch.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Any, is_binary: bool = False) -> Any:
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return torch.log(ps_clamped) - torch.log1p(-ps_clamped)
    return torch.log(ps_clamped)


def binary_cross_entropy_with_logits(input: Any, target: Any) -> Any:  # noqa: A002
    """F.binary_cross_entropy_with_logits(..., reduction='none'), as Loss.cpp computes it:
    (1 - target) * input - log_sigmoid(input), log_sigmoid(x) = min(x, 0) - log1p(exp(-|x|))."""
    log_sigmoid = input.clamp(max=0) - torch.log1p(torch.exp(-input.abs()))
    return (1 - target) * input - log_sigmoid


class lazy_property:
    """A non-data descriptor computing the value on first access, then caching it on the
    instance (so Bernoulli(probs=p).logits is computed once)."""

    def __init__(self, wrapped: Callable[[Any], Any]) -> None:
        self.wrapped = wrapped
        update_wrapper(self, wrapped)  # type: ignore[arg-type]

    def __get__(self, instance: Any, obj_type: Any = None) -> Any:
        if instance is None:
            return self
        value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


def tril_matrix_to_vec(mat: Any, diag: int = 0) -> Any:
    """The lower-triangular elements (below `diag`) of a (batch of) D x D matrix, row by row."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    arange = torch.arange(n, device=mat.device)
    tril_mask = arange < arange.view(-1, 1) + (diag + 1)
    return mat[..., tril_mask]


def vec_to_tril_matrix(vec: Any, diag: int = 0) -> Any:
    """A (batch of) vector back into the lower triangle of a D x D matrix, row by row."""
    # +ve root of D**2 + (1+2*diag)*D - |diag| * (diag+1) - 2*vec.shape[-1] = 0
    n = (
        -(1 + 2 * diag)
        + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5
    ) / 2
    eps = torch.finfo(vec.dtype).eps
    if round(n) - n > eps:
        raise ValueError(
            f"The size of last dimension is {vec.shape[-1]} which cannot be expressed as "
            + "the lower triangular part of a square D x D matrix."
        )
    n = round(n)
    mat = vec.new_zeros(vec.shape[:-1] + torch.Size((n, n)))
    arange = torch.arange(n, device=vec.device)
    tril_mask = arange < arange.view(-1, 1) + (diag + 1)
    mat[..., tril_mask] = vec
    return mat
