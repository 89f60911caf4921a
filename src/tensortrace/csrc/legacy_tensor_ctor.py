"""torch.Tensor(...): the legacy constructor of the default (float) tensor type.

Mirrors `legacy_tensor_ctor` in `torch/csrc/utils/tensor_new.cpp`: `torch.Tensor()` is an empty
1-dim tensor of size 0, `torch.Tensor(2, 3)` / `torch.Tensor(torch.Size([2, 3]))` an
uninitialized one of that size (both `at::empty`), and `torch.Tensor([1, 2])` one made from the
data, always in the default dtype.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.tensor_body import Tensor as AtTensor
from tensortrace.c10.default_dtype import get_default_dtype
from tensortrace.c10.exception import TORCH_CHECK_TYPE
from tensortrace.c10.local_dispatch_key_set import AutoDispatchBelowADInplaceOrView
from tensortrace.trace import traced

SOURCE = "torch/csrc/utils/tensor_new.cpp"


@traced("python", "torch::utils::legacy_tensor_ctor", SOURCE, legacy="THPVariable_pynew")
def legacy_tensor_ctor(*args: Any) -> AtTensor:
    dtype = get_default_dtype()
    with AutoDispatchBelowADInplaceOrView():
        if not args:
            return at.empty([0], dtype=dtype)
        if all(isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in args):
            return at.empty([int(a) for a in args], dtype=dtype)
        TORCH_CHECK_TYPE(len(args) == 1, "new(): invalid arguments")
        data = args[0]
        if (
            isinstance(data, tuple)
            and all(isinstance(a, numbers.Integral) for a in data)
            and (type(data).__name__ == "Size")
        ):
            return at.empty(list(data), dtype=dtype)
        values = np.asarray(data)
        TORCH_CHECK_TYPE(
            values.dtype.kind in "biuf", "new(): invalid data type '", type(data).__name__, "'"
        )
        result = at.empty(list(values.shape), dtype=dtype)
        # recursive_store: the values are written straight into the new tensor's memory
        result.numpy_view()[...] = values
        return result
