"""InputBuffer: where the gradients flowing into one Node are summed before it runs.

Mirrors `torch/csrc/autograd/input_buffer.h` / `input_buffer.cpp`: the first gradient for an
input is stored; a later one is added, in place into a buffer nobody else holds when grad mode is
off (accumulate()'s can_accumulate_inplace), else out of place.
"""

from __future__ import annotations

from tensortrace.aten.tensor_body import Tensor
from tensortrace.autograd import grad_mode
from tensortrace.autograd.accumulate_grad import is_non_overlapping_and_dense


def can_accumulate_inplace(v: Tensor) -> bool:
    return (
        is_non_overlapping_and_dense(v)
        and v.use_count() == 1
        and v.storage().unsafeGetStorageImpl().refcount_ == 1
    )


class InputBuffer:
    __slots__ = ("buffer",)

    def __init__(self, size: int) -> None:
        self.buffer: list[Tensor | None] = [None] * size

    def add(self, pos: int, var: Tensor | None) -> None:
        if var is None or not var.defined():
            return
        old = self.buffer[pos]
        if old is None:
            self.buffer[pos] = var
        elif grad_mode.is_grad_enabled():
            self.buffer[pos] = old.add(var)
        elif can_accumulate_inplace(old):
            self.buffer[pos] = old.add_(var)
        elif can_accumulate_inplace(var):
            self.buffer[pos] = var.add_(old)
        else:
            self.buffer[pos] = old.add(var)

    def variables(self) -> list[Tensor | None]:
        """InputBuffer::variables(std::move(buffer)): the gradients move out, so that they are
        freed when the Node's call is done with them, inside evaluate_function."""
        buffer, self.buffer = self.buffer, []
        return buffer
