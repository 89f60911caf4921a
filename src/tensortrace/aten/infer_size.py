"""A shape with one -1 resolved against a number of elements: view's and reshape's sizes.

Mirrors `aten/src/ATen/InferSize.h` (infer_size_dv, infer_size_impl), with PyTorch's errors.
"""

from __future__ import annotations

from collections.abc import Sequence

from tensortrace.c10.exception import TORCH_CHECK, torchCheckFailAt
from tensortrace.trace import traced

INFER_SIZE = "aten/src/ATen/InferSize.h"


def _infer_size_at(line: int) -> tuple[str, str]:
    """The c10::SourceLocation of a check in InferSize.h (torch 2.13's line numbers)."""
    return "infer_size_impl", f"{INFER_SIZE}:{line}"


@traced("native", "at::infer_size_dv", INFER_SIZE, legacy="infer_size")
def infer_size_dv(shape: Sequence[int], numel: int) -> list[int]:
    """Resolve one -1 in `shape` so that it holds `numel` elements (infer_size_impl)."""
    newsize = 1
    infer_dim: int | None = None
    for dim, size in enumerate(shape):
        if size == -1:
            if infer_dim is not None:
                torchCheckFailAt(*_infer_size_at(30), "only one dimension can be inferred")
            infer_dim = dim
        elif size >= 0:
            newsize *= size
        else:
            torchCheckFailAt(
                *_infer_size_at(35),
                "invalid shape dimension ",
                size,
                " at index ",
                dim,
                " of shape ",
                list(shape),
            )
    res = list(shape)
    if numel == newsize or (infer_dim is not None and newsize > 0 and numel % newsize == 0):
        if infer_dim is not None:
            # -1 in a shape of 0 elements could be anything: PyTorch refuses to guess
            if newsize == 0:
                torchCheckFailAt(
                    *_infer_size_at(88),
                    "cannot reshape tensor of 0 elements into shape ",
                    list(shape),
                    " because the unspecified dimension size -1 can be any value and is ambiguous",
                )
            res[infer_dim] = numel // newsize
        return res
    TORCH_CHECK(False, "shape '", list(shape), "' is invalid for input of size ", numel)
    raise AssertionError("unreachable")
