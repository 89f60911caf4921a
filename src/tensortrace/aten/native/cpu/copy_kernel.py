"""copy_kernel: elementwise copy with conversion between any two dtypes.

Mirrors `aten/src/ATen/native/cpu/CopyKernel.cpp`: static_cast from the source dtype to the
destination dtype (float to int truncates toward zero; nonzero to bool is true).
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten.native.copy import copy_stub
from tensortrace.aten.native.cpu.loops import cpu_kernel_vec
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.trace import traced


def _copy_loop(out: np.ndarray, src: np.ndarray) -> None:
    np.copyto(out, src, casting="unsafe")


@traced("kernel", "at::native::copy_kernel", "aten/src/ATen/native/cpu/CopyKernel.cpp")
def copy_kernel(it: TensorIteratorBase, non_blocking: bool) -> None:
    cpu_kernel_vec(it, _copy_loop)


REGISTER_DISPATCH(copy_stub, copy_kernel)
