"""The operand half of TensorIteratorBase's build: OperandInfo, outputs, mem overlaps, dtypes.

Mirrors `OperandInfo` (`aten/src/ATen/TensorIterator.h`) and, of `TensorIterator.cpp`,
populate_operands, mark_outputs, compute_mem_overlaps, mark_resize_outputs, compute_types and
the output helpers (original_options, cast_outputs). TensorIteratorBase (tensor_iterator.py)
inherits these and runs them in PyTorch's order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tensortrace.aten import functions as at
from tensortrace.aten.memory_overlap import assert_no_internal_overlap, assert_no_partial_overlap
from tensortrace.aten.native.type_properties import (
    ResultTypeState,
    result_type,
    update_result_type_state,
)
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator_config import TensorIteratorConfig
from tensortrace.c10.default_dtype import get_default_dtype
from tensortrace.c10.device import CPU, Device, DeviceType
from tensortrace.c10.exception import TORCH_CHECK, TORCH_INTERNAL_ASSERT, torchCheckFail
from tensortrace.c10.scalar_type import ScalarType, canCast, isIntegralType
from tensortrace.c10.tensor_options import TensorOptions
from tensortrace.trace import traced

_CPU_OPTIONS: dict[ScalarType, TensorOptions] = {}


def _cpu_options(dtype: ScalarType) -> TensorOptions:
    options = _CPU_OPTIONS[dtype] = TensorOptions(dtype, CPU)
    return options


def options_for(dtype: ScalarType, device: Device) -> TensorOptions:
    """TensorOptions(dtype, device): one shared (immutable) object per dtype on the CPU."""
    if device is CPU:
        return _CPU_OPTIONS.get(dtype) or _cpu_options(dtype)
    return TensorOptions(dtype, device)


_CPU_TYPE = DeviceType.CPU

SOURCE = "aten/src/ATen/TensorIterator.cpp"
U = ScalarType.Undefined


def _step(name: str, legacy: str | None = None) -> Any:
    return traced(
        "native", f"TensorIteratorBase::{name}", SOURCE, f"at::TensorIteratorBase::{name}", legacy
    )


# The undefined Tensor every OperandInfo starts with as its original_tensor: only ever read or
# replaced, never changed in place, so one is shared (a new one per operand cost four calls).
UNDEFINED_TENSOR = Tensor()


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
        self.original_tensor = UNDEFINED_TENSOR
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
        self.original_tensor = UNDEFINED_TENSOR


class TensorIteratorOperands:
    """TensorIteratorBase's operand steps (the fields are set by its __init__)."""

    operands_: list[OperandInfo]
    num_outputs_: int
    shape_: list[int]
    common_dtype_: ScalarType
    common_device_: Device
    is_reduction_: bool
    all_ops_are_scalars_: bool
    # a build the geometry cache will store notes its set_output_raw_strided calls here
    # (Note [TensorIterator's geometry cache] in tensor_iterator_geometry.py)
    output_calls_: list[tuple[int, Sequence[int], Sequence[int], TensorOptions]] | None = None

    def populate_operands(self, config: TensorIteratorConfig) -> None:
        const_indices = config.const_indices_
        operands = self.operands_ = []  # a loop, not a comprehension: no frame of its own
        for i, t in enumerate(config.tensors_):
            operands.append(OperandInfo(t, i in const_indices))
        self.num_outputs_ = config.num_outputs_

    @_step("mark_outputs", legacy="TensorIterator::mark_outputs")
    def mark_outputs(self) -> None:
        operands, num_outputs = self.operands_, self.num_outputs_
        for i in range(num_outputs):
            op = operands[i]
            op.is_output = True
            impl = op.tensor.impl_.target_  # Note [Direct reads on hot paths]
            if impl is None:  # not defined()
                continue
            for arg in range(num_outputs, len(operands)):
                if operands[arg].tensor.impl_.target_ is impl:  # op.tensor.is_same(...)
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

    # Note [compute_types' common-dtype shortcut]
    # Most iterations have every defined operand on one device and in one dtype (a float32 add,
    # sum). Then the second pass over the operands has nothing to do but give an undefined
    # output the common dtype and device: its device checks pass, and its safe-casting checks
    # and common-dtype temporaries are all guarded by `current_dtype != common_dtype`, as in
    # PyTorch's compute_types. The first pass notes whether that holds (`uniform`), and the
    # step returns once the common dtype is known.
    @_step("compute_types", legacy="TensorIterator::compute_types")
    def compute_types(self, config: TensorIteratorConfig) -> None:
        operands = self.operands_
        common_dtype = output_dtype = U
        has_different_input_dtypes = has_different_output_dtypes = has_undefined_outputs = False
        # Note [compute_types' common-dtype shortcut]
        first_device: Device | None = None
        one_device = True  # every defined operand on one device object
        has_undefined = False  # an operand the second pass gives a dtype and a device
        for op in operands:
            dtype = op.target_dtype
            if dtype == U:  # not op.is_type_defined()
                if not op.is_output:  # Note [TORCH_CHECK tests first]
                    TORCH_INTERNAL_ASSERT(False, "Found type undefined input tensor!")
                if config.static_dtype_ is not None:
                    op.target_dtype = config.static_dtype_
                else:
                    has_undefined_outputs = True
                has_undefined = True
                continue
            if op.tensor.impl_.target_ is None:
                has_undefined = True
                continue
            device = op.device  # set for every defined operand
            if device is not first_device:
                if first_device is None:
                    first_device = device
                else:
                    one_device = False
            if not op.is_output:
                if dtype != common_dtype:
                    if common_dtype == U:
                        common_dtype = dtype
                    else:
                        has_different_input_dtypes = True
            elif dtype != output_dtype:
                if output_dtype == U:
                    output_dtype = dtype
                else:
                    has_different_output_dtypes = True
        # the first non-CPU device (if any) is the common device
        if not one_device:
            common_device = _first_non_cpu_device(operands)
        elif first_device is not None and first_device.type_ is not _CPU_TYPE:
            common_device = first_device
        else:
            common_device = CPU
        self.common_dtype_ = common_dtype

        if config.check_all_same_dtype_ and (
            has_different_input_dtypes
            or has_different_output_dtypes
            or (common_dtype != output_dtype and output_dtype != U)
        ):
            for op in operands:
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
        if (
            one_device
            and first_device is common_device
            and not has_different_input_dtypes
            and not has_different_output_dtypes
            and (
                (common_dtype == self.common_dtype_ and output_dtype in (U, common_dtype))
                or not (
                    config.promote_inputs_to_common_dtype_
                    or config.cast_common_dtype_to_outputs_
                    or config.enforce_safe_casting_to_output_
                )
            )
        ):
            if has_undefined:  # what the second pass does to an undefined output
                for i in range(self.num_outputs_):  # (an undefined input failed above)
                    op = operands[i]
                    if op.target_dtype == U:
                        op.target_dtype = self.common_dtype_
                    if op.device is None:
                        op.device = common_device
            return  # Note [compute_types' common-dtype shortcut]
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
                    if DeviceType.Meta in (common_device.type_, op.device.type_):
                        _check_same_device_meta(self.operands_)
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

    # ---- outputs -----------------------------------------------------------------------------
    @staticmethod
    def original_options(op: OperandInfo) -> TensorOptions:
        """The options of the output the caller gave (not of a common-dtype temporary)."""
        if op.original_tensor.impl_.target_ is not None:
            return op.original_tensor.options()
        if op.device is CPU:  # the usual case: one shared (immutable) options object per dtype
            return _CPU_OPTIONS.get(op.target_dtype) or _cpu_options(op.target_dtype)
        return TensorOptions(op.target_dtype, op.device)  # op.options(), written out

    def set_output_raw_strided(
        self, output_idx: int, sizes: Sequence[int], strides: Sequence[int], options: TensorOptions
    ) -> None:
        raise NotImplementedError

    def _set_output(
        self, output_idx: int, sizes: Sequence[int], strides: Sequence[int], options: TensorOptions
    ) -> None:
        """set_output_raw_strided, noted for the geometry cache when a build will be stored."""
        if self.output_calls_ is not None:
            self.output_calls_.append((output_idx, sizes, strides, options))
        self.set_output_raw_strided(output_idx, sizes, strides, options)

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
        operands = self.operands_
        for i in range(self.num_outputs_):  # the outputs come first
            op = operands[i]
            if (
                op.is_output
                and op.original_tensor.impl_.target_ is not None
                and op.original_tensor.scalar_type() != op.current_dtype
            ):
                op.original_tensor.copy_(op.tensor)
                op.restore_original_tensor()


def _first_non_cpu_device(operands: list[OperandInfo]) -> Device:
    """compute_types' common device: the first non-CPU device of a defined operand, else CPU."""
    for op in operands:
        device = op.device
        if (
            op.target_dtype != U
            and op.tensor.impl_.target_ is not None
            and device is not None
            and device.type_ is not _CPU_TYPE
        ):
            return device
    return CPU


def _check_same_device_meta(operands: list[Any]) -> None:
    """An elementwise op that mixes meta and real tensors: torch's Meta kernels for these ops
    are Python refs, whose check_same_device (torch/_prims_common) takes the first input's
    device as the expected one (a 0-dim CPU tensor is a scalar and passes) and names the first
    input on another device."""
    expected: Device | None = None
    for op in operands:
        if op.is_output or op.tensor.impl_.target_ is None:
            continue
        if op.tensor.dim() == 0 and op.device.type_ is _CPU_TYPE:
            continue
        if expected is None:
            expected = op.device
        elif op.device != expected:
            torchCheckFail(
                "Tensor on device ", op.device, " is not on the expected device ", expected, "!"
            )
