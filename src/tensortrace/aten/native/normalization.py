"""renorm: rescale each slice along a dim whose p-norm exceeds maxnorm down to maxnorm.

Mirrors TORCH_META_FUNC(renorm) (ReduceOps.cpp: the checks and an output of self's shape)
and TORCH_IMPL_FUNC(renorm_out) of `aten/src/ATen/native/Normalization.cpp` (batch norm's
part of that file is batch_norm.py): the p-norm over every dim but `dim` (in float for half
inputs), turned into a scale factor by renorm_scale_factor_stub (maxnorm / (norm + 1e-7) where
norm > maxnorm, else 1; its kernel is in native/cpu/reduce_ops_kernel.py), and self * factor
written to out.
"""

from __future__ import annotations

from typing import Any

from tensortrace.aten import functions as at
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.registry import impl_function, meta_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorBase, TensorIteratorConfig
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType, toRealValueType
from tensortrace.c10.tensor_options import TensorOptions

SOURCE = "aten/src/ATen/native/Normalization.cpp"

renorm_scale_factor_stub = DECLARE_DISPATCH(
    "renorm_scale_factor_stub", "aten/src/ATen/native/Normalization.h"
)


def acc_type_cuda(dtype: ScalarType) -> ScalarType:
    """at::toAccumulateType(dtype, /*is_cuda=*/true) for the floating types: half -> float."""
    if dtype in (ScalarType.Half, ScalarType.BFloat16):
        return ScalarType.Float
    return dtype


@meta_function("renorm", "aten/src/ATen/native/ReduceOps.cpp")
def meta_renorm(it: TensorIteratorBase, self: Tensor, p: Any, dim: int, maxnorm: Any) -> None:
    TORCH_CHECK(not isinstance(p, complex), "renorm: p must be real-valued")
    TORCH_CHECK(float(p) > 0.0, "renorm: non-positive-norm not supported")
    TORCH_CHECK(not isinstance(maxnorm, complex), "renorm: maxnorm must be real-valued")
    TORCH_CHECK(
        float(maxnorm) >= 0.0, "renorm: expected maxnorm to be >= 0 but got ", float(maxnorm)
    )
    ndim = self.dim()
    TORCH_CHECK(ndim > 1, "renorm: input needs at least 2 dimensions, got ", ndim, " dimensions")
    it.set_output_raw_strided(
        0, list(self.sizes()), (), TensorOptions(self.scalar_type(), self.device())
    )


@impl_function("renorm_out", SOURCE)
def renorm_out(
    it: TensorIteratorBase, self: Tensor, p: Any, dim: int, maxnorm: Any, out: Tensor
) -> None:
    dim = maybe_wrap_dim(dim, self.dim())
    reduce_dims = [d for d in range(self.dim()) if d != dim]
    dtype = self.scalar_type()
    acc_type = acc_type_cuda(dtype)
    if acc_type != dtype:  # half: the norm in float, the factor cast back
        norm = at.linalg_vector_norm(self, float(p), reduce_dims, True, dtype=acc_type)
    else:
        norm = at.linalg_vector_norm(self, float(p), reduce_dims, True)
    factor = (
        norm
        if acc_type == toRealValueType(dtype)
        else at.empty(list(norm.sizes()), dtype=dtype, device=self.device())
    )
    iter_ = (
        TensorIteratorConfig()
        .add_output(factor)
        .add_input(norm)
        .set_check_mem_overlap(False)
        .cast_common_dtype_to_outputs(True)
        .build()
    )
    renorm_scale_factor_stub(iter_.device_type(), iter_, float(maxnorm))
    at.mul(self, factor, out=out)
