"""dropout and dropout_ (the CPU path of `aten/src/ATen/native/Dropout.cpp`).

On CPU the fused native_dropout is never acceptable (it is for CUDA-like devices), so dropout is
_dropout_impl: the input itself when p == 0, not training or empty; input * 0 when p == 1;
otherwise a noise tensor (empty_like, bernoulli_(1 - p), div_(1 - p)) multiplied in. The
bernoulli_ draws are torch's, so after manual_seed the mask is bit-equal.
"""

from __future__ import annotations

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK

SOURCE = "aten/src/ATen/native/Dropout.cpp"


def _dropout_impl(input: Tensor, p: float, train: bool, inplace: bool) -> Tensor:
    TORCH_CHECK(0 <= p <= 1, "dropout probability has to be between 0 and 1, but got ", p)
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        zero = at.zeros([], dtype=input.scalar_type())
        return input.mul_(zero) if inplace else input.mul(zero)
    noise = at.empty_like(input)
    noise.bernoulli_(1 - p)
    noise.div_(1 - p)
    return input.mul_(noise) if inplace else input.mul(noise)


@native_function(SOURCE, name="dropout")
def dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return _dropout_impl(input, p, train, False)


@native_function(SOURCE, name="dropout_")
def dropout_(self: Tensor, p: float, train: bool) -> Tensor:
    return _dropout_impl(self, p, train, True)
