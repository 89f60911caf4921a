"""dropout, dropout_, feature_dropout and feature_dropout_ (the CPU path of
`aten/src/ATen/native/Dropout.cpp`).

On CPU the fused native_dropout is never acceptable (it is for CUDA-like devices), so dropout is
_dropout_impl: the input itself when p == 0, not training or empty; input * 0 when p == 1;
otherwise a noise tensor (empty_like, bernoulli_(1 - p), div_(1 - p)) multiplied in. The
bernoulli_ draws are torch's, so after manual_seed the mask is bit-equal. Feature dropout
(F.dropout1d/2d/3d) is the same with make_feature_noise: one draw per (sample, channel), of
shape (N, C, 1, ...), broadcast over the rest, so whole channels are zeroed.
"""

from __future__ import annotations

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK

SOURCE = "aten/src/ATen/native/Dropout.cpp"


def make_feature_noise(input: Tensor) -> Tensor:
    TORCH_CHECK(input.dim() >= 2, "Feature dropout requires at least 2 dimensions in the input")
    sizes = [input.size(0), input.size(1), *([1] * (input.dim() - 2))]
    return input.new_empty(sizes)


def _dropout_impl(
    input: Tensor, p: float, train: bool, inplace: bool, feature_dropout: bool = False
) -> Tensor:
    TORCH_CHECK(0 <= p <= 1, "dropout probability has to be between 0 and 1, but got ", p)
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        zero = at.zeros([], dtype=input.scalar_type(), device=input.device())
        return input.mul_(zero) if inplace else input.mul(zero)
    noise = make_feature_noise(input) if feature_dropout else at.empty_like(input)
    noise.bernoulli_(1 - p)
    noise.div_(1 - p)
    return input.mul_(noise) if inplace else input.mul(noise)


@native_function(SOURCE, name="dropout")
def dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return _dropout_impl(input, p, train, False)


@native_function(SOURCE, name="dropout_")
def dropout_(self: Tensor, p: float, train: bool) -> Tensor:
    return _dropout_impl(self, p, train, True)


@native_function(SOURCE, name="feature_dropout")
def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return _dropout_impl(input, p, train, False, feature_dropout=True)


@native_function(SOURCE, name="feature_dropout_")
def feature_dropout_(self: Tensor, p: float, train: bool) -> Tensor:
    return _dropout_impl(self, p, train, True, feature_dropout=True)
