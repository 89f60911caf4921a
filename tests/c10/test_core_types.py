"""ScalarType promotion, dispatch key sets, devices and contiguity."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import tensortrace
from tensortrace.c10.device import Device
from tensortrace.c10.dispatch_key import DispatchKey, DispatchKeySet, after_autograd_keyset
from tensortrace.c10.scalar_type import ScalarType, promoteTypes
from tensortrace.c10.tensor_impl import compute_contiguous, contiguous_layout, contiguous_strides

TYPES = [
    ScalarType.Bool,
    ScalarType.Byte,
    ScalarType.Char,
    ScalarType.Short,
    ScalarType.Int,
    ScalarType.Long,
    ScalarType.Half,
    ScalarType.BFloat16,
    ScalarType.Float,
    ScalarType.Double,
]
TORCH_NAMES = {
    ScalarType.Bool: "bool",
    ScalarType.Byte: "uint8",
    ScalarType.Char: "int8",
    ScalarType.Short: "int16",
    ScalarType.Int: "int32",
    ScalarType.Long: "int64",
    ScalarType.Half: "float16",
    ScalarType.BFloat16: "bfloat16",
    ScalarType.Float: "float32",
    ScalarType.Double: "float64",
}


def test_promote_types_matches_torch_for_every_pair() -> None:
    torch = pytest.importorskip("torch")
    for a, b in itertools.product(TYPES, TYPES):
        expected = torch.promote_types(
            getattr(torch, TORCH_NAMES[a]), getattr(torch, TORCH_NAMES[b])
        )
        assert str(expected) == f"torch.{TORCH_NAMES[promoteTypes(a, b)]}", (a, b)


def test_promote_types_known_pairs() -> None:
    assert promoteTypes(ScalarType.Byte, ScalarType.Char) == ScalarType.Short
    assert promoteTypes(ScalarType.Half, ScalarType.BFloat16) == ScalarType.Float
    assert promoteTypes(ScalarType.Bool, ScalarType.Long) == ScalarType.Long
    assert promoteTypes(ScalarType.Long, ScalarType.Half) == ScalarType.Half


def test_dispatch_key_set_priority_and_masks() -> None:
    ks = DispatchKeySet([DispatchKey.CPU, DispatchKey.ADInplaceOrView, DispatchKey.AutogradCPU])
    assert ks.highestPriorityTypeId() == DispatchKey.AutogradCPU
    below = ks & after_autograd_keyset
    assert below.highestPriorityTypeId() == DispatchKey.ADInplaceOrView
    assert list(ks) == [DispatchKey.AutogradCPU, DispatchKey.ADInplaceOrView, DispatchKey.CPU]
    assert repr(ks) == "DispatchKeySet(CPU, ADInplaceOrView, AutogradCPU)"


def test_device_parsing() -> None:
    assert str(Device("cpu")) == "cpu" and repr(Device("cuda:1")) == "device(type='cuda', index=1)"
    with pytest.raises(RuntimeError, match="Expected one of cpu"):
        Device("tpu")


def test_contiguity() -> None:
    assert contiguous_strides((2, 3, 4)) == (12, 4, 1)
    assert compute_contiguous((2, 1, 4), (4, 99, 1), 8)
    assert not compute_contiguous((3, 4), (1, 3), 12)


def test_contiguous_layouts_by_sizes() -> None:
    """Note [Contiguous layouts by sizes]: the remembered layout is the computed one, in ints."""
    assert contiguous_layout((2, 3, 4)) == ((12, 4, 1), 24)
    assert contiguous_layout((np.int64(3), np.int64(0))) == ((1, 1), 0)
    strides, numel = contiguous_layout((np.int64(5), np.int64(2)))
    assert all(type(s) is int for s in strides) and type(numel) is int
    assert contiguous_layout(()) == ((), 1)


@pytest.mark.parametrize(
    ("sizes", "strides", "contiguous"),
    [
        ((2, 3), (3, 1), True),
        ((2, 1, 4), (4, 99, 1), True),  # a size-1 dim may have any stride
        ((3, 4), (1, 3), False),
        ((0, 5), (7, 2), True),  # no elements
        ((4,), (2,), False),
    ],
)
def test_set_sizes_and_strides_numel_and_contiguity(
    sizes: tuple[int, ...], strides: tuple[int, ...], contiguous: bool
) -> None:
    impl = tensortrace.empty(64).cdata.unsafeGetTensorImpl()
    impl.set_sizes_and_strides(sizes, strides, 0)
    assert impl.is_contiguous() is contiguous
    assert impl.is_contiguous() == compute_contiguous(sizes, strides, impl.numel())
    assert impl.numel() == math.prod(sizes)
