"""TensorIterator's build steps and their shortcuts: the state a build leaves behind.

Pins what the lean paths of tensor_iterator*.py must keep (issue #14): infer_size's error names
the first mismatch from the right, as infer_size_impl; compute_types' common-dtype shortcut
(Note [compute_types' common-dtype shortcut]) leaves the same common dtype, device and operand
dtypes as the full pass; reorder_dimensions and coalesce_dimensions give the loop order and
byte strides of Note [TensorIterator's loop order].
"""

from __future__ import annotations

import pytest

import tensortrace as torch
from tensortrace.aten.expand_utils import infer_size
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIterator
from tensortrace.c10.scalar_type import ScalarType


def test_infer_size_pads_the_shorter_shape() -> None:
    assert infer_size((3, 1, 5), (4, 1)) == (3, 4, 5)
    assert infer_size([2], (3, 1)) == (3, 2)
    assert infer_size((), (2, 3)) == (2, 3)
    assert infer_size((1,), ()) == (1,)


def test_infer_size_names_the_first_mismatch_from_the_right() -> None:
    with pytest.raises(RuntimeError) as info:
        infer_size((2, 3, 4), (3, 2, 3))
    assert str(info.value) == (
        "The size of tensor a (4) must match the size of tensor b (3) at non-singleton dimension 2"
    )


def at(t: torch.Tensor) -> Tensor:
    return t.cdata  # the at::Tensor under the Python handle


def _binary(a: torch.Tensor, b: torch.Tensor) -> TensorIterator:
    return TensorIterator.binary_op(Tensor(), at(a), at(b))


def test_same_dtype_operands_take_the_shortcut() -> None:
    it = _binary(torch.rand(2, 3), torch.rand(2, 3))
    assert it.common_dtype() == ScalarType.Float
    assert [op.target_dtype for op in it.operands_] == [ScalarType.Float] * 3
    assert [op.device for op in it.operands_] == [it.common_device_] * 3
    assert it.output().scalar_type() == ScalarType.Float
    assert it.operands_[0].original_tensor.impl_.target_ is None  # no common-dtype temporary


def test_mixed_dtypes_promote_the_inputs() -> None:
    it = _binary(torch.rand(2, 3), torch.ones(2, 3, dtype=torch.int32))
    assert it.common_dtype() == ScalarType.Float
    assert it.input(1).scalar_type() == ScalarType.Float  # the int input, cast
    assert it.operands_[2].original_tensor.scalar_type() == ScalarType.Int


def test_an_out_tensor_of_another_dtype_gets_a_temporary() -> None:
    out = torch.empty(2, 3, dtype=torch.float64)
    it = TensorIterator.binary_op(at(out), at(torch.rand(2, 3)), at(torch.rand(2, 3)))
    assert it.common_dtype() == ScalarType.Float
    assert it.output().scalar_type() == ScalarType.Float
    assert it.operands_[0].original_tensor.is_same(at(out))


def test_an_unsafe_cast_to_the_output_is_refused() -> None:
    out = torch.empty(2, 3, dtype=torch.int64)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired"):
        TensorIterator.binary_op(at(out), at(torch.rand(2, 3)), at(torch.rand(2, 3)))


def test_a_transposed_operand_orders_the_loop_by_its_strides() -> None:
    a = torch.rand(3, 4).t()  # (4, 3), strides (1, 4)
    it = _binary(a, a)
    # the output takes the input's layout, so every operand walks memory in one flat dim
    assert it.shape() == (12,)
    assert [op.stride_bytes for op in it.operands_] == [[4], [4], [4]]
    assert it.output().strides() == (1, 4)


def test_a_broadcast_operand_keeps_its_stride_0() -> None:
    it = _binary(torch.rand(3, 4), torch.rand(4))
    assert it.shape() == (4, 3)  # loop order: the fastest dim first
    assert [op.stride_bytes for op in it.operands_] == [[4, 16], [4, 16], [4, 0]]


def test_a_full_reduction_coalesces_to_one_dim() -> None:
    out = torch.zeros(())
    it = TensorIterator.reduce_op(at(out.as_strided([1, 1], [0, 0])), at(torch.rand(4, 4)))
    assert it.shape() == (16,)
    assert [op.stride_bytes for op in it.operands_] == [[0], [4]]
    assert it.num_reduce_dims() == 1


def test_a_reduction_over_dim_0_loops_over_the_reduced_dim_first() -> None:
    out = torch.zeros(4)
    it = TensorIterator.reduce_op(at(out.as_strided([1, 4], [0, 1])), at(torch.rand(3, 4)))
    # a reduction's output decides first: the dim it does not move along is the fastest
    assert it.shape() == (3, 4)
    assert [op.stride_bytes for op in it.operands_] == [[0, 4], [16, 4]]
