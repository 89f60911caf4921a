"""Does an output overlap itself or an input? Refuse writes that would race.

Mirrors `aten/src/ATen/MemoryOverlap.cpp` (has_internal_overlap, get_overlap_status and the
assert_* helpers with PyTorch's messages). "Too hard to tell" is allowed, as in PyTorch.
"""

from __future__ import annotations

from enum import Enum

from tensortrace.aten.tensor_body import Tensor, null_deref
from tensortrace.c10.exception import torchCheckFail


class MemOverlap(Enum):
    No = 0
    Yes = 1
    TooHard = 2


class MemOverlapStatus(Enum):
    Full = 0
    Partial = 1
    No = 2
    TooHard = 3


# the members the hot checks return, read once (Note [Enum members read once])
_NO, _YES = MemOverlap.No, MemOverlap.Yes
_FULL, _PARTIAL = MemOverlapStatus.Full, MemOverlapStatus.Partial
_STATUS_NO, _TOO_HARD = MemOverlapStatus.No, MemOverlapStatus.TooHard


def is_non_overlapping_and_dense(sizes: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """Some permutation of the dims is contiguous (compute_non_overlapping_and_dense)."""
    if len(sizes) == 1:
        return sizes[0] < 2 or strides[0] == 1
    perm = sorted(range(len(sizes)), key=lambda d: (sizes[d] >= 2, strides[d]))
    expected = 1
    for d in perm:
        if sizes[d] == 1:
            continue
        if strides[d] != expected:
            return False
        expected *= sizes[d]
    return True


def has_internal_overlap(t: Tensor) -> MemOverlap:
    impl = (
        t.impl_.target_ or null_deref()
    )  # unsafeGetTensorImpl() (Note [Direct reads on hot paths])
    # a contiguous tensor is non-overlapping and dense (TensorImpl caches both flags)
    if impl.is_contiguous_ or is_non_overlapping_and_dense(impl.sizes_, impl.strides_):
        return _NO
    for size, stride in zip(impl.sizes_, impl.strides_):
        if size > 1 and stride == 0:
            return _YES
    return MemOverlap.TooHard


def assert_no_internal_overlap(t: Tensor) -> None:
    if has_internal_overlap(t) is _YES:  # Note [TORCH_CHECK tests first]
        torchCheckFail(
            "unsupported operation: more than one element of the written-to tensor "
            "refers to a single memory location. Please clone() the tensor before "
            "performing the operation."
        )


def get_overlap_status(a: Tensor, b: Tensor) -> MemOverlapStatus:
    if a.is_same(b):
        return _FULL
    if a.numel() == 0 or b.numel() == 0:
        return _STATUS_NO
    ia, ib = a.unsafeGetTensorImpl(), b.unsafeGetTensorImpl()
    if not (
        is_non_overlapping_and_dense(ia.sizes_, ia.strides_)
        and is_non_overlapping_and_dense(ib.sizes_, ib.strides_)
    ):
        return _TOO_HARD
    if not ia.storage_.is_alias_of(ib.storage_):
        return _STATUS_NO
    a_start, b_start = ia.data(), ib.data()
    a_end = a_start + a.numel() * a.element_size()
    b_end = b_start + b.numel() * b.element_size()
    if a_start == b_start and a_end == b_end:
        return _FULL
    if a_start < b_end and b_start < a_end:
        return _PARTIAL
    return _STATUS_NO


def assert_no_partial_overlap(a: Tensor, b: Tensor) -> None:
    if get_overlap_status(a, b) is _PARTIAL:
        torchCheckFail(
            "unsupported operation: some elements of the input tensor and the "
            "written-to tensor refer to a single memory location. Please clone() the "
            "tensor before performing the operation."
        )
