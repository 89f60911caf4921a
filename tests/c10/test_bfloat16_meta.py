"""BFloat16's TypeMeta and the NumPy dtype ml_dtypes gives it: tensors, conversions, the
record's copy, equality, hash and frozen-ness, and opmath's upcast."""

from __future__ import annotations

import copy
from dataclasses import FrozenInstanceError

import ml_dtypes
import numpy as np
import pytest

import tensortrace as torch
from tensortrace.aten.opmath_type import to_opmath
from tensortrace.c10.scalar_type import ScalarType, TypeMeta, scalar_type_from_numpy

META = TypeMeta.fromScalarType(ScalarType.BFloat16)


def test_a_bfloat16_tensor() -> None:
    t = torch.ones(3, dtype=torch.bfloat16) * 2
    assert t.float().tolist() == [2.0, 2.0, 2.0]
    assert repr(META) == (
        "TypeMeta(scalar_type=<ScalarType.BFloat16: 15>, itemsize=2, name='c10::BFloat16', "
        "numpy=dtype(bfloat16))"
    )


def test_an_ml_dtypes_dtype_converts() -> None:
    assert str(scalar_type_from_numpy(np.dtype(ml_dtypes.bfloat16))) == "BFloat16"
    with pytest.raises(TypeError, match="can't convert np.ndarray of type numpy.float8_e4m3fn"):
        scalar_type_from_numpy(np.dtype(ml_dtypes.float8_e4m3fn))


def test_a_copy_equality_hash_and_frozen() -> None:
    c = copy.copy(META)
    assert c == META and hash(c) == hash(META)
    assert str(c.numpy) == "bfloat16"
    assert META.itemsize == 2
    with pytest.raises(FrozenInstanceError, match="cannot assign to field 'numpy'"):
        META.numpy = None  # type: ignore[misc]
    assert not hasattr(META, "no_such_field")


def test_opmath_upcasts_bfloat16() -> None:
    t = torch.tensor([1.0, 2.0], dtype=torch.bfloat16)
    assert str(to_opmath(np.ones(2, dtype=META.numpy))[0].dtype) == "float32"
    assert t.mean().item() == 1.5
