"""BatchedTensorImpl: a tensor that is a batch of tensors, seen one at a time by vmap's function.

Mirrors `aten/src/ATen/functorch/BatchedTensorImpl.h` / `.cpp`. A BatchedTensorImpl wraps a
`value_` tensor with one extra dimension, `bdim_`, that vmap at `level_` maps over; its own sizes
and strides are the value's without that dimension (the "logical" tensor the user's function
sees). Its key set holds FuncTorchBatched, so every operator on it reaches a batching rule
(batch_rules_*.py) or the for-loop fallback (batched_fallback.py), which run the operator on the
value and wrap the result again.

Note [vmap below autograd]
In PyTorch, FuncTorchBatched sits above the autograd keys and the DynamicLayer stack decides,
level by level, which of vmap and grad handles an op first: grad is a level of its own whose
TensorWrapper records a graph per level, and regular autograd records the unwrapped values.
tensortrace models no DynamicLayer: FuncTorchBatched sits *below* the autograd keys and
ADInplaceOrView (above the backends), and a BatchedTensorImpl carries its backend's autograd
keys. So autograd records on batched tensors as on any other tensor (the graph's Nodes save
batched tensors, its backward runs batching rules), and torch.func.grad is plain autograd
(func/_grad.py, Note [grad as plain autograd]). Three pieces make that agree with torch:
- entering and leaving vmap are autograd Functions (func/_batch_dims.py), so a gradient leaves
  vmap as the gradient of the unbatched input;
- a gradient batched at a vmap level that has ended, reaching an input that level did not batch,
  is summed over its samples (autograd/engine.py sum_batch_dims, Note [Unique vmap levels]), as
  torch's autograd sums the broadcast of the unwrapped value;
- a saved output unpacks as a BatchedTensorImpl again (saved_variable.tensor_data).
What differs: the trace shows the autograd kernel first, then a redispatch to FuncTorchBatched
(torch: FuncTorchBatched first, then autograd on the unwrapped values), and the graph's Nodes
are the logical ops, one per op rather than one per level.

Note [A BatchedTensorImpl shares its value's storage]
torch's BatchedTensorImpl has no storage (storage() raises). Here every TensorImpl has one (the
trace names the storage of every handle), so a BatchedTensorImpl holds another reference to its
value's StorageImpl: the memory map shows the batch where it lives. Its data cannot be read:
numpy_view() and data() raise as torch's data_ptr() does, so a kernel that bypassed the
dispatcher would fail loudly instead of reading one sample.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.dispatch_key import (
    DispatchKey,
    DispatchKeySet,
    autograd_related_keys,
)
from tensortrace.c10.intrusive_ptr import intrusive_ptr, object_ids
from tensortrace.c10.tensor_impl import TensorImpl, VariableVersion, compute_contiguous
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/functorch/BatchedTensorImpl.cpp"
_BATCHED = DispatchKeySet(DispatchKey.FuncTorchBatched)


class BatchedTensorImpl(TensorImpl):
    __slots__ = ("value_", "bdim_", "level_")

    @traced("native", "at::functorch::BatchedTensorImpl::BatchedTensorImpl", SOURCE)
    def __init__(self, value: Tensor, bdim: int, level: int) -> None:
        # TensorImpl's fields, set here: a batched tensor has no storage of its own
        # (Note [A BatchedTensorImpl shares its value's storage])
        self.refcount_ = self.weakcount_ = 0
        self._id = object_id = next(object_ids)
        self.trace_name = f"{type(self).__name__}#{object_id}"
        inner = value.unsafeGetTensorImpl()
        self.storage_ = inner.storage_.copy()
        self.data_type_ = inner.data_type_
        self.device_opt_ = inner.device_opt_
        # getKeysToPropagateToWrapper: the value's autograd keys go to the wrapper
        self.key_set_ = _BATCHED | (inner.key_set_ & autograd_related_keys)
        self.version_counter_ = VariableVersion()
        self.autograd_meta_: Any = None
        self.pyobj_ = None
        self.is_wrapped_number_ = False
        self.is_view_ = False
        self.tensor_summary_ = None  # Note [A tensor's summary, kept]
        self.value_ = value
        self.bdim_ = bdim
        self.level_ = level
        self.refreshTensorMetadata()

    def refreshTensorMetadata(self) -> None:
        """The logical sizes and strides: the value's, without the batch dim."""
        inner = self.value_.unsafeGetTensorImpl()
        bdim = self.bdim_
        sizes = inner.sizes_[:bdim] + inner.sizes_[bdim + 1 :]
        strides = inner.strides_[:bdim] + inner.strides_[bdim + 1 :]
        self.sizes_ = sizes
        self.strides_ = strides
        self.tensor_summary_ = None  # Note [A tensor's summary, kept] (c10/tensor_impl.py)
        self.storage_offset_ = inner.storage_offset_
        numel = 1
        for s in sizes:
            numel *= s
        self.numel_ = numel
        self.is_contiguous_ = compute_contiguous(sizes, strides, numel)

    def value(self) -> Tensor:
        return self.value_

    def bdim(self) -> int:
        return self.bdim_

    def level(self) -> int:
        return self.level_

    def numpy_view(self) -> np.ndarray:
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    def data(self) -> int:
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    def release_resources(self) -> None:
        self.autograd_meta_ = None
        self.value_.reset()
        self.storage_.reset()

    def _trace_info(self) -> dict[str, object]:
        info = super()._trace_info()
        info.update(
            bdim=self.bdim_, level=self.level_, value=self.value_.unsafeGetTensorImpl().trace_name
        )
        return info


def maybeGetBatchedImpl(t: Any) -> BatchedTensorImpl | None:
    """The BatchedTensorImpl of a tensor, or None (BatchedTensorImpl.h)."""
    if not isinstance(t, Tensor):
        return None
    impl = t.impl_.target_
    return impl if isinstance(impl, BatchedTensorImpl) else None


def isBatchedAtLevel(t: Any, level: int) -> bool:
    impl = maybeGetBatchedImpl(t)
    return impl is not None and impl.level_ == level


@traced("native", "at::functorch::makeBatched", SOURCE)
def makeBatched(value: Tensor, bdim: int | None, level: int) -> Tensor:
    """A batched tensor over `value` at `level`, or `value` itself when it has no batch dim."""
    if bdim is None:
        return value
    if bdim < 0:
        bdim += value.dim()
    return Tensor(intrusive_ptr.make(BatchedTensorImpl(value.copy(), bdim, level)))


def unwrapTensorAtLevel(t: Tensor, level: int) -> tuple[Tensor, int | None]:
    """(value, bdim) if `t` is batched at `level`, else (t, None) (BatchRulesHelper.h)."""
    impl = maybeGetBatchedImpl(t)
    if impl is not None and impl.level_ == level:
        return impl.value_, impl.bdim_
    return t, None


def _add_batch_dim(t: Tensor, bdim: int, level: int) -> Tensor:
    return makeBatched(t, bdim, level)
