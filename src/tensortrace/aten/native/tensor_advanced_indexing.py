"""masked_fill and masked_fill_: write a value where a bool mask is True.

Mirrors `aten/src/ATen/native/TensorAdvancedIndexing.cpp` (masked_fill__cpu,
masked_fill_impl_cpu, masked_fill). The in-place op broadcasts the mask to self in a
TensorIterator over (self, mask) and fills through masked_fill_stub; the functional op expands
mask and self to their common shape, clones self contiguously, and fills the clone in place.
A value tensor must be 0-dim and is read with item().
"""

from __future__ import annotations

from tensortrace.aten.expand_utils import infer_size
from tensortrace.aten.memory_overlap import assert_no_partial_overlap
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.scalar_ops import Scalar
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorConfig
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType

SOURCE = "aten/src/ATen/native/TensorAdvancedIndexing.cpp"

masked_fill_stub = DECLARE_DISPATCH("masked_fill_stub", "aten/src/ATen/native/IndexKernel.h")


def masked_fill_impl_cpu(self: Tensor, mask: Tensor, value: Scalar) -> Tensor:
    TORCH_CHECK(
        mask.scalar_type() == ScalarType.Bool,
        "masked_fill_ only supports boolean masks, but got mask with dtype ",
        mask.dtype().name,
    )
    assert_no_partial_overlap(self, mask)
    it = (
        TensorIteratorConfig()
        .set_check_mem_overlap(False)  # filling an expanded tensor is deprecated, not an error
        .check_all_same_dtype(False)
        .resize_outputs(False)
        .add_output(self)
        .add_const_input(mask)
        .build()
    )
    masked_fill_stub(it.device_type(), it, value)
    return self


@native_function(SOURCE)
def masked_fill__cpu(self: Tensor, mask: Tensor, value: Scalar | Tensor) -> Tensor:
    """masked_fill_.Scalar and masked_fill_.Tensor (a 0-dim value, read with item())."""
    if isinstance(value, Tensor):
        TORCH_CHECK(
            value.dim() == 0,
            "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
            value.dim(),
            " dimension(s).",
        )
        return masked_fill_impl_cpu(self, mask, value.item())
    return masked_fill_impl_cpu(self, mask, value)


@native_function(SOURCE)
def masked_fill(self: Tensor, mask: Tensor, value: Scalar | Tensor) -> Tensor:
    """expand_outplace(mask, self), clone(contiguous), masked_fill_."""
    if mask.sizes() != self.sizes():
        shape = list(infer_size(mask.sizes(), self.sizes()))
        mask.expand(shape)  # expand_outplace expands both; masked_fill_ broadcasts the mask
        self = self.expand(shape)
    result = self.clone(memory_format="contiguous_format")
    return result.masked_fill_(mask, value)
