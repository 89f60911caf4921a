"""TensorIteratorConfig: the builder of a TensorIterator, and the op configs built on it.

Mirrors `TensorIteratorConfig` in `aten/src/ATen/TensorIterator.h` / `TensorIterator.cpp` and the
BINARY_OP_CONFIG() / UNARY_OP_CONFIG() ... macros of TensorIterator.cpp. Split out of
tensor_iterator.py, which re-exports every name here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK, TORCH_INTERNAL_ASSERT
from tensortrace.c10.scalar_type import ScalarType

if TYPE_CHECKING:
    from tensortrace.aten.tensor_iterator import TensorIterator


class TensorIteratorConfig:
    """The builder: outputs first, then inputs, then the flags (TensorIteratorConfig)."""

    # the flags' defaults, as class attributes: a setter shadows one on the instance, so a
    # config costs only what it changes (every op builds one)
    static_shape_: tuple[int, ...] | None = None
    static_dtype_: ScalarType | None = None
    check_mem_overlap_ = True
    allow_cpu_scalars_ = False
    is_reduction_ = False
    resize_outputs_ = True
    check_all_same_dtype_ = True
    check_all_same_device_ = True
    enforce_safe_casting_to_output_ = False
    enforce_linear_iteration_ = False
    promote_inputs_to_common_dtype_ = False
    promote_integer_inputs_to_float_ = False
    cast_common_dtype_to_outputs_ = False

    def __init__(self) -> None:
        self.tensors_: list[Tensor] = []
        self.const_indices_: set[int] = set()
        self.num_outputs_ = 0
        self.num_inputs_ = 0

    def add_output(self, output: Tensor) -> TensorIteratorConfig:
        if self.num_inputs_ != 0:  # Note [TORCH_CHECK tests first]
            TORCH_INTERNAL_ASSERT(
                False,
                "Keep in mind that you have to add all outputs first before adding any input.",
            )
        self.tensors_.append(output)
        self.num_outputs_ += 1
        return self

    def add_input(self, tensor: Tensor) -> TensorIteratorConfig:
        self.tensors_.append(tensor)
        self.num_inputs_ += 1
        return self

    def add_const_input(self, tensor: Tensor) -> TensorIteratorConfig:
        self.const_indices_.add(len(self.tensors_))
        return self.add_input(tensor)

    # add_owned_* and add_borrowed_* differ only in C++ ownership; a Python reference is a borrow.
    add_owned_output = add_borrowed_output = add_output
    add_owned_input = add_borrowed_input = add_input
    add_owned_const_input = add_borrowed_const_input = add_const_input

    def set_check_mem_overlap(self, v: bool) -> TensorIteratorConfig:
        self.check_mem_overlap_ = v
        return self

    def allow_cpu_scalars(self, v: bool) -> TensorIteratorConfig:
        self.allow_cpu_scalars_ = v
        return self

    def is_reduction(self, v: bool) -> TensorIteratorConfig:
        self.is_reduction_ = v
        return self

    def resize_outputs(self, v: bool) -> TensorIteratorConfig:
        self.resize_outputs_ = v
        return self

    def check_all_same_dtype(self, v: bool) -> TensorIteratorConfig:
        self.check_all_same_dtype_ = v
        return self

    def check_all_same_device(self, v: bool) -> TensorIteratorConfig:
        self.check_all_same_device_ = v
        return self

    def enforce_safe_casting_to_output(self, v: bool) -> TensorIteratorConfig:
        self.enforce_safe_casting_to_output_ = v
        return self

    def enforce_linear_iteration(self, v: bool = True) -> TensorIteratorConfig:
        self.enforce_linear_iteration_ = v
        return self

    def promote_inputs_to_common_dtype(self, v: bool) -> TensorIteratorConfig:
        self.promote_inputs_to_common_dtype_ = v
        if v:
            self.check_all_same_dtype_ = False
        return self

    def promote_integer_inputs_to_float(self, v: bool) -> TensorIteratorConfig:
        self.promote_integer_inputs_to_float_ = v
        return self

    def cast_common_dtype_to_outputs(self, v: bool) -> TensorIteratorConfig:
        self.cast_common_dtype_to_outputs_ = v
        if v:
            self.check_all_same_dtype_ = False
        return self

    def declare_static_dtype(self, dtype: ScalarType) -> TensorIteratorConfig:
        TORCH_CHECK(
            not self.check_all_same_dtype_,
            "check_all_same_dtype(false) must be called before declare_static_dtype(...)",
        )
        self.static_dtype_ = dtype
        return self

    def declare_static_shape(self, shape: Sequence[int]) -> TensorIteratorConfig:
        TORCH_CHECK(
            not self.resize_outputs_,
            "resize_outputs() must be called before declare_static_shape(...)",
        )
        self.static_shape_ = tuple(shape)
        return self

    def build(self) -> TensorIterator:
        # a real import cycle: tensor_iterator builds its iterators from this module's configs
        from tensortrace.aten.tensor_iterator import TensorIterator

        it = TensorIterator()
        it.build(self)
        return it


class BinaryOpConfig(TensorIteratorConfig):
    """build_borrowing_binary_op's config for (out, a, b): binary_op_config().add_output(out)
    .add_const_input(a).add_const_input(b), its flags as class attributes (every binary op
    builds one)."""

    allow_cpu_scalars_ = True
    promote_inputs_to_common_dtype_ = True
    cast_common_dtype_to_outputs_ = True
    check_all_same_dtype_ = False
    enforce_safe_casting_to_output_ = True

    def _trace_summary(self) -> str:
        return "TensorIteratorConfig"  # a trace names the config as PyTorch's one class

    def __init__(self, out: Tensor, a: Tensor, b: Tensor) -> None:
        self.tensors_ = [out, a, b]
        self.const_indices_ = {1, 2}
        self.num_outputs_ = 1
        self.num_inputs_ = 2


class ReduceOpConfig(TensorIteratorConfig):
    """TensorIterator::reduce_op's config for (out, a), or (out, out2, a): outputs that keep
    their shapes, a const input. Its flags as class attributes (every reduction builds one or
    three): set_check_mem_overlap(false), resize_outputs(false), is_reduction(true),
    check_all_same_dtype(false), and with one output promote_inputs_to_common_dtype(true)
    (a TODO in PyTorch too: only arg{min,max} need not cast to the outputs)."""

    check_mem_overlap_ = False
    promote_inputs_to_common_dtype_ = True
    check_all_same_dtype_ = False
    resize_outputs_ = False
    is_reduction_ = True

    def _trace_summary(self) -> str:
        return "TensorIteratorConfig"  # a trace names the config as PyTorch's one class

    def __init__(self, out: Tensor, a: Tensor, out2: Tensor | None = None) -> None:
        if out2 is None:
            self.tensors_ = [out, a]
            self.const_indices_ = {1}
            self.num_outputs_ = 1
        else:  # reduce_op(values, indices, self): the two-output form
            self.tensors_ = [out, out2, a]
            self.const_indices_ = {2}
            self.num_outputs_ = 2
            self.promote_inputs_to_common_dtype_ = False
        self.num_inputs_ = 1


def binary_op_config() -> TensorIteratorConfig:
    """BINARY_OP_CONFIG(): promote inputs to a common dtype and cast it to the outputs."""
    return (
        TensorIteratorConfig()
        .set_check_mem_overlap(True)
        .allow_cpu_scalars(True)
        .promote_inputs_to_common_dtype(True)
        .cast_common_dtype_to_outputs(True)
        .enforce_safe_casting_to_output(True)
    )


def binary_float_op_config() -> TensorIteratorConfig:
    """BINARY_FLOAT_OP_CONFIG(): a binary op whose integer inputs compute in the default float."""
    return binary_op_config().promote_integer_inputs_to_float(True)


def unary_op_config() -> TensorIteratorConfig:
    """UNARY_OP_CONFIG(): input and output must share one dtype (neg, abs, bitwise_not)."""
    return (
        TensorIteratorConfig()
        .set_check_mem_overlap(True)
        .cast_common_dtype_to_outputs(False)
        .enforce_safe_casting_to_output(False)
        .check_all_same_dtype(True)
    )


def unary_float_op_config() -> TensorIteratorConfig:
    """UNARY_FLOAT_OP_CONFIG(): integer and bool inputs compute in the default float (exp, sin)."""
    return (
        TensorIteratorConfig()
        .set_check_mem_overlap(True)
        .promote_inputs_to_common_dtype(True)
        .cast_common_dtype_to_outputs(True)
        .enforce_safe_casting_to_output(True)
        .promote_integer_inputs_to_float(True)
    )


def set_up_comparison_op_config(config: TensorIteratorConfig, out: Tensor) -> None:
    """Comparisons and logical ops: a bool result unless an out= tensor says otherwise."""
    config.set_check_mem_overlap(True)
    config.allow_cpu_scalars(True)
    config.promote_inputs_to_common_dtype(True)
    if not out.defined():
        config.declare_static_dtype(ScalarType.Bool)
    # Note [special-case bool outputs]: a bool out= needs no common-dtype temporary
    if out.defined() and out.scalar_type() != ScalarType.Bool:
        config.cast_common_dtype_to_outputs(True)


def nullary_op_config() -> TensorIteratorConfig:
    return (
        TensorIteratorConfig()
        .set_check_mem_overlap(True)
        .check_all_same_dtype(False)
        .resize_outputs(False)
    )
