"""relu and relu_: clamp_min(self, 0), refusing bool.

Mirrors `aten/src/ATen/native/Activation.cpp` (the CPU relu, which is clamp_min, so the trace
shows aten::relu > aten::clamp_min).
"""

from __future__ import annotations

from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType

SOURCE = "aten/src/ATen/native/Activation.cpp"


@native_function(SOURCE)
def relu(self: Tensor) -> Tensor:
    from tensortrace.aten import functions as at

    TORCH_CHECK(self.scalar_type() != ScalarType.Bool, "Boolean inputs not supported for relu")
    return at.clamp_min(self, 0)


@native_function(SOURCE)
def relu_(self: Tensor) -> Tensor:
    from tensortrace.aten import functions as at

    TORCH_CHECK(self.scalar_type() != ScalarType.Bool, "Boolean inputs not supported for relu")
    return at.clamp_min_(self, 0)
