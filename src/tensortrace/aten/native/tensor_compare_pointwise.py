"""clamp, clamp_min, clamp_max and where: the pointwise half of TensorCompare.cpp.

Mirrors `aten/src/ATen/native/TensorCompare.cpp` / `TensorCompare.h` (the reductions of that
file, max.dim and min.dim, are in tensor_compare.py). clamp with Scalar bounds promotes by hand
(the bounds take part in result_type as wrapped numbers, and an in-place clamp may not change
self's dtype), converts self with `self.to(result_type)` and runs a unary op; clamp with Tensor
bounds builds a TensorIterator over (out, self, min, max). where converts its operands to their
result_type, checks the condition is bool, and runs where_kernel; its Scalar overloads
(CompositeImplicitAutograd) make 0-dim operands with at::scalar_tensor.
"""

from __future__ import annotations

import math
import warnings

from tensortrace.aten import functions as at
from tensortrace.aten.native import type_properties
from tensortrace.aten.native.binary_ops import maximum_stub, minimum_stub
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.scalar_ops import Scalar, wrapped_scalar_tensor
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorBase, TensorIteratorConfig
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar_type import ScalarType, isComplexType, isFloatingType

SOURCE = "aten/src/ATen/native/TensorCompare.cpp"
HEADER = "aten/src/ATen/native/TensorCompare.h"

clamp_stub = DECLARE_DISPATCH("clamp_stub", HEADER)
clamp_scalar_stub = DECLARE_DISPATCH("clamp_scalar_stub", HEADER)
clamp_min_scalar_stub = DECLARE_DISPATCH("clamp_min_scalar_stub", HEADER)
clamp_max_scalar_stub = DECLARE_DISPATCH("clamp_max_scalar_stub", HEADER)
where_kernel = DECLARE_DISPATCH("where_kernel", HEADER)


def _check_inplace_promotion(it: TensorIteratorBase, self: Tensor, result_type: ScalarType) -> None:
    """Disallow type promotions for in-place clamping (the message names self.dtype())."""
    out = it.maybe_get_output()
    TORCH_CHECK(
        result_type == self.scalar_type() or not out.defined() or not out.is_same(self),
        "result type ",
        result_type,
        " can't be cast to the desired output type ",
        self.dtype().name,
    )


def _is_nan(s: Scalar | None) -> bool:
    return isinstance(s, float) and math.isnan(s)


# ---- clamp ---------------------------------------------------------------------------------------
@meta_function("clamp", SOURCE)
def meta_clamp(
    it: TensorIteratorBase,
    self: Tensor,
    min: Scalar | None,  # noqa: A002
    max: Scalar | None,
) -> None:  # noqa: A002
    TORCH_CHECK(
        min is not None or max is not None,
        "torch.clamp: At least one of 'min' or 'max' must not be None",
    )
    result_type = self.scalar_type()
    TORCH_CHECK_NOT_IMPLEMENTED(
        not isComplexType(result_type), "clamp is not supported for complex types"
    )
    if not isFloatingType(result_type):  # floating is the highest supported
        state = type_properties.update_result_type_state(self, type_properties.ResultTypeState())
        for bound in (min, max):
            if bound is not None:
                state = type_properties.update_result_type_state(
                    wrapped_scalar_tensor(bound), state
                )
        result_type = type_properties.result_type(state)
        _check_inplace_promotion(it, self, result_type)
    it.build_unary_op(it.maybe_get_output(), self.to(result_type))


@meta_function("clamp.Tensor", SOURCE)
def meta_clamp_tensor(
    it: TensorIteratorBase,
    self: Tensor,
    min: Tensor | None,  # noqa: A002
    max: Tensor | None,
) -> None:  # noqa: A002
    TORCH_CHECK(
        min is not None or max is not None,
        "torch.clamp: At least one of 'min' or 'max' must not be None",
    )
    config = (
        TensorIteratorConfig()
        .set_check_mem_overlap(True)
        .add_output(it.maybe_get_output())
        .add_const_input(self)
        .promote_inputs_to_common_dtype(True)
        .cast_common_dtype_to_outputs(True)
        .enforce_safe_casting_to_output(True)
    )
    for bound in (min, max):
        if bound is not None:
            config.add_const_input(bound)
    it.build(config)
    TORCH_CHECK_NOT_IMPLEMENTED(
        not isComplexType(it.dtype(0)), "clamp is not supported for complex types"
    )


@impl_function("clamp_out", SOURCE, legacy="at::native::clamp_out")
def clamp_out(
    it: TensorIteratorBase,
    self: Tensor,
    min: Scalar | None,  # noqa: A002
    max: Scalar | None,
    out: Tensor,
) -> None:  # noqa: A002
    if min is not None and max is not None:
        if _is_nan(min) or _is_nan(max):
            out.fill_(math.nan)
        else:
            clamp_scalar_stub(it.device_type(), it, min, max)
    elif max is not None:
        clamp_max_scalar_stub(it.device_type(), it, max)
    else:
        clamp_min_scalar_stub(it.device_type(), it, min)


@impl_function("clamp_Tensor_out", SOURCE, legacy="at::native::clamp_out")
def clamp_tensor_out(
    it: TensorIteratorBase,
    self: Tensor,
    min: Tensor | None,  # noqa: A002
    max: Tensor | None,
    out: Tensor,
) -> None:  # noqa: A002
    if min is not None and max is not None:
        clamp_stub(it.device_type(), it)
    elif min is not None:
        maximum_stub(it.device_type(), it)
    else:
        minimum_stub(it.device_type(), it)


# ---- clamp_min, clamp_max ------------------------------------------------------------------------
def _meta_clamp_bound(it: TensorIteratorBase, self: Tensor, bound: Scalar) -> None:
    """relu is clamp_min(self, 0): a cheaper meta than wrapping the bound into a tensor."""
    TORCH_CHECK_NOT_IMPLEMENTED(
        not isComplexType(self.scalar_type()), "clamp is not supported for complex types"
    )
    if not isFloatingType(self.scalar_type()):
        result_type = type_properties.result_type_tensor_scalar(self, bound)
        _check_inplace_promotion(it, self, result_type)
        it.build_unary_op(it.maybe_get_output(), self.to(result_type))
    else:
        it.build_borrowing_unary_op(it.maybe_get_output(), self)


@meta_function("clamp_min", SOURCE)
def meta_clamp_min(it: TensorIteratorBase, self: Tensor, min: Scalar) -> None:  # noqa: A002
    _meta_clamp_bound(it, self, min)


@meta_function("clamp_max", SOURCE)
def meta_clamp_max(it: TensorIteratorBase, self: Tensor, max: Scalar) -> None:  # noqa: A002
    _meta_clamp_bound(it, self, max)


@meta_function("clamp_min.Tensor", SOURCE)
def meta_clamp_min_tensor(it: TensorIteratorBase, self: Tensor, min: Tensor) -> None:  # noqa: A002
    it.build_borrowing_binary_op(it.maybe_get_output(), self, min)
    TORCH_CHECK_NOT_IMPLEMENTED(
        not isComplexType(it.dtype(0)), "clamp is not supported for complex types"
    )


@meta_function("clamp_max.Tensor", SOURCE)
def meta_clamp_max_tensor(it: TensorIteratorBase, self: Tensor, max: Tensor) -> None:  # noqa: A002
    it.build_borrowing_binary_op(it.maybe_get_output(), self, max)
    TORCH_CHECK_NOT_IMPLEMENTED(
        not isComplexType(it.dtype(0)), "clamp is not supported for complex types"
    )


@impl_function("clamp_min_out", SOURCE, legacy="at::native::clamp_min_out")
def clamp_min_out(
    it: TensorIteratorBase,
    self: Tensor,
    min: Scalar,  # noqa: A002
    out: Tensor,
) -> None:
    if _is_nan(min):
        out.fill_(wrapped_scalar_tensor(min))
    else:
        clamp_min_scalar_stub(it.device_type(), it, min)


@impl_function("clamp_max_out", SOURCE, legacy="at::native::clamp_max_out")
def clamp_max_out(
    it: TensorIteratorBase,
    self: Tensor,
    max: Scalar,  # noqa: A002
    out: Tensor,
) -> None:
    if _is_nan(max):
        out.fill_(wrapped_scalar_tensor(max))
    else:
        clamp_max_scalar_stub(it.device_type(), it, max)


@impl_function("clamp_min_Tensor_out", SOURCE, legacy="at::native::clamp_min_out")
def clamp_min_tensor_out(
    it: TensorIteratorBase,
    self: Tensor,
    min: Tensor,  # noqa: A002
    out: Tensor,
) -> None:
    maximum_stub(it.device_type(), it)


@impl_function("clamp_max_Tensor_out", SOURCE, legacy="at::native::clamp_max_out")
def clamp_max_tensor_out(
    it: TensorIteratorBase,
    self: Tensor,
    max: Tensor,  # noqa: A002
    out: Tensor,
) -> None:
    minimum_stub(it.device_type(), it)


# ---- where ---------------------------------------------------------------------------------------
def _bool_condition(condition: Tensor) -> Tensor:
    """where's condition as a bool tensor: uint8 is still accepted, with a deprecation
    warning (TORCH_WARN_ONCE in where_self_out), any other dtype is an error."""
    condition_ = condition
    if condition.scalar_type() == ScalarType.Byte:
        warnings.warn(
            "where received a uint8 condition tensor. This behavior is deprecated and "
            "will be removed in a future version of PyTorch. Use a boolean condition "
            "instead.",
            UserWarning,
            stacklevel=3,
        )
        condition_ = condition.to(ScalarType.Bool)
    TORCH_CHECK(
        condition_.scalar_type() == ScalarType.Bool,
        "where expected condition to be a boolean tensor, but got a tensor with dtype ",
        condition_.scalar_type(),
    )
    return condition_


@native_function(SOURCE)
def where_self_out(condition: Tensor, self: Tensor, other: Tensor, out: Tensor) -> Tensor:
    result_type = type_properties.result_type_tensors(self, other)
    TORCH_CHECK(
        out.scalar_type() == result_type,
        "Expected out type to be ",
        result_type,
        " but got ",
        out.scalar_type(),
    )
    self_ = self.to(result_type) if self.scalar_type() != result_type else self
    other_ = other.to(result_type) if other.scalar_type() != result_type else other
    condition_ = condition
    device = out.device()
    if not device.is_cpu():  # allow CPU scalars on non-cpu device
        if condition.device() != device and condition.dim() == 0:
            condition_ = condition.to(device=device)
        if self_.device() != device and self_.dim() == 0:
            self_ = self_.to(device=device)
        if other_.device() != device and other_.dim() == 0:
            other_ = other_.to(device=device)
    condition_ = _bool_condition(condition_)
    it = (
        TensorIteratorConfig()
        .check_all_same_dtype(False)
        .add_output(out)
        .add_const_input(condition_)
        .add_const_input(self_)
        .add_const_input(other_)
        .build()
    )
    where_kernel(it.device_type(), it)
    return out


@native_function(SOURCE)
def where(condition: Tensor, self: Tensor | Scalar, other: Tensor | Scalar) -> Tensor:
    """where.self, and the CompositeImplicitAutograd ScalarSelf / ScalarOther / Scalar."""
    if isinstance(self, Tensor):
        if isinstance(other, Tensor):
            result_type = type_properties.result_type_tensors(self, other)
            # out_device: the first operand not on the CPU
            device = next(
                (t.device() for t in (condition, self, other) if not t.device().is_cpu()),
                self.device(),
            )
            out = at.empty([0], dtype=result_type, device=device)
            return where_self_out(condition, self, other, out)
        # where.ScalarOther
        result_type = type_properties.result_type_tensor_scalar(self, other)
        other_t = at.scalar_tensor(other, dtype=result_type, device=self.device())
        return at.where(condition, self.to(result_type), other_t)
    if isinstance(other, Tensor):  # where.ScalarSelf
        result_type = type_properties.result_type_tensor_scalar(other, self)
        self_t = at.scalar_tensor(self, dtype=result_type, device=other.device())
        return at.where(condition, self_t, other.to(result_type))
    # where.Scalar
    result_type = type_properties.result_type_scalars(self, other)
    self_t = at.scalar_tensor(self, dtype=result_type, device=condition.device())
    other_t = at.scalar_tensor(other, dtype=result_type, device=condition.device())
    return at.where(condition, self_t, other_t)
