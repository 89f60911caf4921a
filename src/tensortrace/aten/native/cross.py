"""cross and linalg_cross: the cross product of 3-vectors along a dimension.

Mirrors `aten/src/ATen/native/Cross.cpp` (TORCH_META_FUNC(linalg_cross), cross with its
deprecated default dim, the first dim of size 3) and the loop of `cpu/CrossKernel.cpp`
(apply_cross): out = (a1 b2 - a2 b1, a2 b0 - a0 b2, a0 b1 - a1 b0) along `dim`, after
broadcasting the two inputs.
"""

from __future__ import annotations

import warnings

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.expand_utils import infer_size
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import promoteTypes
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/Cross.cpp"
_WARNED: set[str] = set()


@traced(
    "kernel",
    "at::native::(anonymous)::cross_kernel_impl",
    "aten/src/ATen/native/cpu/CrossKernel.cpp",
    legacy="apply_cross",
)
def cross_kernel(result: Tensor, a: np.ndarray, b: np.ndarray, dim: int) -> None:
    result.numpy_view()[...] = np.cross(a, b, axis=dim)


@native_function(SOURCE)
def linalg_cross(self: Tensor, other: Tensor, dim: int = -1) -> Tensor:
    x_d, y_d = self.dim(), other.dim()
    TORCH_CHECK(x_d == y_d, "linalg.cross: inputs must have the same number of dimensions.")
    TORCH_CHECK(
        self.size(dim) == 3 and other.size(dim) == 3,
        "linalg.cross: inputs dimension ",
        dim,
        " must have length 3. Got ",
        self.size(dim),
        " and ",
        other.size(dim),
    )
    shape = list(infer_size(self.sizes(), other.sizes()))
    dim = maybe_wrap_dim(dim, len(shape))
    dtype = promoteTypes(self.scalar_type(), other.scalar_type())
    result = at.empty(shape, dtype=dtype, device=self.device())
    if result.numel():
        a = np.broadcast_to(self.numpy_view(), shape).astype(result.numpy_view().dtype)
        b = np.broadcast_to(other.numpy_view(), shape).astype(result.numpy_view().dtype)
        cross_kernel(result, a, b, dim)
    return result


def _default_cross_dim(sizes: tuple[int, ...]) -> int:
    for i, s in enumerate(sizes):
        if s == 3:
            return i
    TORCH_CHECK(False, "no dimension of size 3 in input")
    return -1


@native_function(SOURCE)
def cross(self: Tensor, other: Tensor, dim: int | None = None) -> Tensor:
    if dim is None:
        if "cross" not in _WARNED:
            _WARNED.add("cross")
            warnings.warn(
                "Using torch.cross without specifying the dim arg is deprecated.\n"
                "Please either pass the dim explicitly or simply use "
                "torch.linalg.cross.\nThe default value of dim will change to agree "
                "with that of linalg.cross in a future release.",
                UserWarning,
                stacklevel=2,
            )
        dim = _default_cross_dim(
            tuple(infer_size(self.sizes(), other.sizes()))
            if self.dim() == other.dim()
            else self.sizes()
        )
    return at.linalg_cross(self, other, dim=dim)
