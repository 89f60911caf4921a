"""An iterator's common dtype and device start on the instance, not as class defaults (Note [No
class default of a Python-defined type] in aten/tensor_iterator.py): the same values as before,
read by every kernel."""

from __future__ import annotations

import pytest

import tensortrace as torch
from tensortrace.aten.codegen import MetaStructuredKernel, StructuredKernel
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIterator, TensorIteratorBase
from tensortrace.c10.device import CPU
from tensortrace.c10.scalar_type import ScalarType


def test_no_class_default_of_a_python_defined_type() -> None:
    for cls in (TensorIteratorBase, TensorIterator, StructuredKernel):
        for name, value in vars(cls).items():
            if name.endswith("_") and not name.startswith("__") and not callable(value):
                assert value is None or type(value) in (int, bool, str, tuple), (cls, name)


@pytest.mark.parametrize(
    "make",
    [
        TensorIterator,
        lambda: StructuredKernel([Tensor()]),
        lambda: MetaStructuredKernel([Tensor()]),
    ],
)
def test_a_new_iterator_has_an_undefined_dtype_on_the_cpu(make: object) -> None:
    it = make()  # type: ignore[operator]
    assert it.common_dtype_ == ScalarType.Undefined
    assert it.common_device_ is CPU
    with pytest.raises(RuntimeError, match="Queried for invalid common dtype!"):
        it.common_dtype()
    assert it.device_type() == CPU.type_


def test_a_build_sets_them() -> None:
    a = torch.rand(2, 3, dtype=torch.float64).cdata
    it = TensorIterator.unary_op(Tensor(), a)
    assert it.common_dtype() == ScalarType.Double
    assert it.common_device_ is CPU
