"""from_numpy / numpy() share memory, and from_numpy does not allocate (tensor_numpy.py)."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import tensortrace as torch


def test_from_numpy_shares_memory_both_ways() -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = torch.from_numpy(a)
    assert t.data_ptr() == a.ctypes.data
    a[0, 1] = 42.0
    assert t[0, 1].item() == 42.0
    t.fill_(7)
    assert (a == 7).all()


def test_from_numpy_does_not_allocate() -> None:
    before = torch.memory_allocated()
    a = np.ones((100, 100))
    t = torch.from_numpy(a)
    assert torch.memory_allocated() == before
    del t
    assert torch.memory_allocated() == before


def test_from_numpy_keeps_the_array_alive() -> None:
    a = np.arange(4, dtype=np.int64)
    t = torch.from_numpy(a)
    del a
    gc.collect()
    assert t.tolist() == [0, 1, 2, 3]


def test_from_numpy_strided_view() -> None:
    base = np.arange(12, dtype=np.float64).reshape(3, 4)
    t = torch.from_numpy(base[:, 1::2])
    assert t.stride() == (4, 2) and t.shape == (3, 2)
    assert t.tolist() == base[:, 1::2].tolist()


def test_numpy_shares_memory_and_keeps_storage_alive() -> None:
    before = torch.memory_allocated()
    t = torch.zeros(2, 3)
    arr = t.numpy()
    assert arr.ctypes.data == t.data_ptr()
    arr[1, 2] = 5.0
    assert t[1, 2].item() == 5.0
    del t
    gc.collect()
    assert torch.memory_allocated() == before + 24  # the array still holds the storage
    assert arr[1, 2] == 5.0
    del arr
    gc.collect()
    assert torch.memory_allocated() == before


def test_numpy_of_a_view_has_its_strides() -> None:
    t = torch.arange(12).reshape(3, 4).t()
    arr = t.numpy()
    assert arr.strides == (8, 32)
    np.testing.assert_array_equal(arr, np.arange(12).reshape(3, 4).T)


def test_errors_leave_memory_unchanged() -> None:
    before = torch.memory_allocated()
    with pytest.raises(ValueError):
        torch.from_numpy(np.arange(3)[::-1])
    with pytest.raises(RuntimeError):
        torch.tensor([[1, 2], [3, 300]], dtype=torch.uint8)
    with pytest.raises(ValueError):
        torch.tensor([[1, 2], [3]])
    with pytest.raises(RuntimeError):
        torch.cat([torch.ones(2, 3), torch.ones(3, 3)], 1)
    with pytest.raises(RuntimeError):
        torch.randint(5, 2, (3,))
    gc.collect()
    assert torch.memory_allocated() == before


def test_generator_state_is_a_uint8_tensor() -> None:
    g = torch.Generator().manual_seed(11)
    state = g.get_state()
    assert state.dtype == torch.uint8 and state.dim() == 1
    first = torch.randn(8, generator=g).tolist()
    g.set_state(state)
    assert torch.randn(8, generator=g).tolist() == first
