"""TensorIterator: broadcast the operands, pick the dtype, allocate the output, order the loop.

Mirrors `aten/src/ATen/TensorIterator.h` / `TensorIterator.cpp`. `build()` runs PyTorch's steps
in PyTorch's order: populate_operands, mark_outputs, compute_mem_overlaps, compute_shape,
mark_resize_outputs, compute_types, then either fast_set_up or compute_strides,
reorder_dimensions, allocate_or_resize_outputs and coalesce_dimensions. Each step is a frame.
The class is split along its halves: tensor_iterator_config.py (TensorIteratorConfig),
tensor_iterator_operands.py (OperandInfo and the operand and dtype steps) and
tensor_iterator_loops.py (accessors, NumPy views, for_each); TensorIteratorBase inherits both.

Note [TensorIterator's loop order]
After reorder_dimensions, dimension 0 of the iterator is the *fastest-moving* one (the one with
the smallest strides): the reverse of a C-contiguous tensor's order. Kernels here hand the loop to
NumPy: each operand becomes an array over its storage with the iterator's shape and byte strides,
reversed so that NumPy's row-major walk visits elements in the order PyTorch's loop would.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import Enum
from math import prod

from tensortrace.aten import functions as at
from tensortrace.aten import tensor_iterator_geometry as geometry_cache
from tensortrace.aten.expand_utils import infer_size
from tensortrace.aten.memory_overlap import is_non_overlapping_and_dense
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator_config import (
    BinaryOpConfig,
    ReduceOpConfig,
    TensorIteratorConfig,
    binary_float_op_config,
    set_up_comparison_op_config,
    unary_float_op_config,
    unary_op_config,
)
from tensortrace.aten.tensor_iterator_loops import (
    TensorIteratorLoops,
    range_blocks,
    serial_for_each,
)
from tensortrace.aten.tensor_iterator_operands import (
    OperandInfo,
    TensorIteratorOperands,
    _step,
)
from tensortrace.c10.device import CPU, Device
from tensortrace.c10.exception import TORCH_INTERNAL_ASSERT
from tensortrace.c10.scalar_type import ScalarType, elementSize
from tensortrace.c10.tensor_options import TensorOptions
from tensortrace.trace import recorder

# names other modules import from here, though the split modules hold them
__all__ = [
    "TensorIterator",
    "TensorIteratorBase",
    "TensorIteratorConfig",
    "range_blocks",
    "serial_for_each",
    "sort_dims",
]

U = ScalarType.Undefined


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


class TensorIteratorBase(TensorIteratorOperands, TensorIteratorLoops):
    """The iteration: operands, the broadcast shape, and the loop order."""

    # the fields' immutable defaults, as class attributes: an iterator stores only what its
    # build changes (every op builds one or two); but common_dtype_ and common_device_, set by
    # __init__ (Note [No class default of a Python-defined type])
    num_outputs_ = 0
    all_ops_same_shape_ = False
    all_ops_are_scalars_ = False
    has_coalesced_dimensions_ = False
    is_reduction_ = False
    enforce_linear_iteration_ = False

    # Note [No class default of a Python-defined type]
    # CPython 3.11 specializes no read or write of an instance attribute whose class also holds
    # a value of a Python-defined type under that name (an enum member, a Device): every access
    # takes the generic path. An int, bool or None default is no obstacle. So the iterator's
    # common dtype and device start on the instance (a kernel reads them on every call).
    def __init__(self) -> None:
        self.operands_: list[OperandInfo] = []
        self.shape_: list[int] = []
        self.perm_: list[int] = []
        self.common_dtype_: ScalarType = U
        self.common_device_: Device = CPU

    # ---- convenience builders (TensorIteratorBase::build_*_op) --------------------------------
    @_step("build_borrowing_binary_op", legacy="TensorIterator::binary_op")
    def build_binary_op(self, out: Tensor, a: Tensor, b: Tensor) -> None:
        self.build(BinaryOpConfig(out, a, b))

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
        output_calls: list[geometry_cache.OutputCall] | None = None  # of a build to store
        if recorder.current is None:  # Note [TensorIterator's geometry cache]
            key = geometry_cache.geometry_key(config)
            geometry = geometry_cache.CACHE.get(key)
            if geometry is not None:
                geometry.apply(self, config)
                return
            self.output_calls_ = output_calls = []
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
        if output_calls is not None:
            geometry_cache.store(key, self, output_calls)
            del self.output_calls_  # the class default again

    @_step("compute_shape", legacy="TensorIterator::compute_shape")
    def compute_shape(self, config: TensorIteratorConfig) -> None:
        if config.static_shape_ is not None:
            self.shape_ = list(config.static_shape_)
            return
        # all_ops_same_shape_: no operand broadcasts (a 0-dim operand among n-dim ones has other
        # sizes too); all_ops_are_scalars_: the broadcast shape is () (or there is no operand)
        resize_outputs = config.resize_outputs_
        same_shape = True
        shape: tuple[int, ...] | None = None
        for op in self.operands_:
            impl = op.tensor.impl_.target_
            # Outputs that will be resized do not take part (torch.add(..., out=dst) resizes dst).
            if impl is None or (resize_outputs and op.is_output):
                continue
            sizes = impl.sizes_
            if shape is None:
                shape = sizes
            elif sizes != shape:
                same_shape = False
                shape = infer_size(shape, sizes)
        self.shape_ = list(shape) if shape else []
        self.all_ops_same_shape_ = same_shape
        self.all_ops_are_scalars_ = not shape

    def compute_fast_setup_type(self) -> FastSetupType:
        if self.is_reduction_ or not self.all_ops_same_shape_:
            return FastSetupType.NONE
        is_contiguous = True  # all(t.is_contiguous() ...) over the defined operands
        for op in self.operands_:  # loops, not comprehensions: no frames of their own
            impl = op.tensor.impl_.target_
            if impl is not None and not op.will_resize and not impl.is_contiguous_:
                is_contiguous = False
                break
        if self.enforce_linear_iteration_:
            return FastSetupType.CONTIGUOUS if is_contiguous else FastSetupType.NONE
        if is_contiguous:
            return FastSetupType.CONTIGUOUS
        defined: list[Tensor] = []
        for op in self.operands_:
            if op.tensor.impl_.target_ is not None and not op.will_resize:
                defined.append(op.tensor)
        if all(is_non_overlapping_and_dense(t.sizes(), t.strides()) for t in defined):
            # only when every operand has the same strides (inputs checked first, as PyTorch)
            if len({t.strides() for t in defined}) == 1:
                return FastSetupType.NON_OVERLAPPING_DENSE
        return FastSetupType.NONE

    @_step("fast_set_up")
    def fast_set_up(self, config: TensorIteratorConfig) -> bool:
        """Same-shape contiguous (or same-strided dense) operands: one flat loop, no reordering."""
        setup = self.compute_fast_setup_type()
        if setup is FastSetupType.NONE:
            return False
        operands = self.operands_
        shape = self.shape_
        if setup is FastSetupType.CONTIGUOUS:
            strides: tuple[int, ...] = ()
        else:
            defined = next(op for op in reversed(operands) if op.tensor.defined())
            strides = defined.tensor.strides()
        sizes = tuple(shape)
        for i in range(self.num_outputs_):
            self._set_output(i, sizes, strides, self.original_options(operands[i]))
        ndim = len(shape)
        if ndim > 1:
            self.has_coalesced_dimensions_ = True
        if ndim >= 1:
            self.shape_ = [prod(shape)]
            # one flat dimension, walked in memory order: the stride is one element
            for op in operands:
                impl = op.tensor.impl_.target_  # element_size(), read directly
                if impl is None:
                    raise RuntimeError("intrusive_ptr is null")
                op.stride_bytes = [impl.data_type_.itemsize]
        else:
            for op in operands:
                op.stride_bytes = []
        return True

    @_step("compute_strides", legacy="TensorIterator::compute_strides")
    def compute_strides(self, config: TensorIteratorConfig) -> None:
        shape = self.shape_
        ndim = len(shape)
        broadcast_shape = tuple(shape)
        static_shape = config.static_shape_
        for op in self.operands_:
            impl = op.tensor.impl_.target_  # Note [Direct reads on hot paths]
            if impl is None or op.will_resize:
                continue
            original_shape = static_shape if static_shape is not None else impl.sizes_
            element_size = impl.data_type_.itemsize
            if original_shape == broadcast_shape:  # nothing broadcast: every stride in bytes
                op.stride_bytes = list(map(element_size.__mul__, impl.strides_))
                continue
            offset = ndim - len(original_shape)
            stride_bytes = [0] * offset  # new leading dims are broadcast: stride 0
            for size, broadcast_size, stride in zip(
                original_shape, shape[offset:] if offset else shape, impl.strides_
            ):
                # a broadcast dimension (size 1 against a larger size) gets stride 0
                if size == 1 and broadcast_size != 1:
                    stride_bytes.append(0)
                else:
                    stride_bytes.append(stride * element_size)
            op.stride_bytes = stride_bytes

    @_step("reorder_dimensions", legacy="TensorIterator::reorder_dimensions")
    def reorder_dimensions(self) -> None:
        """Sort dims by stride, fastest first (Note [TensorIterator's loop order])."""
        ndim = len(self.shape_)
        if ndim == 1:
            self.perm_ = [0]
            return
        reverse_order = list(range(ndim - 1, -1, -1))
        self.perm_ = reverse_order.copy()
        if self.enforce_linear_iteration_:
            self.permute_dimensions(self.perm_)
            return

        operands, shape, is_reduction = self.operands_, self.shape_, self.is_reduction_

        def should_swap(dim0: int, dim1: int) -> int:
            for op in operands:
                stride_bytes = op.stride_bytes
                if not stride_bytes or op.will_resize:
                    continue
                stride0, stride1 = stride_bytes[dim0], stride_bytes[dim1]
                if is_reduction and op.is_output and (stride0 == 0) != (stride1 == 0):
                    return 1 if stride1 == 0 else -1
                if stride0 == 0 or stride1 == 0:
                    continue
                if stride0 < stride1:
                    return -1
                if stride0 > stride1:
                    return 1
                if shape[dim0] > shape[dim1]:
                    return 1
            return 0

        perm = self.perm_
        if ndim == 2:  # sort_dims of two dims: one comparison
            if should_swap(1, 0) > 0:
                perm.reverse()
        else:
            sort_dims(perm, should_swap)
        self.permute_dimensions(perm, perm == reverse_order)

    def permute_dimensions(self, perm: Sequence[int], reverses: bool = False) -> None:
        """Reorder the shape and every operand's strides by `perm` (`reverses`: perm is
        ndim-1, ..., 0, the common case of a row-major layout, done as an in-place reverse)."""
        if reverses:
            self.shape_.reverse()
            for op in self.operands_:
                op.stride_bytes.reverse()  # each operand's own list, built by compute_strides
            return
        # [shape[p] for p in perm], as map: a comprehension is a Python frame of its own
        self.shape_ = list(map(self.shape_.__getitem__, perm))
        for op in self.operands_:
            if op.stride_bytes:
                op.stride_bytes = list(map(op.stride_bytes.__getitem__, perm))

    def invert_perm(self, values: Sequence[int]) -> list[int]:
        if self.has_coalesced_dimensions_:  # Note [TORCH_CHECK tests first]
            TORCH_INTERNAL_ASSERT(False)
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
            defined = op.tensor.impl_.target_ is not None  # Note [Direct reads on hot paths]
            if not defined or op.will_resize:
                element_size = elementSize(op.target_dtype)
                op.stride_bytes = self.compatible_stride(element_size)
                ndim = len(self.shape_)
                # all(perm[j] == ndim - j - 1): the perm is the identity reversed
                inverted = self.perm_ == list(range(ndim - 1, -1, -1))
                tensor_shape = tuple(self.invert_perm(self.shape_))
                if inverted:
                    # the loop order is plain row-major: a contiguous output fits it
                    self._set_output(i, tensor_shape, (), self.original_options(op))
                else:
                    tensor_stride = tuple(
                        s // element_size for s in self.invert_perm(op.stride_bytes)
                    )
                    self._set_output(i, tensor_shape, tensor_stride, self.original_options(op))
                op.current_dtype = op.target_dtype
            elif defined:
                self._set_output(i, op.tensor.sizes(), (), self.original_options(op))

    @_step("coalesce_dimensions")
    def coalesce_dimensions(self) -> None:
        """Merge adjacent dims that step through memory as one (shape[n]*stride[n]==stride[n+1])."""
        shape = self.shape_
        if len(shape) <= 1:
            return
        operands = self.operands_
        prev_dim = 0
        for dim in range(1, len(shape)):
            shape0, shape1 = shape[prev_dim], shape[dim]
            # can_coalesce(prev_dim, dim): a size-1 dim, or every operand steps across both
            # dims as across one
            can_coalesce = True
            if shape0 != 1 and shape1 != 1:
                for op in operands:
                    if shape0 * op.stride_bytes[prev_dim] != op.stride_bytes[dim]:
                        can_coalesce = False
                        break
            if can_coalesce:
                if shape0 == 1:
                    for op in operands:  # replace_stride(prev_dim, dim)
                        op.stride_bytes[prev_dim] = op.stride_bytes[dim]
                shape[prev_dim] = shape0 * shape1
            else:
                prev_dim += 1
                if prev_dim != dim:
                    for op in operands:  # replace_stride(prev_dim, dim)
                        op.stride_bytes[prev_dim] = op.stride_bytes[dim]
                    shape[prev_dim] = shape1
        del shape[prev_dim + 1 :]
        for op in operands:
            del op.stride_bytes[prev_dim + 1 :]
        self.has_coalesced_dimensions_ = True


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
        it = TensorIterator()
        it.build(ReduceOpConfig(out, a, out2))
        return it
