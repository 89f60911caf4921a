"""one_hot: an int64 tensor of class indices as a one-hot int64 tensor.

Mirrors `aten/src/ATen/native/Onehot.cpp`: a non-empty input is checked with aminmax (classes
non-negative and smaller than num_classes, which -1 infers as max + 1), then a zeros tensor of
shape (*self.shape, num_classes) gets ones scattered along its last dim. torch skips the value
checks on CUDA and relies on scatter's device assert; the emulated CUDA device here runs the CPU
checks, so both devices raise the CPU's errors.
"""

from __future__ import annotations

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType

SOURCE = "aten/src/ATen/native/Onehot.cpp"


@native_function(SOURCE, name="one_hot")
def one_hot(self: Tensor, num_classes: int = -1) -> Tensor:
    TORCH_CHECK(
        self.scalar_type() == ScalarType.Long,
        "one_hot is only applicable to index tensor of type LongTensor.",
    )
    shape = list(self.sizes())
    # an empty tensor can be one-hot encoded, but its number of classes cannot be inferred
    if self.numel() == 0:
        TORCH_CHECK(num_classes > 0, "Can not infer total number of classes from empty tensor.")
        return at.empty([*shape, num_classes], dtype=ScalarType.Long, device=self.device())
    min_max = at.aminmax(self)
    TORCH_CHECK(int(min_max[0].item()) >= 0, "Class values must be non-negative.")
    max_value = int(min_max[1].item())
    if num_classes == -1:
        num_classes = max_value + 1
    else:
        TORCH_CHECK(num_classes > max_value, "Class values must be smaller than num_classes.")
    ret = at.zeros([*shape, num_classes], dtype=ScalarType.Long, device=self.device())
    ret.scatter_(-1, self.unsqueeze(-1), 1)
    return ret
