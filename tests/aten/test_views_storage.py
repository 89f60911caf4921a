"""Views share their base's StorageImpl (Note [Views share storage]); copies do not.

Checks the refcounts a view adds and removes, that memory is freed only when the last view
dies, that untyped_storage() is one object per StorageImpl, and that failing view / indexing
calls leave nothing allocated.
"""

from __future__ import annotations

import gc

import pytest

import tensortrace as torch


def use_count(t: torch.Tensor) -> int:
    return t.cdata.unsafeGetTensorImpl().storage_.use_count()


def storage_impl(t: torch.Tensor) -> object:
    return t.cdata.unsafeGetTensorImpl().storage_.unsafeGetStorageImpl()


VIEWS = {
    "view": lambda x: x.view(4, 3),
    "reshape": lambda x: x.reshape(-1),
    "slice": lambda x: x[1:],
    "narrow": lambda x: x.narrow(1, 1, 2),
    "permute": lambda x: x.permute(1, 0),
    "transpose": lambda x: x.transpose(0, 1),
    "t": lambda x: x.t(),
    "unsqueeze": lambda x: x.unsqueeze(1),
    "squeeze": lambda x: x.unsqueeze(0).squeeze(0),
    "expand": lambda x: x[:, :1].expand(3, 5),
    "flatten": lambda x: x.flatten(),
    "unflatten": lambda x: x.unflatten(1, (2, 2)),
    "diagonal": lambda x: x.diagonal(),
    "select": lambda x: x[1],
    "alias": lambda x: x[...],
    "as_strided": lambda x: x.as_strided((2,), (5,), 1),
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_view_shares_storage(name: str) -> None:
    x = torch.rand(3, 4)
    before = use_count(x)
    v = VIEWS[name](x)
    assert storage_impl(v) is storage_impl(x)
    assert v.untyped_storage() is x.untyped_storage()
    assert use_count(x) == before + 1
    del v
    gc.collect()
    assert use_count(x) == before


@pytest.mark.parametrize("name", ["split", "chunk", "unbind"])
def test_multi_output_views_share_storage(name: str) -> None:
    x = torch.rand(4, 3)
    before = use_count(x)
    pieces = getattr(x, name)(2) if name != "unbind" else x.unbind()
    assert all(storage_impl(p) is storage_impl(x) for p in pieces)
    assert all(p._base is x for p in pieces)
    assert use_count(x) == before + len(pieces)
    del pieces
    gc.collect()
    assert use_count(x) == before


def test_copies_do_not_share() -> None:
    x = torch.rand(3, 4)
    for copy in (x.t().contiguous(), x.clone(), x.t().reshape(12), x[[0, 2]]):
        assert storage_impl(copy) is not storage_impl(x)
    assert x.contiguous() is x


def test_memory_freed_with_last_view() -> None:
    gc.collect()
    start = torch.memory_allocated()
    x = torch.rand(256)
    allocated = torch.memory_allocated()
    v = x[10:20].view(2, 5).t()
    del x
    gc.collect()
    assert torch.memory_allocated() == allocated  # the view keeps the memory alive
    assert v.storage_offset() == 10
    del v
    gc.collect()
    assert torch.memory_allocated() == start


def test_set_shares_source_storage() -> None:
    data = torch.Tensor([float(i) for i in range(24)]).view(2, 3, 4)
    s = data.untyped_storage()
    x = torch.Tensor().set_(s, storage_offset=3, size=torch.Size([2, 3]), stride=(5, 2))
    assert storage_impl(x) is storage_impl(data)
    assert x.untyped_storage() is s
    assert x.cdata.numpy_view().tolist() == [[3.0, 5.0, 7.0], [8.0, 10.0, 12.0]]
    x[0, 0] = -1.0
    assert data[0, 0, 3].item() == -1.0


def test_untyped_storage_is_bytes() -> None:
    x = torch.Tensor([1.0])
    s = x.untyped_storage()
    assert (s.nbytes(), s.size(), len(s), s.element_size()) == (4, 4, 4, 1)
    assert s.tolist() == [0, 0, 128, 63]
    assert s.data_ptr() == x.data_ptr()
    with pytest.raises(IndexError, match="out of range for storage of size 4"):
        s[4]


ERRORS = [
    "x.view(5)",
    "x.t().view(12)",
    "x.narrow(1, 3, 2)",
    "x.permute(0, 0)",
    "x.expand(3, 5)",
    "x.split([1, 1])",
    "x[0, 0, 0]",
    "x[::-1]",
    "x[[0, 5]]",
    "x[:, 4]",
    "x[0] = torch.rand(5)",
    "x[[0, 7]] = 1",
    "x[torch.Tensor([1.0, 0.0]).to(torch.bool)]",
]


@pytest.mark.parametrize("statement", ERRORS)
def test_errors_leave_nothing_allocated(statement: str) -> None:
    x = torch.rand(3, 4)
    gc.collect()
    before = torch.memory_allocated()
    with pytest.raises((RuntimeError, IndexError, ValueError)):
        exec(statement, {"torch": torch, "x": x})
    gc.collect()
    assert torch.memory_allocated() == before
