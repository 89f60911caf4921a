"""lerp with a Scalar or a Tensor weight: self + weight * (end - self).

Mirrors `aten/src/ATen/native/Lerp.cpp` (TORCH_META_FUNC(lerp_Scalar): a binary-like
TensorIterator over self and end, whose dtypes must match; TORCH_META_FUNC(lerp_Tensor) adds the
weight as a third input of the same dtype; the kernels are in native/cpu/lerp_kernel.py).
Adam's first moment is `exp_avg.lerp_(grad, 1 - beta1)`; quantile interpolates with a tensor
of weights.
"""

from __future__ import annotations

from typing import Any

from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.registry import impl_function, meta_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorBase, TensorIteratorConfig
from tensortrace.c10.exception import TORCH_CHECK

SOURCE = "aten/src/ATen/native/Lerp.cpp"

lerp_kernel_scalar_weight = DECLARE_DISPATCH(
    "lerp_kernel_scalar_weight", "aten/src/ATen/native/Lerp.h"
)
lerp_kernel_tensor_weight = DECLARE_DISPATCH(
    "lerp_kernel_tensor_weight", "aten/src/ATen/native/Lerp.h"
)


@meta_function("lerp.Scalar", SOURCE)
def meta_lerp_scalar(it: TensorIteratorBase, self: Tensor, end: Tensor, weight: Any) -> None:
    TORCH_CHECK(
        self.dtype() == end.dtype(),
        "expected dtype ",
        self.dtype().name,
        " for `end` but got dtype ",
        end.dtype().name,
    )
    it.build(
        TensorIteratorConfig()
        .add_output(it.maybe_get_output())
        .add_const_input(self)
        .add_const_input(end)
    )


@impl_function("lerp_Scalar", SOURCE)
def lerp_scalar(
    it: TensorIteratorBase, self: Tensor, end: Tensor, weight: Any, out: Tensor
) -> None:
    lerp_kernel_scalar_weight(it.device_type(), it, weight)


@meta_function("lerp.Tensor", SOURCE)
def meta_lerp_tensor(it: TensorIteratorBase, self: Tensor, end: Tensor, weight: Tensor) -> None:
    TORCH_CHECK(
        self.dtype() == end.dtype(),
        "expected dtype ",
        self.dtype().name,
        " for `end` but got dtype ",
        end.dtype().name,
    )
    TORCH_CHECK(
        self.dtype() == weight.dtype(),
        "expected dtype ",
        self.dtype().name,
        " for `weight` but got dtype ",
        weight.dtype().name,
    )
    it.build(
        TensorIteratorConfig()
        .add_output(it.maybe_get_output())
        .add_const_input(self)
        .add_const_input(end)
        .add_const_input(weight)
    )


@impl_function("lerp_Tensor", SOURCE)
def lerp_tensor(
    it: TensorIteratorBase, self: Tensor, end: Tensor, weight: Tensor, out: Tensor
) -> None:
    lerp_kernel_tensor_weight(it.device_type(), it)
