"""The meta device in the trace and the allocator: a meta tensor's storage has a null DataPtr
and its bytes, allocates nothing, and an op on meta tensors runs its shape and dtype steps
(a structured op's meta function, TensorIterator's compute_shape / compute_types) and no
kernel."""

from __future__ import annotations

import gc

import pytest

import tensortrace as torch
from tensortrace.c10.allocator import GetAllocator
from tensortrace.c10.device import DeviceType


def _names(trace: torch.Trace) -> list[str]:
    return [e.name for e in trace.events if e.kind == ""]


def test_the_meta_allocator_gives_null_pointers_on_the_meta_device() -> None:
    data = GetAllocator(DeviceType.Meta).allocate(4096)
    assert data.get() == 0 and not data and data.get_context() is None
    assert data.device.type == "meta"
    data.clear()  # deleteNothing


def test_a_meta_tensor_allocates_nothing() -> None:
    gc.collect()
    before = torch.memory_allocated()
    with torch.record() as trace:
        x = torch.empty(100_000, 100_000, device="meta")  # 40 GB, were it real
    assert torch.memory_allocated() == before
    assert not [e for e in trace.events if e.kind == "alloc"]
    storage = x.untyped_storage()
    assert (storage.nbytes(), x.data_ptr(), storage.device.type) == (4 * 10**10, 0, "meta")
    assert "at::detail::empty_meta" in _names(trace)


def test_a_structured_op_on_meta_runs_its_meta_function_and_no_kernel() -> None:
    x = torch.empty(3, 4, device="meta")
    with torch.record() as trace:
        y = x.exp()
    names = _names(trace)
    assert "redispatch exp -> Meta" in names
    assert "at::(anonymous)::wrapper_Meta_exp" in names
    assert "at::meta::structured_exp::meta" in names
    assert "TensorIteratorBase::compute_shape" in names
    assert not [n for n in names if "impl" in n or "stub" in n or "kernel" in n]
    assert y.is_meta and tuple(y.shape) == (3, 4)


def test_a_native_registered_for_meta_skips_its_stub() -> None:
    """where's CPU native serves Meta too: its TensorIterator is built, its stub not run
    (Note [A meta tensor's kernel is no call])."""
    x = torch.empty(3, 4, device="meta")
    cond = torch.empty(3, 1, device="meta", dtype=torch.bool)
    with torch.record() as trace:
        y = torch.where(cond, x, x)
    names = _names(trace)
    assert "redispatch where.self -> Meta" in names
    assert "at::native::where" in names
    assert "where_kernel" not in names
    assert y.is_meta and y.stride() == (4, 1)


def test_an_inplace_op_with_no_meta_kernel_returns_self() -> None:
    x = torch.empty(3, device="meta")
    with torch.record() as trace:
        y = x.uniform_()
    assert y is x
    assert "at::(anonymous)::wrapper_Meta_uniform_" in _names(trace)


def test_a_kernel_that_reads_meta_data_is_refused() -> None:
    x = torch.empty(3, device="meta")
    with pytest.raises(RuntimeError, match="data of a meta tensor"):
        x.cdata.numpy_view()


def test_resize_grows_only_the_byte_count() -> None:
    x = torch.empty(2, device="meta")
    with torch.record() as trace:
        x.resize_(10, 10)
    assert x.untyped_storage().nbytes() == 400 and x.data_ptr() == 0
    assert not [e for e in trace.events if e.kind == "alloc"]
