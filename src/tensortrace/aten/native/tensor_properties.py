"""contiguous (a clone only when the memory is not already row-major), is_signed and
cudnn_is_acceptable.

Mirrors `aten/src/ATen/native/TensorProperties.cpp`. The Python binding short-cuts the same test
before dispatching (THPVariable_contiguous), which is why torch.profiler shows no aten frame at
all for `.contiguous()` on a contiguous tensor.
"""

from __future__ import annotations

from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import isSignedType

SOURCE = "aten/src/ATen/native/TensorProperties.cpp"


@native_function(SOURCE, name="contiguous", legacy="at::native::contiguous")
def contiguous(self: Tensor, memory_format: str = "contiguous_format") -> Tensor:
    if self.is_contiguous():
        return self
    TORCH_CHECK(
        memory_format != "preserve_format",
        "preserve memory format is unsupported by the contiguous operator",
    )
    return self.clone(memory_format=memory_format)


@native_function(SOURCE, name="is_signed", legacy="at::native::is_signed")
def is_signed(self: Tensor) -> bool:
    """c10::isSignedType of the dtype (floating and complex dtypes are signed, uint8 and bool
    are not)."""
    return isSignedType(self.scalar_type())


@native_function(SOURCE, name="cudnn_is_acceptable", legacy="at::native::cudnn_is_acceptable")
def cudnn_is_acceptable(self: Tensor) -> bool:
    # cuDNN is never compiled in (the emulated CUDA device has none): the RNNs take RNN.cpp's
    # composite path on every device
    return False
