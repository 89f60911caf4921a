"""flip_kernel: the loop of torch.flip.

Mirrors `flip_kernel` of `aten/src/ATen/native/cpu/IndexKernel.cpp`, which walks the output
with a TensorIterator whose input is restrided to run backwards along the flipped dims. Here the
backwards view is NumPy's (negative strides, no copy), assigned into the output in one step.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.native.tensor_transformations import flip_stub
from tensortrace.aten.tensor_body import Tensor
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/cpu/IndexKernel.cpp"


@traced("kernel", "at::native::(anonymous)::flip_kernel", SOURCE, legacy="flip_kernel")
def flip_kernel(out: Tensor, self: Tensor, dims: Sequence[int]) -> None:
    out.numpy_view()[...] = np.flip(self.numpy_view(), axis=tuple(dims))


REGISTER_DISPATCH(flip_stub, flip_kernel)
