"""The native halves of forward AD's operators: _fw_primal, _make_dual, _unpack_dual,
_new_zeros_with_same_feature_meta, _has_same_storage_numel, is_same_size.

Mirrors `aten/src/ATen/native/AutogradComposite.cpp` and `VariableMethodStubs.cpp`. In torch
the native _fw_primal / _make_dual only raise: their ADInplaceOrView kernels make the alias
themselves. Here the native kernel is that alias (at::alias), and the generated ADInplaceOrView
kernel records it as a view that is not forward differentiable (autograd/forward_ad_manual.py).
"""

from __future__ import annotations

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor

SOURCE = "aten/src/ATen/native/AutogradComposite.cpp"
STUBS = "aten/src/ATen/native/VariableMethodStubs.cpp"


@native_function(STUBS, name="_fw_primal")
def _fw_primal(self: Tensor, level: int) -> Tensor:
    return at.alias(self)


@native_function(STUBS, name="_make_dual")
def _make_dual(primal: Tensor, tangent: Tensor, level: int) -> Tensor:
    return at.alias(primal)


@native_function(SOURCE, name="_unpack_dual")
def _unpack_dual(dual: Tensor, level: int) -> tuple[Tensor, Tensor]:
    from tensortrace.autograd.forward_grad import fw_grad

    tangent = fw_grad(dual, level)
    return dual._fw_primal(level), tangent if tangent is not None else Tensor()


@native_function(SOURCE, name="_new_zeros_with_same_feature_meta")
def _new_zeros_with_same_feature_meta(
    self: Tensor, other: Tensor, self_num_batch_dims: int = 0
) -> Tensor:
    """Zeros with `self`'s dtype and device laid out as `other` (its sizes, strides, storage
    offset and storage size), behind `self`'s leading self_num_batch_dims batch dims."""
    other_sizes = list(other.sizes())
    other_strides = list(other.strides())
    other_storage_offset = other.storage_offset()
    other_storage_numel = other.storage().nbytes() // other.element_size()
    options = {"dtype": self.scalar_type(), "device": self.device()}
    if self_num_batch_dims == 0:
        new_tensor = at.zeros([other_storage_numel], **options)
        return new_tensor.as_strided(other_sizes, other_strides, other_storage_offset)
    self_sizes = list(self.sizes())
    # the batch dims go first and are contiguous; each batch holds a copy of other's storage
    out_sizes = self_sizes[:self_num_batch_dims] + other_sizes
    out_strides = [0] * self_num_batch_dims + other_strides
    prod = other_storage_numel
    for i in range(self_num_batch_dims - 1, -1, -1):
        out_strides[i] = prod
        prod *= self_sizes[i]
    new_tensor = at.zeros([prod], **options)
    return new_tensor.as_strided(out_sizes, out_strides, other_storage_offset)


@native_function(SOURCE, name="_has_same_storage_numel")
def _has_same_storage_numel(self: Tensor, other: Tensor) -> bool:
    return bool(
        self.storage().nbytes() // self.element_size()
        == other.storage().nbytes() // other.element_size()
    )


@native_function("aten/src/ATen/native/TensorProperties.cpp", name="is_same_size")
def is_same_size(self: Tensor, other: Tensor) -> bool:
    return list(self.sizes()) == list(other.sizes())
