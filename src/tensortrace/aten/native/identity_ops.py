"""Ops that hand back their argument (or a new handle on its data): lift_fresh, detach,
detach_.

They still go through the dispatcher, so torch.profiler (and the trace) show them:
`torch.tensor(...)` ends with `aten::lift_fresh` and `aten::detach_`, `Tensor.numpy()` calls
`aten::resolve_conj` and `aten::resolve_neg`. Mirrors `lift_fresh` and `detach_` of
`aten/src/ATen/native/TensorShape.cpp` (the autograd kernel of detach_ is what drops
requires_grad). resolve_conj and resolve_neg, which copy when the bit is set, are in
complex_ops.py.
"""

from __future__ import annotations

from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.intrusive_ptr import intrusive_ptr
from tensortrace.c10.tensor_impl import TensorImpl

SHAPE = "aten/src/ATen/native/TensorShape.cpp"


@native_function(SHAPE, name="lift_fresh")
def lift_fresh(self: Tensor) -> Tensor:
    """A fresh tensor made outside the dispatcher is 'lifted' for functorch; here, itself."""
    return self


@native_function(SHAPE, name="detach")
def detach(self: Tensor) -> Tensor:
    """shallow_copy_and_detach: a new TensorImpl on the same storage, sizes, strides, offset."""
    impl = self.unsafeGetTensorImpl()
    new = TensorImpl(impl.storage_.copy(), impl.key_set_, impl.data_type_)
    new.set_sizes_and_strides(impl.sizes_, impl.strides_, impl.storage_offset_)
    return Tensor(intrusive_ptr.make(new))


@native_function(SHAPE, name="detach_")
def detach_(self: Tensor) -> Tensor:
    """Make self a leaf that does not require grad (VariableTypeManual.cpp's detach_)."""
    meta = self.unsafeGetTensorImpl().autograd_meta_
    if meta is not None:
        meta.requires_grad_ = False
        meta.grad_fn_ = None
    return self
