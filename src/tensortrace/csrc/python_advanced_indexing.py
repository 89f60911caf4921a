"""Python values that become tensors during indexing: index lists and assigned numbers.

Mirrors `sequenceToVariable` / `valueToTensor` in
`torch/csrc/autograd/python_variable_indexing.cpp`, `indexing_tensor_from_data` in
`torch/csrc/utils/tensor_new.cpp` and `scalarToTensor` in `aten/src/ATen/TensorIndexing.h`. A list
index becomes a Long tensor (a Bool one if its elements are bools) the way torch.tensor builds
one: `aten::empty`, the values stored straight into its memory, `aten::to` (nothing to convert)
and `aten::lift_fresh`: the tree torch.profiler shows for `x[[0, 2]]`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.scalar_ops import scalar_to_tensor
from tensortrace.aten.tensor_body import Tensor as AtTensor
from tensortrace.c10.exception import TORCH_CHECK_TYPE
from tensortrace.c10.scalar_type import ScalarType
from tensortrace.trace import traced

SOURCE = "torch/csrc/utils/tensor_new.cpp"


def _infer_scalar_type(data: Any) -> ScalarType:
    """infer_scalar_type for an index list: Bool for all-bool data, Byte for uint8, else Long."""
    values = np.asarray(data, dtype=object).ravel()
    for v in values:
        TORCH_CHECK_TYPE(
            isinstance(v, (bool, int, float, np.bool_, np.integer, np.floating)),
            "new(): invalid data type '",
            type(v).__name__,
            "'",
        )
    if values.size and all(isinstance(v, (bool, np.bool_)) for v in values):
        return ScalarType.Bool
    return ScalarType.Long


@traced("python", "torch::utils::indexing_tensor_from_data", SOURCE, legacy="sequenceToVariable")
def sequenceToVariable(self: AtTensor, seq: Any) -> AtTensor:
    TORCH_CHECK_TYPE(not isinstance(seq, str), "new(): invalid data type 'str'")
    scalar_type = _infer_scalar_type(seq)
    try:
        values = np.asarray(seq, dtype=np.float64 if scalar_type == ScalarType.Long else np.bool_)
    except ValueError:
        raise ValueError(
            f"expected sequence of length {len(seq[0])} at dim 1 (got {len(seq[-1])})"
        ) from None
    # internal_new_from_data: empty, store the values, to(device, dtype), lift_fresh
    tensor = at.empty(list(values.shape), dtype=scalar_type)
    if values.size:
        # recursive_store: a float in an index list is truncated, as a C cast would
        tensor.numpy_view()[...] = values.astype(tensor.numpy_view().dtype)
    tensor = tensor.to(scalar_type)
    return at.lift_fresh(tensor)


@traced("python", "at::indexing::scalarToTensor", "aten/src/ATen/TensorIndexing.h")
def scalarToTensor(value: Any, self: AtTensor) -> AtTensor:
    """A 0-dim CPU tensor of self's dtype holding value (scalar_tensor_static, no dispatch)."""
    if isinstance(value, bool):
        value = int(value)  # THPUtils_unpackLong: a bool is assigned as 0 or 1
    return scalar_to_tensor(value, self.scalar_type())
