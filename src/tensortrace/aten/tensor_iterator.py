"""TensorIterator: broadcast the operands, pick the dtype, allocate the output, order the loop.

Mirrors `aten/src/ATen/TensorIterator.h` / `TensorIterator.cpp`. `build()` runs PyTorch's steps
in PyTorch's order: populate_operands, mark_outputs, compute_mem_overlaps, compute_shape,
mark_resize_outputs, compute_types, then either fast_set_up or compute_strides,
reorder_dimensions, allocate_or_resize_outputs and coalesce_dimensions. Each step is a frame.

Note [TensorIterator's loop order]
After reorder_dimensions, dimension 0 of the iterator is the *fastest-moving* one (the one with
the smallest strides): the reverse of a C-contiguous tensor's order. Kernels here hand the loop to
NumPy: each operand becomes an array over its storage with the iterator's shape and byte strides,
reversed so that NumPy's row-major walk visits elements in the order PyTorch's loop would.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import Enum
from typing import Any

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.expand_utils import infer_size
from tensortrace.aten.memory_overlap import (
    assert_no_internal_overlap,
    assert_no_partial_overlap,
    is_non_overlapping_and_dense,
)
from tensortrace.aten.native.type_properties import (
    ResultTypeState,
    result_type,
    update_result_type_state,
)
from tensortrace.aten.parallel import GRAIN_SIZE, get_num_threads, parallel_for
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.default_dtype import get_default_dtype
from tensortrace.c10.device import CPU, Device, DeviceType
from tensortrace.c10.exception import TORCH_CHECK, TORCH_INTERNAL_ASSERT, torchCheckFail
from tensortrace.c10.scalar_type import (
    ScalarType,
    canCast,
    elementSize,
    isIntegralType,
)
from tensortrace.c10.tensor_options import TensorOptions
from tensortrace.trace import traced

_CPU_TYPE = DeviceType.CPU

SOURCE = "aten/src/ATen/TensorIterator.cpp"
U = ScalarType.Undefined

# loop(*arrays): one array per operand (outputs first), all of one block's shape, in loop order
Loop = Callable[..., None]


def range_blocks(shape: Sequence[int], begin: int, end: int) -> list[tuple[slice, ...]]:
    """The linear range [begin, end) of a row-major iteration `shape`, as rectangular blocks.

    This is the walk serial_for_each makes over a chunk (DimCounter): a partial first row, whole
    rows, a partial last row, recursively. Every index keeps its dim (slices, not ints), so a
    block of any operand has the same ndim as the operand."""
    if not shape:
        return [()] if begin < end else []
    if len(shape) == 1:
        return [(slice(begin, end),)]
    rest = shape[1:]
    inner = 1
    for size in rest:
        inner *= size
    first, first_offset = divmod(begin, inner)
    last, last_offset = divmod(end, inner)
    if first == last:
        return [
            (slice(first, first + 1), *block)
            for block in range_blocks(rest, first_offset, last_offset)
        ]
    blocks: list[tuple[slice, ...]] = []
    if first_offset:
        blocks += [
            (slice(first, first + 1), *block) for block in range_blocks(rest, first_offset, inner)
        ]
        first += 1
    if last > first:
        blocks.append((slice(first, last), *(slice(None),) * len(rest)))
    if last_offset:
        blocks += [(slice(last, last + 1), *block) for block in range_blocks(rest, 0, last_offset)]
    return blocks


def serial_for_each(loop: Loop, arrays: Sequence[np.ndarray], begin: int, end: int) -> None:
    """at::internal::serial_for_each: `loop` over the elements [begin, end) of the iteration."""
    for block in range_blocks(arrays[0].shape, begin, end):
        loop(*(array[block] for array in arrays))


def _step(name: str, legacy: str | None = None) -> Any:
    return traced(
        "native", f"TensorIteratorBase::{name}", SOURCE, f"at::TensorIteratorBase::{name}", legacy
    )


def sort_dims(perm: list[int], should_swap: Callable[[int, int], int]) -> None:
    """Insertion-sort `perm` in place; should_swap may answer 0 (ambiguous: leave in place).

    The sort of TensorIterator::reorder_dimensions, also used by infer_dense_strides: 1 means
    dim0 goes after dim1, -1 that it goes before, 0 that this pair cannot tell.
    """
    for i in range(1, len(perm)):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            comparison = should_swap(perm[dim0], perm[dim1])
            if comparison > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif comparison < 0:
                break


class FastSetupType(Enum):
    NONE = 0
    CONTIGUOUS = 1
    NON_OVERLAPPING_DENSE = 2


# The undefined Tensor every OperandInfo starts with as its original_tensor: only ever read or
# replaced, never changed in place, so one is shared (a new one per operand cost four calls).
_UNDEFINED = Tensor()


class OperandInfo:
    """One tensor of the iteration, with its byte strides in the iterator's dimension order."""

    __slots__ = (
        "tensor",
        "original_tensor",
        "stride_bytes",
        "target_dtype",
        "current_dtype",
        "device",
        "is_output",
        "is_const",
        "will_resize",
        "is_read_write",
    )

    def __init__(self, tensor: Tensor, is_const: bool = False) -> None:
        self.tensor = tensor
        self.original_tensor = _UNDEFINED
        self.stride_bytes: list[int] = []
        self.is_output = False
        self.is_const = is_const
        self.will_resize = False
        self.is_read_write = False
        impl = tensor.impl_.target_  # Note [Direct reads on hot paths]
        if impl is not None:
            self.target_dtype = self.current_dtype = impl.data_type_.scalar_type
            self.device: Device | None = impl.device_opt_
        else:
            self.target_dtype = self.current_dtype = U
            self.device = None

    def is_type_defined(self) -> bool:
        return self.target_dtype != U

    def options(self) -> TensorOptions:
        return TensorOptions(self.target_dtype, self.device)

    def exchange_tensor(self, new_tensor: Tensor) -> None:
        self.original_tensor = self.tensor
        self.tensor = new_tensor

    def restore_original_tensor(self) -> None:
        self.tensor = self.original_tensor
        self.original_tensor = _UNDEFINED


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
        it = TensorIterator()
        it.build(self)
        return it


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


class TensorIteratorBase:
    """The iteration: operands, the broadcast shape, and the loop order."""

    def __init__(self) -> None:
        self.operands_: list[OperandInfo] = []
        self.num_outputs_ = 0
        self.shape_: list[int] = []
        self.perm_: list[int] = []
        self.common_dtype_ = U
        self.common_device_: Device = CPU
        self.all_ops_same_shape_ = False
        self.all_ops_are_scalars_ = False
        self.has_coalesced_dimensions_ = False
        self.is_reduction_ = False
        self.enforce_linear_iteration_ = False

    # ---- accessors ---------------------------------------------------------------------------
    def ndim(self) -> int:
        return len(self.shape_)

    def ntensors(self) -> int:
        return len(self.operands_)

    def noutputs(self) -> int:
        return self.num_outputs_

    def ninputs(self) -> int:
        return self.ntensors() - self.num_outputs_

    def shape(self) -> tuple[int, ...]:
        return tuple(self.shape_)

    def numel(self) -> int:
        n = 1
        for s in self.shape_:
            n *= s
        return n

    def tensor(self, i: int) -> Tensor:
        return self.operands_[i].tensor

    def output(self, i: int = 0) -> Tensor:
        return self.operands_[i].tensor

    def input(self, i: int = 0) -> Tensor:
        return self.operands_[self.num_outputs_ + i].tensor

    def dtype(self, i: int = 0) -> ScalarType:
        return self.operands_[i].current_dtype

    def input_dtype(self, i: int = 0) -> ScalarType:
        return self.operands_[self.num_outputs_ + i].current_dtype

    def common_dtype(self) -> ScalarType:
        TORCH_INTERNAL_ASSERT(self.common_dtype_ != U, "Queried for invalid common dtype!")
        return self.common_dtype_

    def device_type(self) -> Any:
        return self.common_device_.type_

    def strides(self, i: int) -> list[int]:
        return self.operands_[i].stride_bytes

    def maybe_get_output(self, i: int = 0) -> Tensor:
        return Tensor()

    # ---- reductions (TensorIteratorBase::num_reduce_dims, output_base) ------------------------
    def output_base(self, i: int = 0) -> Tensor:
        return self.operands_[i].tensor

    def num_reduce_dims(self) -> int:
        """The dims along which output 0 does not move (its stride is 0)."""
        return sum(1 for dim in range(self.ndim()) if self.operands_[0].stride_bytes[dim] == 0)

    # ---- convenience builders (TensorIteratorBase::build_*_op) --------------------------------
    @_step("build_borrowing_binary_op", legacy="TensorIterator::binary_op")
    def build_binary_op(self, out: Tensor, a: Tensor, b: Tensor) -> None:
        # binary_op_config().add_output(out).add_const_input(a).add_const_input(b), the setters
        # written out as the fields they set (every binary op builds one)
        config = TensorIteratorConfig()
        config.allow_cpu_scalars_ = True
        config.promote_inputs_to_common_dtype_ = True
        config.cast_common_dtype_to_outputs_ = True
        config.check_all_same_dtype_ = False
        config.enforce_safe_casting_to_output_ = True
        config.tensors_ += (out, a, b)
        config.const_indices_.update((1, 2))
        config.num_outputs_ = 1
        config.num_inputs_ = 2
        self.build(config)

    build_borrowing_binary_op = build_binary_op

    def build_binary_float_op(self, out: Tensor, a: Tensor, b: Tensor) -> None:
        self.build(binary_float_op_config().add_output(out).add_const_input(a).add_const_input(b))

    build_borrowing_binary_float_op = build_binary_float_op

    def build_comparison_op(self, out: Tensor, a: Tensor, b: Tensor) -> None:
        config = TensorIteratorConfig()
        set_up_comparison_op_config(config, out)
        self.build(config.add_output(out).add_const_input(a).add_const_input(b))

    build_borrowing_comparison_op = build_comparison_op
    build_borrowing_except_last_argument_comparison_op = build_comparison_op

    def build_unary_op(self, out: Tensor, a: Tensor) -> None:
        self.build(unary_op_config().add_output(out).add_const_input(a))

    build_borrowing_unary_op = build_unary_op

    def build_output_borrowing_argument_owning_unary_op(self, out: Tensor, a: Tensor) -> None:
        """pow.Tensor_Scalar's builder: the (already promoted) input's dtype is cast to an out=
        tensor of another dtype, if the cast is safe (torch.pow(f32, 2, out=f64) works)."""
        self.build(
            TensorIteratorConfig()
            .set_check_mem_overlap(True)
            .promote_inputs_to_common_dtype(True)
            .cast_common_dtype_to_outputs(True)
            .enforce_safe_casting_to_output(True)
            .add_output(out)
            .add_const_input(a)
        )

    def build_unary_float_op(self, out: Tensor, a: Tensor) -> None:
        self.build(unary_float_op_config().add_output(out).add_const_input(a))

    build_borrowing_unary_float_op = build_unary_float_op

    # ---- build -------------------------------------------------------------------------------
    @_step("build", legacy="TensorIterator::Builder::build")
    def build(self, config: TensorIteratorConfig) -> None:
        self.is_reduction_ = config.is_reduction_
        self.enforce_linear_iteration_ = config.enforce_linear_iteration_
        self.populate_operands(config)
        self.mark_outputs()
        self.compute_mem_overlaps(config)
        self.compute_shape(config)
        self.mark_resize_outputs(config)
        self.compute_types(config)
        if not self.fast_set_up(config):
            self.compute_strides(config)
            self.reorder_dimensions()
            self.allocate_or_resize_outputs()
            self.coalesce_dimensions()

    def populate_operands(self, config: TensorIteratorConfig) -> None:
        const_indices = config.const_indices_
        operands = self.operands_ = []  # a loop, not a comprehension: no frame of its own
        for i, t in enumerate(config.tensors_):
            operands.append(OperandInfo(t, i in const_indices))
        self.num_outputs_ = config.num_outputs_

    @_step("mark_outputs", legacy="TensorIterator::mark_outputs")
    def mark_outputs(self) -> None:
        for i in range(self.num_outputs_):
            op = self.operands_[i]
            op.is_output = True
            if op.tensor.impl_.target_ is None:  # not defined(): Note [Direct reads on hot paths]
                continue
            for arg in range(self.num_outputs_, len(self.operands_)):
                if op.tensor.is_same(self.operands_[arg].tensor):
                    op.is_read_write = True

    def compute_mem_overlaps(self, config: TensorIteratorConfig) -> None:
        if not config.check_mem_overlap_:
            return
        for i in range(self.num_outputs_):
            output = self.operands_[i].tensor
            if output.impl_.target_ is None:
                continue
            assert_no_internal_overlap(output)
            for j in range(self.num_outputs_, len(self.operands_)):
                inp = self.operands_[j].tensor
                if not inp.is_same(output):
                    assert_no_partial_overlap(output, inp)

    @_step("compute_shape", legacy="TensorIterator::compute_shape")
    def compute_shape(self, config: TensorIteratorConfig) -> None:
        if config.static_shape_ is not None:
            self.shape_ = list(config.static_shape_)
            return
        self.all_ops_same_shape_ = True
        has_scalars = has_tensors = False
        shape: tuple[int, ...] | None = None
        for op in self.operands_:
            impl = op.tensor.impl_.target_
            if impl is None:
                continue
            # Outputs that will be resized do not take part (torch.add(..., out=dst) resizes dst).
            if config.resize_outputs_ and op.is_output:
                continue
            sizes = impl.sizes_
            if len(sizes) == 0:
                has_scalars = True
            else:
                has_tensors = True
            if has_scalars and has_tensors:
                self.all_ops_same_shape_ = False
            if shape is None:
                shape = sizes
            elif sizes != shape:
                self.all_ops_same_shape_ = False
                shape = infer_size(shape, sizes)
        self.shape_ = list(shape or ())
        self.all_ops_are_scalars_ = not has_tensors

    def mark_resize_outputs(self, config: TensorIteratorConfig) -> None:
        if config.static_shape_ is not None:
            return
        for i in range(self.num_outputs_):
            output = self.operands_[i].tensor
            impl = output.impl_.target_  # Note [Direct reads on hot paths]
            if impl is not None and list(impl.sizes_) != self.shape_:
                if config.resize_outputs_ and not self.operands_[i].is_read_write:
                    self.operands_[i].will_resize = True
                    continue
                if not self.is_reduction_:  # Note [TORCH_CHECK tests first]
                    torchCheckFail(
                        "output with shape ",
                        list(output.sizes()),
                        " doesn't match the broadcast shape ",
                        self.shape_,
                    )

    def compute_common_dtype(self) -> ScalarType:
        state = ResultTypeState()
        for op in self.operands_:
            if not op.is_output:
                state = update_result_type_state(op.tensor, state)
        self.common_dtype_ = result_type(state)
        return self.common_dtype_

    @_step("compute_types", legacy="TensorIterator::compute_types")
    def compute_types(self, config: TensorIteratorConfig) -> None:
        common_device = CPU
        self.common_dtype_ = U
        output_dtype = U
        has_different_input_dtypes = has_different_output_dtypes = has_undefined_outputs = False
        for op in self.operands_:
            if op.target_dtype == U:  # not op.is_type_defined()
                TORCH_INTERNAL_ASSERT(op.is_output, "Found type undefined input tensor!")
                if config.static_dtype_ is not None:
                    op.target_dtype = config.static_dtype_
                else:
                    has_undefined_outputs = True
                continue
            if op.tensor.impl_.target_ is None:
                continue
            # the first non-CPU device (if any) is the common device
            device = op.device  # set for every defined operand
            if (
                device is not None
                and common_device.type_ is _CPU_TYPE
                and device.type_ is not _CPU_TYPE
            ):
                common_device = device
            if not op.is_output:
                if op.target_dtype != self.common_dtype_:
                    if self.common_dtype_ == U:
                        self.common_dtype_ = op.target_dtype
                    else:
                        has_different_input_dtypes = True
            elif op.target_dtype != output_dtype:
                if output_dtype == U:
                    output_dtype = op.target_dtype
                else:
                    has_different_output_dtypes = True

        if config.check_all_same_dtype_ and (
            has_different_input_dtypes
            or has_different_output_dtypes
            or (self.common_dtype_ != output_dtype and output_dtype != U)
        ):
            for op in self.operands_:
                if op.tensor.defined():
                    TORCH_CHECK(
                        op.target_dtype == self.common_dtype_,
                        "Found dtype ",
                        op.target_dtype,
                        " but expected ",
                        self.common_dtype_,
                    )

        if (
            not has_undefined_outputs
            and not config.check_all_same_device_
            and not config.promote_inputs_to_common_dtype_
            and not config.cast_common_dtype_to_outputs_
            and not config.enforce_safe_casting_to_output_
        ):
            self.common_dtype_ = U if has_different_input_dtypes else self.common_dtype_
            return

        if (
            has_different_input_dtypes or self.all_ops_are_scalars_
        ) and config.promote_inputs_to_common_dtype_:
            self.compute_common_dtype()

        if config.promote_integer_inputs_to_float_ and isIntegralType(self.common_dtype_, True):
            self.common_dtype_ = get_default_dtype()

        self.common_device_ = common_device
        cpu_scalars_on_non_cpu = 0
        for op in self.operands_:
            if op.target_dtype == U:
                op.target_dtype = self.common_dtype_
            if op.device is None:
                op.device = common_device
            if op.tensor.impl_.target_ is None:
                continue
            if config.check_all_same_device_:
                # a CUDA kernel that supports it takes a 0-dim CPU tensor as a scalar argument
                if (
                    common_device.type_ is not _CPU_TYPE
                    and config.allow_cpu_scalars_
                    and not op.is_output
                    and op.tensor.dim() == 0
                    and op.device.type_ is _CPU_TYPE
                ):
                    TORCH_CHECK(
                        cpu_scalars_on_non_cpu < 1,
                        "Trying to pass too many CPU scalars to non-CPU kernel!",
                    )
                    cpu_scalars_on_non_cpu += 1
                elif op.device is not common_device and op.device != common_device:
                    torchCheckFail(
                        "Expected all tensors to be on the same device, but found at "
                        "least two devices, ",
                        common_device,
                        " and ",
                        op.device,
                        "!",
                    )
            if (
                config.enforce_safe_casting_to_output_
                and op.is_output
                and op.current_dtype != self.common_dtype_
            ):
                TORCH_CHECK(
                    canCast(self.common_dtype_, op.current_dtype),
                    "result type ",
                    self.common_dtype_,
                    " can't be cast to the desired output type ",
                    op.current_dtype,
                )
            # CPU kernels compute in one dtype: make temporaries of the common dtype.
            if (
                config.cast_common_dtype_to_outputs_
                and op.is_output
                and op.current_dtype != self.common_dtype_
            ):
                # on the output's device (a CPU output's call stays as it always was)
                device = None if op.tensor.is_cpu() else op.tensor.device()
                op.exchange_tensor(
                    at.empty(list(op.tensor.sizes()), dtype=self.common_dtype_, device=device)
                )
                op.current_dtype = op.target_dtype = self.common_dtype_
            if (
                config.promote_inputs_to_common_dtype_
                and not op.is_output
                and op.current_dtype != self.common_dtype_
            ):
                op.exchange_tensor(op.tensor.to(self.common_dtype_))
                op.current_dtype = op.target_dtype = self.common_dtype_

    def compute_fast_setup_type(self) -> FastSetupType:
        if self.is_reduction_ or not self.all_ops_same_shape_:
            return FastSetupType.NONE
        defined: list[Tensor] = []  # loops, not comprehensions: no frames of their own
        is_contiguous = True  # all(t.is_contiguous() ...)
        for op in self.operands_:
            impl = op.tensor.impl_.target_
            if impl is not None and not op.will_resize:
                defined.append(op.tensor)
                if not impl.is_contiguous_:
                    is_contiguous = False
        if self.enforce_linear_iteration_:
            return FastSetupType.CONTIGUOUS if is_contiguous else FastSetupType.NONE
        if is_contiguous:
            return FastSetupType.CONTIGUOUS
        if all(is_non_overlapping_and_dense(t.sizes(), t.strides()) for t in defined):
            # only when every operand has the same strides (inputs checked first, as PyTorch)
            if len({t.strides() for t in defined}) == 1:
                return FastSetupType.NON_OVERLAPPING_DENSE
        return FastSetupType.NONE

    @_step("fast_set_up")
    def fast_set_up(self, config: TensorIteratorConfig) -> bool:
        """Same-shape contiguous (or same-strided dense) operands: one flat loop, no reordering."""
        setup = self.compute_fast_setup_type()
        if setup == FastSetupType.NONE:
            return False
        shape = tuple(self.shape_)
        if setup == FastSetupType.CONTIGUOUS:
            for i in range(self.num_outputs_):
                self.set_output_raw_strided(i, shape, (), self.original_options(self.operands_[i]))
        else:
            defined = next(op for op in reversed(self.operands_) if op.tensor.defined())
            strides = defined.tensor.strides()
            for i in range(self.num_outputs_):
                self.set_output_raw_strided(
                    i, shape, strides, self.original_options(self.operands_[i])
                )
        ndim = len(self.shape_)
        if ndim > 1:
            self.has_coalesced_dimensions_ = True
        if ndim >= 1:
            numel = 1
            for size in self.shape_:
                numel *= size
            self.shape_ = [numel]
            # one flat dimension, walked in memory order: the stride is one element
            for op in self.operands_:
                impl = op.tensor.impl_.target_  # element_size(), read directly
                if impl is None:
                    raise RuntimeError("intrusive_ptr is null")
                op.stride_bytes = [impl.data_type_.itemsize]
        else:
            for op in self.operands_:
                op.stride_bytes = []
        return True

    @_step("compute_strides", legacy="TensorIterator::compute_strides")
    def compute_strides(self, config: TensorIteratorConfig) -> None:
        ndim = len(self.shape_)
        for op in self.operands_:
            impl = op.tensor.impl_.target_  # Note [Direct reads on hot paths]
            if impl is not None and not op.will_resize:
                original_shape = (
                    tuple(self.shape_) if config.static_shape_ is not None else impl.sizes_
                )
                original_stride = impl.strides_
                element_size = impl.data_type_.itemsize
                offset = ndim - len(original_shape)
                stride_bytes = [0] * ndim
                for i, size in enumerate(original_shape):
                    # a broadcast dimension (size 1 against a larger size) gets stride 0
                    if size == 1 and self.shape_[offset + i] != 1:
                        stride_bytes[offset + i] = 0
                    else:
                        stride_bytes[offset + i] = original_stride[i] * element_size
                op.stride_bytes = stride_bytes

    @_step("reorder_dimensions", legacy="TensorIterator::reorder_dimensions")
    def reorder_dimensions(self) -> None:
        """Sort dims by stride, fastest first (Note [TensorIterator's loop order])."""
        ndim = len(self.shape_)
        if ndim == 1:
            self.perm_ = [0]
            return
        self.perm_ = list(range(ndim - 1, -1, -1))
        if self.enforce_linear_iteration_:
            self.permute_dimensions(self.perm_)
            return

        def should_swap(dim0: int, dim1: int) -> int:
            for op in self.operands_:
                if not op.stride_bytes or op.will_resize:
                    continue
                stride0, stride1 = op.stride_bytes[dim0], op.stride_bytes[dim1]
                if self.is_reduction_ and op.is_output and (stride0 == 0) != (stride1 == 0):
                    return 1 if stride1 == 0 else -1
                if stride0 == 0 or stride1 == 0:
                    continue
                if stride0 < stride1:
                    return -1
                if stride0 > stride1:
                    return 1
                if self.shape_[dim0] > self.shape_[dim1]:
                    return 1
            return 0

        sort_dims(self.perm_, should_swap)
        self.permute_dimensions(self.perm_)

    def permute_dimensions(self, perm: Sequence[int]) -> None:
        self.shape_ = [self.shape_[p] for p in perm]
        for op in self.operands_:
            if op.stride_bytes:
                op.stride_bytes = [op.stride_bytes[p] for p in perm]

    def invert_perm(self, values: Sequence[int]) -> list[int]:
        TORCH_INTERNAL_ASSERT(not self.has_coalesced_dimensions_)
        res = [0] * len(values)
        for dim, p in enumerate(self.perm_):
            res[p] = values[dim]
        return res

    def compatible_stride(self, element_size: int) -> list[int]:
        strides, next_stride = [], element_size
        for size in self.shape_:
            strides.append(next_stride)
            next_stride *= size
        return strides

    @_step("allocate_or_resize_outputs", legacy="TensorIterator::allocate_outputs")
    def allocate_or_resize_outputs(self) -> None:
        for i in range(self.num_outputs_):
            op = self.operands_[i]
            if not op.tensor.defined() or op.will_resize:
                element_size = elementSize(op.target_dtype)
                op.stride_bytes = self.compatible_stride(element_size)
                ndim = len(self.shape_)
                inverted = all(self.perm_[j] == ndim - j - 1 for j in range(ndim))
                tensor_shape = tuple(self.invert_perm(self.shape_))
                if inverted:
                    # the loop order is plain row-major: a contiguous output fits it
                    self.set_output_raw_strided(i, tensor_shape, (), self.original_options(op))
                else:
                    tensor_stride = tuple(
                        s // element_size for s in self.invert_perm(op.stride_bytes)
                    )
                    self.set_output_raw_strided(
                        i, tensor_shape, tensor_stride, self.original_options(op)
                    )
                op.current_dtype = op.target_dtype
            elif op.tensor.defined():
                self.set_output_raw_strided(i, op.tensor.sizes(), (), self.original_options(op))

    @_step("coalesce_dimensions")
    def coalesce_dimensions(self) -> None:
        """Merge adjacent dims that step through memory as one (shape[n]*stride[n]==stride[n+1])."""
        if len(self.shape_) <= 1:
            return

        def can_coalesce(dim0: int, dim1: int) -> bool:
            shape0, shape1 = self.shape_[dim0], self.shape_[dim1]
            if shape0 == 1 or shape1 == 1:
                return True
            return all(
                shape0 * op.stride_bytes[dim0] == op.stride_bytes[dim1] for op in self.operands_
            )

        def replace_stride(dim0: int, dim1: int) -> None:
            for op in self.operands_:
                op.stride_bytes[dim0] = op.stride_bytes[dim1]

        prev_dim = 0
        for dim in range(1, len(self.shape_)):
            if can_coalesce(prev_dim, dim):
                if self.shape_[prev_dim] == 1:
                    replace_stride(prev_dim, dim)
                self.shape_[prev_dim] *= self.shape_[dim]
            else:
                prev_dim += 1
                if prev_dim != dim:
                    replace_stride(prev_dim, dim)
                    self.shape_[prev_dim] = self.shape_[dim]
        del self.shape_[prev_dim + 1 :]
        for op in self.operands_:
            del op.stride_bytes[prev_dim + 1 :]
        self.has_coalesced_dimensions_ = True

    # ---- outputs -----------------------------------------------------------------------------
    @staticmethod
    def original_options(op: OperandInfo) -> TensorOptions:
        """The options of the output the caller gave (not of a common-dtype temporary)."""
        if op.original_tensor.impl_.target_ is not None:
            return op.original_tensor.options()
        return TensorOptions(op.target_dtype, op.device)  # op.options(), written out

    def set_output_raw_strided(
        self, output_idx: int, sizes: Sequence[int], strides: Sequence[int], options: TensorOptions
    ) -> None:
        raise NotImplementedError

    def _adopt_output(self, output_idx: int, tensor: Tensor) -> None:
        """Record the (possibly new) output tensor in its operand, keeping a cast temporary."""
        op = self.operands_[output_idx]
        if op.original_tensor.impl_.target_ is not None:  # Note [Direct reads on hot paths]
            # compute_types made a temporary in the common dtype; the real output is original
            op.original_tensor = tensor
        else:
            op.tensor = tensor
            op.current_dtype = tensor.scalar_type()

    def cast_outputs(self) -> None:
        """Copy each common-dtype temporary back into its real output (cast_outputs)."""
        for op in self.operands_:
            if (
                op.is_output
                and op.original_tensor.impl_.target_ is not None
                and op.original_tensor.scalar_type() != op.current_dtype
            ):
                op.original_tensor.copy_(op.tensor)
                op.restore_original_tensor()

    # ---- NumPy views in loop order (Note [TensorIterator's loop order]) ----------------------
    def operand_array(self, i: int, byte_offset: int = 0) -> np.ndarray:
        """Operand i as an array in loop order; `byte_offset` bumps its base pointer."""
        op = self.operands_[i]
        impl = op.tensor.impl_.target_  # Note [Direct reads on hot paths]
        if impl is None:
            raise RuntimeError("intrusive_ptr is null")  # what unsafeGetTensorImpl() raises
        dtype = impl.data_type_.numpy  # op.current_dtype: a cast temporary has its own impl
        shape = tuple(reversed(self.shape_))
        if 0 in shape:
            return np.empty(shape, dtype)
        storage_impl = impl.storage_.storage_impl_.target_  # unsafeGetStorageImpl(), read directly
        if storage_impl is None:
            raise RuntimeError("intrusive_ptr is null")
        storage = storage_impl.data_ptr_.ctx  # bytes_view(), read directly
        if storage is None:
            storage = np.empty(0, np.uint8)
        itemsize = impl.data_type_.itemsize
        if len(shape) == 1 and op.stride_bytes[0] == itemsize:
            # the contiguous fast path (one flat dimension, fast_set_up's): frombuffer makes
            # the same writable view as np.ndarray(buffer=...) at about a third of the cost
            return np.frombuffer(
                storage, dtype, shape[0], impl.storage_offset_ * itemsize + byte_offset
            )
        return np.ndarray(
            shape,
            dtype,
            buffer=storage,
            offset=impl.storage_offset_ * impl.data_type_.itemsize + byte_offset,
            strides=tuple(reversed(op.stride_bytes)),
        )

    def operand_arrays(self) -> list[np.ndarray]:
        arrays = []  # a loop, not a comprehension: no frame of its own
        for i in range(len(self.operands_)):
            arrays.append(self.operand_array(i))
        return arrays

    def element_size(self, arg: int) -> int:
        return elementSize(self.dtype(arg))

    def is_dim_reduced(self, dim: int) -> bool:
        """An output does not move along `dim`, and the input has more than one element there."""
        return any(
            op.is_output and op.stride_bytes[dim] == 0 and self.shape_[dim] > 1
            for op in self.operands_
        )

    # ---- running a loop (TensorIteratorBase::for_each, serial_for_each) -----------------------
    def for_each(self, loop: Loop, grain_size: int = GRAIN_SIZE) -> None:
        """Run `loop` over every element: serially below grain_size, else with parallel_for.

        `loop(*arrays)` gets one array per operand, all of the same shape (a block of the
        iteration space); it must only run NumPy (Note [What runs on the worker threads])."""
        numel = 1  # self.numel(), written out
        for size in self.shape_:
            numel *= size
        if numel == 0:
            return
        arrays = self.operand_arrays()
        if numel < grain_size or get_num_threads() == 1:
            loop(*arrays)  # serial_for_each(loop, {0, numel}): the whole range in one block
            return
        parallel_for(
            0, numel, grain_size, lambda begin, end: serial_for_each(loop, arrays, begin, end)
        )


class TensorIterator(TensorIteratorBase):
    """An iterator whose undefined outputs are allocated through the dispatcher."""

    def set_output_raw_strided(
        self, output_idx: int, sizes: Sequence[int], strides: Sequence[int], options: TensorOptions
    ) -> None:
        op = self.operands_[output_idx]
        if op.tensor.impl_.target_ is None:
            if not strides:
                tensor = at.empty(list(sizes), dtype=options.dtype, device=options.device)
            else:
                tensor = at.empty_strided(
                    list(sizes), list(strides), dtype=options.dtype, device=options.device
                )
            self._adopt_output(output_idx, tensor)
        elif op.will_resize:
            from tensortrace.aten.native.resize import resize_output, setStrided

            resize_output(op.tensor, sizes)
            if strides:
                # the loop order was permuted: the output takes the inputs' layout (as_strided_)
                setStrided(op.tensor, sizes, strides, op.tensor.storage_offset())

    @staticmethod
    def binary_op(out: Tensor, a: Tensor, b: Tensor) -> TensorIterator:
        it = TensorIterator()
        it.build_binary_op(out, a, b)
        return it

    borrowing_binary_op = binary_op

    @staticmethod
    def comparison_op(out: Tensor, a: Tensor, b: Tensor) -> TensorIterator:
        it = TensorIterator()
        it.build_comparison_op(out, a, b)
        return it

    @staticmethod
    def unary_op(out: Tensor, a: Tensor) -> TensorIterator:
        it = TensorIterator()
        it.build_unary_op(out, a)
        return it

    @staticmethod
    def unary_float_op(out: Tensor, a: Tensor) -> TensorIterator:
        it = TensorIterator()
        it.build_unary_float_op(out, a)
        return it

    @staticmethod
    def nullary_op(out: Tensor) -> TensorIterator:
        # nullary_op_config().add_output(out).build(), the setters written out as the fields
        # they set (every factory with random or filled values builds one)
        config = TensorIteratorConfig()
        config.check_all_same_dtype_ = False
        config.resize_outputs_ = False
        config.tensors_.append(out)
        config.num_outputs_ = 1
        it = TensorIterator()
        it.build(config)
        return it

    borrowing_nullary_op = nullary_op

    @staticmethod
    def reduce_op(out: Tensor, a: Tensor, out2: Tensor | None = None) -> TensorIterator:
        """An iterator over (out, a) where `out` has stride 0 along the reduced dims.

        The outputs keep their shapes (resize_outputs(false)); compute_shape broadcasts them
        against the input, so a reduced dim is one where the output's stride is 0.
        """
        # the config's setters written out as the fields they set (every reduction builds
        # one or three of these): set_check_mem_overlap(false), add_output(out)[, add_output(
        # out2), check_all_same_dtype(false)], add_const_input(a), resize_outputs(false),
        # is_reduction(true)
        config = TensorIteratorConfig()
        config.check_mem_overlap_ = False
        tensors = config.tensors_
        tensors.append(out)
        if out2 is not None:  # reduce_op(values, indices, self): the two-output form
            tensors.append(out2)
        else:
            # TODO in PyTorch too: only arg{min,max} need not cast to the outputs
            # (promote_inputs_to_common_dtype(true), which also clears check_all_same_dtype)
            config.promote_inputs_to_common_dtype_ = True
        config.check_all_same_dtype_ = False
        config.num_outputs_ = len(tensors)
        config.const_indices_.add(len(tensors))
        tensors.append(a)
        config.num_inputs_ = 1
        config.resize_outputs_ = False
        config.is_reduction_ = True
        it = TensorIterator()
        it.build(config)
        return it
