"""contiguous: the tensor itself when its memory is already row-major, else a contiguous clone.

Mirrors `aten/src/ATen/native/TensorProperties.cpp`. The Python binding short-cuts the same test
before dispatching (THPVariable_contiguous), which is why torch.profiler shows no aten frame at
all for `.contiguous()` on a contiguous tensor.
"""

from __future__ import annotations

from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK

SOURCE = "aten/src/ATen/native/TensorProperties.cpp"


@native_function(SOURCE, name="contiguous", legacy="at::native::contiguous")
def contiguous(self: Tensor, memory_format: str = "contiguous_format") -> Tensor:
    if self.is_contiguous():
        return self
    TORCH_CHECK(memory_format != "preserve_format",
                "preserve memory format is unsupported by the contiguous operator")
    return self.clone(memory_format=memory_format)
