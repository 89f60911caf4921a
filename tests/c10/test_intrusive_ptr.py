"""Intrusive refcounting: make_intrusive, copies, resets, release_resources."""

from __future__ import annotations

import tensortrace
from tensortrace.c10.intrusive_ptr import intrusive_ptr, intrusive_ptr_target, make_intrusive


class Target(intrusive_ptr_target):
    __slots__ = ("released",)

    def __init__(self) -> None:
        super().__init__()
        self.released = 0

    def release_resources(self) -> None:
        self.released += 1


def test_counts_follow_owners() -> None:
    p = make_intrusive(Target)
    target = p.get()
    assert (target.refcount_, target.weakcount_) == (1, 1)
    q = p.copy()
    assert target.refcount_ == 2
    p.reset_()
    assert (target.refcount_, target.released) == (1, 0)
    del q  # the last owner: Python's refcounting runs the destructor
    assert (target.refcount_, target.weakcount_, target.released) == (0, 0, 1)


def test_a_null_pointer_resets_quietly() -> None:
    p: intrusive_ptr[Target] = intrusive_ptr(None)
    p.reset_()
    assert not p.defined()


def test_views_share_one_storage_impl() -> None:
    x = tensortrace.rand(3, 4)
    storage = x.cdata.unsafeGetTensorImpl().storage_.unsafeGetStorageImpl()
    assert storage.refcount_ == 1
    v = x[0]
    assert storage.refcount_ == 2  # Note [Views share storage]
    assert v.cdata.unsafeGetTensorImpl().storage_.unsafeGetStorageImpl() is storage
    base_impl = x.cdata.unsafeGetTensorImpl()
    assert base_impl.refcount_ == 2  # Note [A view holds its base]
    del x
    assert (base_impl.refcount_, storage.refcount_) == (1, 2)
    del v
    assert (base_impl.refcount_, storage.refcount_) == (0, 0)
