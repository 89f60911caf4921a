"""TensorArg and the argument checks kernels run on it (checkDim, checkDimRange, checkSize,
checkScalarType), with TensorUtils' messages: "Expected 3-dimensional tensor, but got
2-dimensional tensor for argument #1 'log_probs' (while checking arguments for ...)".

Mirrors `aten/src/ATen/TensorUtils.h` / `TensorUtils.cpp` (the part not in tensor_utils.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tensortrace.c10.exception import TORCH_CHECK

if TYPE_CHECKING:
    from tensortrace.aten.tensor_body import Tensor
    from tensortrace.c10.scalar_type import ScalarType


@dataclass(frozen=True)
class TensorArg:
    tensor: Tensor
    name: str
    pos: int  # 1-based, as in the C++

    def __str__(self) -> str:  # operator<<(std::ostream&, const TensorGeometryArg&)
        return f"argument #{self.pos} '{self.name}'"


def checkDim(c: str, t: TensorArg, dim: int) -> None:  # noqa: N802 - TensorUtils' name
    TORCH_CHECK(
        t.tensor.dim() == dim,
        f"Expected {dim}-dimensional tensor, but got {t.tensor.dim()}-dimensional tensor for ",
        t,
        f" (while checking arguments for {c})",
    )


def checkDimRange(c: str, t: TensorArg, dim_start: int, dim_end: int) -> None:  # noqa: N802 - TensorUtils' name
    """dim_start <= t.dim() < dim_end (the end is exclusive, as the message's "to" is not)."""
    TORCH_CHECK(
        dim_start <= t.tensor.dim() < dim_end,
        f"Expected {dim_start} to {dim_end - 1} dimensions, but got {t.tensor.dim()}"
        "-dimensional tensor for ",
        t,
        f" (while checking arguments for {c})",
    )


def checkSize(c: str, t: TensorArg, dim: int, size: int) -> None:  # noqa: N802 - TensorUtils' name
    TORCH_CHECK(
        t.tensor.size(dim) == size,
        f"Expected tensor to have size {size} at dimension {dim}, but got size "
        f"{t.tensor.size(dim)} for ",
        t,
        f" (while checking arguments for {c})",
    )


def checkScalarType(c: str, t: TensorArg, ty: ScalarType) -> None:  # noqa: N802 - TensorUtils' name
    # t->toString() is the legacy type name: torch.FloatTensor
    TORCH_CHECK(
        t.tensor.scalar_type() == ty,
        "Expected tensor for ",
        t,
        f" to have scalar type {ty}; but got torch.{t.tensor.scalar_type()}Tensor instead "
        f"(while checking arguments for {c})",
    )
