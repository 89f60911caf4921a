"""addmm with an out_dtype: the fp16/bf16 GEMM that writes fp32 (CUDA only, as in torch 2.13).

Mirrors `_addmm_dtype_cuda` and `_addmm_dtype_out_cuda` of `aten/src/ATen/native/cuda/Blas.cpp`:
`addmm.dtype` and `addmm.dtype_out` have only a CUDA kernel in native_functions.yaml, so on the
CPU the dispatcher finds none. The inputs share one dtype; out_dtype is that dtype, or float32
for float16 / bfloat16 inputs, whose products cuBLAS accumulates in float32 and writes without
rounding back: here the inputs are widened to float32 and multiplied there, which is the same.
"""

from __future__ import annotations

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar import Scalar
from tensortrace.c10.scalar_type import ScalarType

SOURCE = "aten/src/ATen/native/cuda/Blas.cpp"


@native_function(SOURCE, name="_addmm_dtype_cuda", legacy="at::native::_addmm_dtype_cuda")
def _addmm_dtype_cuda(
    self: Tensor,
    mat1: Tensor,
    mat2: Tensor,
    out_dtype: ScalarType,
    beta: Scalar = 1,
    alpha: Scalar = 1,
) -> Tensor:
    result = at.empty(list(self.sizes()), dtype=out_dtype, device=self.device())
    return _addmm_dtype_out_cuda(self, mat1, mat2, out_dtype, beta, alpha, result)


@native_function(SOURCE, name="_addmm_dtype_out_cuda", legacy="at::native::_addmm_dtype_out_cuda")
def _addmm_dtype_out_cuda(
    self: Tensor,
    mat1: Tensor,
    mat2: Tensor,
    out_dtype: ScalarType,
    beta: Scalar = 1,
    alpha: Scalar = 1,
    out: Tensor | None = None,
) -> Tensor:
    assert out is not None
    TORCH_CHECK(
        self.scalar_type() == mat2.scalar_type(),
        "self and mat2 must have the same dtype, but got ",
        self.scalar_type(),
        " and ",
        mat2.scalar_type(),
    )
    TORCH_CHECK(
        mat1.scalar_type() == mat2.scalar_type(),
        "mat1 and mat2 must have the same dtype, but got ",
        mat1.scalar_type(),
        " and ",
        mat2.scalar_type(),
    )
    TORCH_CHECK(
        out_dtype == mat1.scalar_type()
        or (
            out_dtype == ScalarType.Float
            and mat1.scalar_type() in (ScalarType.Half, ScalarType.BFloat16)
        ),
        "out_dtype must be the same as input dtype or fp32 for fp16/bf16 inputs",
    )
    TORCH_CHECK(
        out_dtype == out.scalar_type(),
        "out_dtype must be the same as the dtype of the provided out tensor",
    )
    if out_dtype == mat1.scalar_type():
        return at.addmm(self, mat1, mat2, beta=beta, alpha=alpha, out=out)  # type: ignore[no-any-return]
    wide = [t.to(ScalarType.Float) for t in (self, mat1, mat2)]
    return at.addmm(*wide, beta=beta, alpha=alpha, out=out)  # type: ignore[no-any-return]
