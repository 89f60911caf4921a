"""max() and min() over a whole tensor: a 0-dim result.

Mirrors `aten/src/ATen/native/ReduceAllOps.cpp`: check the tensor is not empty, allocate the
0-dim result (aten::empty), run min_all_stub / max_all_stub over a contiguous input. The
kernels are in native/cpu/reduce_all_ops_kernel.py.
"""

from __future__ import annotations

from tensortrace.aten import functions as at
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.native.resize import resize_output
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import canCast

SOURCE = "aten/src/ATen/native/ReduceAllOps.cpp"
STUBS = "aten/src/ATen/native/ReduceAllOps.h"

max_all_stub = DECLARE_DISPATCH("max_all_stub", STUBS)
min_all_stub = DECLARE_DISPATCH("min_all_stub", STUBS)


def _contiguous(self: Tensor) -> Tensor:
    # TensorBase::contiguous: no dispatcher call when the tensor already is contiguous
    return self if self.is_contiguous() else self.contiguous()


def _reduce_all(name: str, self: Tensor, stub: object) -> Tensor:
    TORCH_CHECK(
        self.numel() > 0,
        name,
        "(): Expected reduction dim to be specified for "
        "input.numel() == 0. Specify the reduction dim with the 'dim' argument.",
    )
    result = at.empty([], dtype=self.scalar_type(), device=self.device())
    stub(self.device().type_, result, _contiguous(self))  # type: ignore[operator]
    return result


@native_function(SOURCE, name="max")
def max_(self: Tensor) -> Tensor:
    return _reduce_all("max", self, max_all_stub)


@native_function(SOURCE, name="min")
def min_(self: Tensor) -> Tensor:
    return _reduce_all("min", self, min_all_stub)


def _unary_out(self: Tensor, out: Tensor, stub: object) -> Tensor:
    TORCH_CHECK(self.device() == out.device())
    TORCH_CHECK(canCast(self.scalar_type(), out.scalar_type()))
    resize_output(out, [])
    stub(self.device().type_, out, _contiguous(self))  # type: ignore[operator]
    return out


@native_function(SOURCE, name="max_unary_out")
def max_unary_out(self: Tensor, out: Tensor) -> Tensor:
    return _unary_out(self, out, max_all_stub)


@native_function(SOURCE, name="min_unary_out")
def min_unary_out(self: Tensor, out: Tensor) -> Tensor:
    return _unary_out(self, out, min_all_stub)
