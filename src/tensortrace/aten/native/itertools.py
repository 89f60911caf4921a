"""cartesian_prod and combinations, as itertools.product and itertools.combinations do.

Mirrors `aten/src/ATen/native/Itertools.cpp`, all composites: cartesian_prod flattens the
"ij" meshgrid of its 1-d inputs and stacks the columns; combinations takes r copies of the
input's meshgrid and keeps the positions where the indices increase (i < j < k ..., or
i <= j <= k ... with replacement: _triu_mask), in row-major order.
"""

from __future__ import annotations

from collections.abc import Sequence

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.device import Device
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType

SOURCE = "aten/src/ATen/native/Itertools.cpp"


def _triu_mask(n: int, dims: int, diagonal: bool, device: Device) -> Tensor:
    """True where the indices satisfy i < j < k < ... (or i <= j <= k <= ... if diagonal)."""
    range_ = at.arange(n, dtype=ScalarType.Long, device=device)
    index_grids = at.meshgrid([range_] * dims, indexing="ij")
    mask = at.full(list(index_grids[0].sizes()), True, dtype=ScalarType.Bool, device=device)
    for i in range(dims - 1):
        if diagonal:
            mask.mul_(index_grids[i].le(index_grids[i + 1]))
        else:
            mask.mul_(index_grids[i].lt(index_grids[i + 1]))
    return mask


@native_function(SOURCE, name="cartesian_prod")
def cartesian_prod(tensors: Sequence[Tensor]) -> Tensor:
    for t in tensors:
        TORCH_CHECK(t.dim() == 1, "Expect a 1D vector, but got shape ", list(t.sizes()))
    if len(tensors) == 1:
        return tensors[0]
    grids = [t.flatten() for t in at.meshgrid(list(tensors), indexing="ij")]
    return at.stack(grids, 1)


@native_function(SOURCE, name="combinations")
def combinations(self: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    TORCH_CHECK(self.dim() == 1, "Expect a 1D vector, but got shape ", list(self.sizes()))
    TORCH_CHECK(r >= 0, "Expect a non-negative number, but got ", r)
    if r == 0:
        return at.empty([0], dtype=self.scalar_type(), device=self.device())
    num_elements = self.numel()
    grids = at.meshgrid([self] * r, indexing="ij")
    mask = _triu_mask(num_elements, r, with_replacement, self.device())
    return at.stack([t.masked_select(mask) for t in grids], 1)
