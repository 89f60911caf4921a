"""The storage strip: a tensor's sizes, strides and storage offset mapped onto its storage.

Seed 003's picture, for any rank: the logical tensor on top (a row for rank 1, grids for the last
two dimensions with one grid per index of the leading ones), its one-dimensional storage below,
the storage elements the tensor reaches filled in, and the element one index reaches highlighted
with the sum that finds it: `data[1][2][2]` of `arange(24).view(2, 3, 4)` is element
0 + 1*12 + 2*4 + 2*1 = 22. The arithmetic is `TensorImpl::data()` plus the stride walk every
strided kernel does (`c10/core/TensorImpl.h`, `aten/src/ATen/TensorIterator.cpp`); the bounds
check is the one `as_strided` and `set_` run (`checkInBoundsForStorage` in
`aten/src/ATen/native/Resize.h`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

from tensortrace.viz import svg
from tensortrace.viz.svg import HIGHLIGHT, INK, LAYER_COLORS, MUTED, SOFT, SvgPicture

CELL = 34
GAP = 14
PAD = 16
MAX_ELEMENTS = 1024  # beyond this a picture stops being readable


def storage_index(
    index: Sequence[int], sizes: Sequence[int], strides: Sequence[int], offset: int
) -> int:
    """The storage element `index` reaches: offset + sum(i_k * stride_k), as PyTorch computes."""
    if len(index) != len(sizes):
        raise IndexError(
            f"too many indices for tensor of dimension {len(sizes)}"
            if len(index) > len(sizes)
            else f"expected {len(sizes)} indices, got {len(index)}"
        )
    for dim, (i, size) in enumerate(zip(index, sizes)):
        if not -size <= i < size:
            raise IndexError(f"index {i} is out of bounds for dimension {dim} with size {size}")
    return offset + sum((i % size) * stride for i, size, stride in zip(index, sizes, strides))


def required_storage(sizes: Sequence[int], strides: Sequence[int], offset: int) -> int:
    """Elements of storage a layout needs: 0 when empty, else 1 + offset + max reach."""
    if any(s == 0 for s in sizes):
        return 0
    return 1 + offset + sum((size - 1) * stride for size, stride in zip(sizes, strides))


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return str(value)
        return f"{value:.4g}" if not value.is_integer() else str(int(value))
    return str(value)


class StorageStrip(SvgPicture):
    """Draw `sizes`/`strides`/`offset` over a storage of `storage_len` elements.

    `index` (one int per dimension) picks the element to highlight; `values` (one per storage
    element) are printed under the storage indices. Storage rows wrap every `wrap` elements.
    """

    def __init__(
        self,
        sizes: Sequence[int],
        strides: Sequence[int],
        offset: int,
        storage_len: int,
        index: Sequence[int] | None = None,
        values: Sequence[Any] | None = None,
        name: str = "data",
        wrap: int = 24,
    ) -> None:
        self.sizes = tuple(int(s) for s in sizes)
        self.strides = tuple(int(s) for s in strides)
        self.offset = int(offset)
        self.storage_len = int(storage_len)
        self.name = name
        if len(self.sizes) != len(self.strides):
            raise ValueError(
                f"sizes {list(self.sizes)} and strides {list(self.strides)} differ in length"
            )
        if any(s < 0 for s in self.sizes) or any(s < 0 for s in self.strides) or self.offset < 0:
            raise ValueError("sizes, strides and offset must be non-negative")
        needed = required_storage(self.sizes, self.strides, self.offset)
        if needed > self.storage_len:
            # the same check (and wording) as as_strided/set_ on a too-small storage
            raise RuntimeError(
                f"setStorage: sizes {list(self.sizes)}, strides {list(self.strides)}, storage "
                f"offset {self.offset}, requiring a storage size of {needed} elements are out of "
                f"bounds for storage of size {self.storage_len} elements"
            )
        numel = math.prod(self.sizes)
        if numel > MAX_ELEMENTS or self.storage_len > MAX_ELEMENTS:
            raise ValueError(
                f"too large to draw: {numel} elements over a storage of "
                f"{self.storage_len} (the limit is {MAX_ELEMENTS})"
            )
        if values is not None and len(values) != self.storage_len:
            raise ValueError(f"{len(values)} values for a storage of {self.storage_len}")
        self.values = list(values) if values is not None else None
        self.index = tuple(index) if index is not None else None
        self.target = (
            storage_index(self.index, self.sizes, self.strides, self.offset)
            if self.index is not None
            else None
        )
        # every logical index and the storage element it reaches, in row-major order
        self.mapping: dict[tuple[int, ...], int] = {
            ix: self.offset + sum(i * s for i, s in zip(ix, self.strides))
            for ix in itertools.product(*(range(s) for s in self.sizes))
        }
        self.reached: dict[int, int] = {}
        for k in self.mapping.values():
            self.reached[k] = self.reached.get(k, 0) + 1
        self.wrap = max(1, wrap)
        width, height, body = self._draw()
        label = (
            f"storage strip: sizes {list(self.sizes)}, strides {list(self.strides)}, "
            f"offset {self.offset}"
        )
        super().__init__(width, height, body, label=label)

    @classmethod
    def from_tensor(
        cls, tensor: Any, index: Sequence[int] | None = None, name: str = "data", wrap: int = 24
    ) -> StorageStrip:
        """The strip of a live tensortrace tensor: its TensorImpl's layout over its StorageImpl."""
        impl = tensor.cdata.unsafeGetTensorImpl()
        storage = impl.storage().unsafeGetStorageImpl()
        meta = impl.dtype()
        length = storage.nbytes() // meta.itemsize
        values: list[Any] | None = None
        if meta.numpy is not None:
            raw = storage.bytes_view()[: length * meta.itemsize]
            values = raw.view(meta.numpy).tolist()
        return cls(
            impl.sizes(),
            impl.strides(),
            impl.storage_offset(),
            length,
            index=index,
            values=values,
            name=name,
            wrap=wrap,
        )

    # ---- text ---------------------------------------------------------------------------------
    def formula(self) -> str:
        """`data[1][2][2] -> 0 + 1*12 + 2*4 + 2*1 = 22` for the highlighted index."""
        if self.index is None or self.target is None:
            return ""
        ix = [i % s for i, s in zip(self.index, self.sizes)]
        subscript = "".join(f"[{i}]" for i in self.index) if self.index else "[()]"
        terms = [str(self.offset)] + [f"{i}*{s}" for i, s in zip(ix, self.strides)]
        return f"{self.name}{subscript} -> {' + '.join(terms)} = {self.target}"

    # ---- drawing ------------------------------------------------------------------------------
    def _grids(self) -> list[tuple[tuple[int, ...], int, int]]:
        """The 2-D pieces of the logical tensor: (leading index, rows, cols)."""
        rank = len(self.sizes)
        if rank == 0:
            return [((), 1, 1)]
        if rank == 1:
            return [((), 1, self.sizes[0])]
        rows, cols = self.sizes[-2], self.sizes[-1]
        return [
            (lead, rows, cols) for lead in itertools.product(*(range(s) for s in self.sizes[:-2]))
        ]

    def _draw(self) -> tuple[float, float, list[str]]:
        body: list[str] = []
        rank = len(self.sizes)
        header = (
            f"{self.name}: sizes {tuple(self.sizes)}  strides {tuple(self.strides)}  "
            f"storage_offset {self.offset}  storage {self.storage_len} elements"
        )
        y: float = PAD + 12
        body.append(svg.text(PAD, y, header, 13, class_="header"))
        y += 14

        # logical grids, laid out left to right and wrapped to the storage strip's width
        strip_w = min(self.wrap, max(self.storage_len, 1)) * CELL
        grids = self._grids()
        max_w = max(strip_w, max(c * CELL for _, _, c in grids))
        x: float = PAD
        row_h = 0.0
        y += 10
        target_xy: tuple[float, float] | None = None
        for lead, rows, cols in grids:
            gw, gh = cols * CELL, rows * CELL + 18
            if x > PAD and x - PAD + gw > max_w:
                x, y = PAD, y + row_h + GAP
                row_h = 0.0
            label = (
                f"{self.name}[{']['.join(map(str, lead))}]"
                if lead
                else f"{self.name}" + (" (0-d)" if rank == 0 else "")
            )
            body.append(svg.text(x, y + 12, label, 11, class_="grid-label", **SOFT))
            for r in range(rows):
                for c in range(cols):
                    ix = (*lead, r, c) if rank >= 2 else ((c,) if rank == 1 else ())
                    k = self.mapping[ix]
                    cx, cy = x + c * CELL, y + 18 + r * CELL
                    is_target = self.index is not None and ix == tuple(
                        i % s for i, s in zip(self.index, self.sizes)
                    )
                    body.append(
                        self._cell(cx, cy, k, "logical", is_target, index=",".join(map(str, ix)))
                    )
                    if is_target:
                        target_xy = (cx + CELL / 2, cy + CELL)
            x += gw + GAP * 2
            row_h = max(row_h, gh)
        y += row_h + 28

        # the storage, wrapped every `wrap` elements
        body.append(
            svg.text(
                PAD,
                y,
                "storage (one dimension, what the allocator handed out)",
                11,
                class_="storage-label",
                **SOFT,
            )
        )
        y += 8
        storage_top = y
        storage_xy: tuple[float, float] | None = None
        for k in range(self.storage_len):
            r, c = divmod(k, self.wrap)
            cx, cy = PAD + c * CELL, storage_top + r * (CELL + 16)
            body.append(
                svg.text(
                    cx + CELL / 2, cy + 10, str(k), 9, "middle", **MUTED, class_="storage-index"
                )
            )
            body.append(self._cell(cx, cy + 13, k, "storage", k == self.target))
            if k == self.target:
                storage_xy = (cx + CELL / 2, cy + 13)
        rows = max(1, math.ceil(self.storage_len / self.wrap))
        y = storage_top + rows * (CELL + 16) + 8

        if target_xy is not None and storage_xy is not None:
            (x1, y1), (x2, y2) = target_xy, storage_xy
            mid = (y1 + y2) / 2
            body.append(
                svg.path(
                    f"M {x1:.1f} {y1:.1f} C {x1:.1f} {mid:.1f} {x2:.1f} {mid:.1f} "
                    f"{x2:.1f} {y2:.1f}",
                    fill="none",
                    stroke=HIGHLIGHT,
                    stroke_width=2,
                    class_="target-link",
                )
            )
        legend = f"{len(self.reached)} of {self.storage_len} storage elements reached" + (
            "" if self.is_contiguous() else " (not contiguous)"
        )
        body.append(svg.text(PAD, y + 6, legend, 11, class_="legend", **SOFT))
        y += 20
        if self.index is not None:
            body.append(
                svg.text(
                    PAD, y + 6, self.formula(), 13, class_="formula", fill=INK, font_weight="bold"
                )
            )
            y += 20
        width = PAD * 2 + max(max_w, len(header) * 7.3)
        return width, y + PAD, body

    def _cell(
        self, x: float, y: float, k: int, where: str, is_target: bool, index: str | None = None
    ) -> str:
        reached = k in self.reached
        classes = ["cell", where]
        if where == "storage" and reached:
            classes.append("reached")
        if is_target:
            classes.append("target")
        # hues over the page's own background (light or dark theme), lines in its text colour
        if where == "logical":
            fill, opacity = LAYER_COLORS["python"], 0.15
        else:
            fill, opacity = (LAYER_COLORS["native"], 0.3) if reached else ("none", 1)
        stroke, width, stroke_opacity = (INK, 1, 0.5) if not is_target else (HIGHLIGHT, 3, 1)
        parts = [
            svg.rect(
                x + 1,
                y + 1,
                CELL - 2,
                CELL - 2,
                fill=fill,
                fill_opacity=opacity,
                stroke=stroke,
                stroke_opacity=stroke_opacity,
                stroke_width=width,
                rx=3,
            )
        ]
        value = self.values[k] if self.values is not None else None
        main = str(k) if where == "logical" or value is None else _fmt(value)
        parts.append(
            svg.text(
                x + CELL / 2,
                y + (15 if value is not None else 21),
                main,
                11 if value is None or where == "logical" else 10,
                "middle",
            )
        )
        if value is not None and where == "logical":
            parts.append(svg.text(x + CELL / 2, y + 27, _fmt(value), 8, "middle", **SOFT))
        tip = f"storage[{k}]" + (f" = {_fmt(value)}" if value is not None else "")
        if index is not None:
            tip = f"{self.name}[{index.replace(',', '][')}] -> " + tip
        parts.append(svg.title(tip))
        return svg.group(
            parts,
            class_=" ".join(classes),
            data_storage=k,
            data_index=index,
            data_reached=self.reached.get(k, 0) if where == "storage" else None,
        )

    def is_contiguous(self) -> bool:
        expected = 1
        for size, stride in zip(reversed(self.sizes), reversed(self.strides)):
            if size != 1 and stride != expected:
                return False
            expected *= size
        return True


def storage_strip(
    tensor: Any = None,
    index: Sequence[int] | None = None,
    *,
    sizes: Sequence[int] | None = None,
    strides: Sequence[int] | None = None,
    offset: int = 0,
    storage_len: int | None = None,
    values: Sequence[Any] | None = None,
    name: str = "data",
) -> StorageStrip:
    """`storage_strip(t, (1, 2, 2))` for a live tensor, or give sizes/strides/offset/storage_len."""
    if tensor is not None:
        return StorageStrip.from_tensor(tensor, index=index, name=name)
    if sizes is None:
        raise TypeError("storage_strip() needs a tensor or sizes=")
    if strides is None:
        strides = []
        acc = 1
        for s in reversed(sizes):
            strides.insert(0, acc)
            acc *= max(s, 1)
    if storage_len is None:
        storage_len = required_storage(sizes, strides, offset)
    return StorageStrip(sizes, strides, offset, storage_len, index=index, values=values, name=name)
