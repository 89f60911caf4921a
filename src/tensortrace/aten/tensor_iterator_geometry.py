"""TensorIterator's geometry cache: what a build computes, keyed by everything it depends on.

No PyTorch counterpart: PyTorch's build is C++ and costs little; here it is most of a small op's
fixed cost. TensorIteratorBase.build (tensor_iterator.py) looks a build up here while no trace
records, and stores one it has just made.

Note [TensorIterator's geometry cache]
Of what build() computes, everything but its side effects is a pure function of the config's
flags and of each operand's geometry: the broadcast shape (compute_shape), the common dtype and
device and each operand's dtypes (compute_types), the loop order (fast_set_up, or
compute_strides and reorder_dimensions), the outputs' sizes and strides
(allocate_or_resize_outputs) and the coalesced shape and byte strides (coalesce_dimensions).
So a build's result is kept under a key made of exactly those inputs:
- the config's flags (every field a setter can change, and the number of outputs);
- per operand, defined or not, and if defined its sizes, strides, dtype, device (type and
  index) and wrapped-number flag (type promotion treats a wrapped Python scalar apart);
- per output, the inputs it is (mark_outputs' is_read_write);
- the default dtype, where promotion reads it (integer inputs promoted to float, or a wrapped
  number among the operands).
A build with the same key reaches the same values, so a hit sets them at once and skips the
steps; the OperandInfos are made with their final fields. What is not geometry still runs on
every build, in a miss's order: compute_mem_overlaps (it reads the operands' storages), then
compute_types' promotion of inputs to the common dtype (`op.tensor.to(common_dtype)`, a new
tensor made through the dispatcher: `x * 2` promotes its wrapped 2), then the calls to
set_output_raw_strided, replayed with the arguments the miss made them with (they allocate or
resize the outputs: their allocations, warnings and errors are a miss's). A build that
computed an output in another dtype (a temporary the output is later copied back into) is not
stored. The cache is used only while no trace records, so a traced build runs, and
records, every step as before. It keeps no tensor alive: a key holds sizes, strides, dtypes and
devices only. tests/aten/test_tensor_iterator_geometry.py has a case for each input of the key.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from tensortrace.aten.tensor_iterator_config import TensorIteratorConfig
from tensortrace.aten.tensor_iterator_operands import UNDEFINED_TENSOR, OperandInfo
from tensortrace.c10.default_dtype import get_default_dtype
from tensortrace.c10.device import Device
from tensortrace.c10.scalar_type import ScalarType
from tensortrace.c10.tensor_options import TensorOptions

if TYPE_CHECKING:
    from tensortrace.aten.tensor_iterator import TensorIteratorBase

# a set_output_raw_strided call of a build: (output_idx, sizes, strides, options)
OutputCall = tuple[int, Sequence[int], Sequence[int], TensorOptions]
# an operand's fields after a build, but its tensors and byte strides: (target_dtype,
# current_dtype, device, is_output, is_read_write, will_resize)
OperandFields = tuple[ScalarType, ScalarType, Device | None, bool, bool, bool]

MAX_ENTRIES = 512  # distinct geometries kept; past that the cache starts again empty
_new_operand = object.__new__  # OperandInfo.__new__, read once


class Geometry:
    """One build's result: the iterator's fields and each operand's, and its output calls."""

    __slots__ = (
        "shape",
        "perm",
        "common_dtype",
        "common_device",
        "all_ops_same_shape",
        "all_ops_are_scalars",
        "has_coalesced_dimensions",
        "promoted_inputs",
        "stride_bytes",
        "operand_fields",
        "output_calls",
    )

    def __init__(self, it: TensorIteratorBase, output_calls: list[OutputCall]) -> None:
        self.shape = tuple(it.shape_)
        self.perm = tuple(it.perm_)
        self.common_dtype = it.common_dtype_
        self.common_device = it.common_device_
        self.all_ops_same_shape = it.all_ops_same_shape_
        self.all_ops_are_scalars = it.all_ops_are_scalars_
        self.has_coalesced_dimensions = it.has_coalesced_dimensions_
        # the inputs compute_types exchanged for a copy in the common dtype (store admits
        # no exchanged output)
        self.promoted_inputs = tuple(
            i for i, op in enumerate(it.operands_) if op.original_tensor.impl_.target_ is not None
        )
        stride_bytes: list[tuple[int, ...]] = []
        operand_fields: list[OperandFields] = []
        for op in it.operands_:
            stride_bytes.append(tuple(op.stride_bytes))
            operand_fields.append(
                (
                    op.target_dtype,
                    op.current_dtype,
                    op.device,
                    op.is_output,
                    op.is_read_write,
                    op.will_resize,
                )
            )
        self.stride_bytes = tuple(stride_bytes)
        self.operand_fields = tuple(operand_fields)
        self.output_calls = tuple(output_calls)

    def apply(self, it: TensorIteratorBase, config: TensorIteratorConfig) -> None:
        """Build `it` from `config` with this result: the operands, the fields, the overlap
        checks, the inputs' promotion, then the output calls (a miss's order)."""
        operands = it.operands_ = []
        const_indices = config.const_indices_
        for i, (tensor, stride_bytes, fields) in enumerate(
            zip(config.tensors_, self.stride_bytes, self.operand_fields)
        ):
            op = _new_operand(OperandInfo)  # every field set here, as the steps leave it
            op.tensor = tensor
            op.original_tensor = UNDEFINED_TENSOR
            op.stride_bytes = list(stride_bytes)
            op.is_const = i in const_indices
            (
                op.target_dtype,
                op.current_dtype,
                op.device,
                op.is_output,
                op.is_read_write,
                op.will_resize,
            ) = fields
            operands.append(op)
        it.num_outputs_ = config.num_outputs_
        it.shape_ = list(self.shape)
        it.perm_ = list(self.perm)
        it.common_dtype_ = self.common_dtype
        it.common_device_ = self.common_device
        it.all_ops_same_shape_ = self.all_ops_same_shape
        it.all_ops_are_scalars_ = self.all_ops_are_scalars
        it.has_coalesced_dimensions_ = self.has_coalesced_dimensions
        if config.check_mem_overlap_:
            it.compute_mem_overlaps(config)
        for i in self.promoted_inputs:  # compute_types' exchange, as a miss makes it
            op = operands[i]
            op.exchange_tensor(op.tensor.to(self.common_dtype))
        for output_idx, sizes, strides, options in self.output_calls:
            it.set_output_raw_strided(output_idx, sizes, strides, options)


# every stored build by its key; TensorIteratorBase.build reads it directly (one call fewer)
CACHE: dict[tuple[Any, ...], Geometry] = {}

# the config's flags, read into one tuple by a single C call (an attrgetter of several names)
_config_flags = attrgetter(
    "num_outputs_",
    "static_shape_",
    "static_dtype_",
    "allow_cpu_scalars_",
    "is_reduction_",
    "resize_outputs_",
    "check_all_same_dtype_",
    "check_all_same_device_",
    "enforce_safe_casting_to_output_",
    "enforce_linear_iteration_",
    "promote_inputs_to_common_dtype_",
    "promote_integer_inputs_to_float_",
    "cast_common_dtype_to_outputs_",
)


def geometry_key(config: TensorIteratorConfig) -> tuple[Any, ...]:
    """The key of a build of `config` (Note [TensorIterator's geometry cache])."""
    key: list[Any] = [_config_flags(config)]
    reads_default_dtype = config.promote_integer_inputs_to_float_
    impls = []
    for tensor in config.tensors_:  # loops, not comprehensions: no frames of their own
        impl = tensor.impl_.target_  # Note [Direct reads on hot paths]
        impls.append(impl)
        if impl is None:
            key.append(None)
            continue
        device = impl.device_opt_
        wrapped = impl.is_wrapped_number_
        if wrapped:
            reads_default_dtype = True
        key.append(
            (
                impl.sizes_,
                impl.strides_,
                impl.data_type_.scalar_type,
                device.type_,
                device.index_,
                wrapped,
            )
        )
    # which outputs are inputs too (mark_outputs' is_read_write)
    num_outputs = config.num_outputs_
    for i in range(num_outputs):
        output = impls[i]
        for j in range(num_outputs, len(impls)):
            if output is not None and impls[j] is output:
                key.append((i, j))
    if reads_default_dtype:
        key.append(get_default_dtype())
    return tuple(key)


def store(key: tuple[Any, ...], it: TensorIteratorBase, output_calls: list[OutputCall]) -> None:
    """Keep a build's result, unless it computed an output in a temporary (see the Note)."""
    for op in it.operands_:
        if op.is_output and op.original_tensor.impl_.target_ is not None:  # exchanged
            return
    if len(CACHE) >= MAX_ENTRIES:
        CACHE.clear()
    CACHE[key] = Geometry(it, output_calls)
