"""The storage strip: seed 003's examples, any rank, bounds checks, a golden SVG."""

from __future__ import annotations

import numpy as np
import pytest

import tensortrace as torch
from tensortrace.viz import StorageStrip, required_storage, storage_index, storage_strip

from .svgutil import check_golden, parse, texts, with_class


def test_seed003_data_1_2_2_reaches_element_22() -> None:
    strip = storage_strip(sizes=(2, 3, 4), index=(1, 2, 2), values=list(range(24)))
    assert strip.strides == (12, 4, 1)
    assert strip.target == 22
    assert strip.formula() == "data[1][2][2] -> 0 + 1*12 + 2*4 + 2*1 = 22"
    root = parse(strip.to_svg())
    [storage_target] = with_class(root, "storage", "target")
    assert storage_target.get("data-storage") == "22"
    [logical_target] = with_class(root, "logical", "target")
    assert logical_target.get("data-index") == "1,2,2"
    assert len(with_class(root, "storage", "reached")) == 24
    assert texts(with_class(root, "formula")[0]) == [strip.formula()]


def test_seed003_set_with_offset_3_size_2x3_stride_5x2() -> None:
    strip = storage_strip(sizes=(2, 3), strides=(5, 2), offset=3, storage_len=24)
    root = parse(strip.to_svg())
    reached = sorted(int(el.get("data-storage")) for el in with_class(root, "storage", "reached"))
    assert reached == [3, 5, 7, 8, 10, 12]
    logical = [int(el.get("data-storage")) for el in with_class(root, "logical")]
    assert logical == [3, 5, 7, 8, 10, 12]  # row-major order of the logical tensor
    assert not with_class(root, "target")
    assert "not contiguous" in texts(with_class(root, "legend")[0])[0]


def test_golden_seed003_svg() -> None:
    strip = storage_strip(sizes=(2, 3, 4), index=(1, 2, 2), values=[float(i) for i in range(24)])
    check_golden("viz_storage_strip_seed003.svg", strip.to_svg() + "\n")


@pytest.mark.parametrize(
    ("sizes", "strides", "offset", "index"),
    [
        ((), (), 5, ()),
        ((7,), (3,), 1, (6,)),
        ((2, 2, 2, 3), (12, 6, 3, 1), 0, (1, 0, 1, 2)),
        ((3, 4), (1, 3), 0, (2, 1)),  # a transpose: column-major
        ((4, 3), (0, 1), 2, (3, 2)),  # an expand: stride 0 reaches the same elements again
    ],
)
def test_any_rank_matches_numpy(
    sizes: tuple[int, ...], strides: tuple[int, ...], offset: int, index: tuple[int, ...]
) -> None:
    length = required_storage(sizes, strides, offset) + 2
    strip = StorageStrip(sizes, strides, offset, length, index=index)
    base = np.arange(length)
    view = np.lib.stride_tricks.as_strided(
        base[offset:], sizes, [s * base.itemsize for s in strides]
    )
    assert strip.target == view[index]
    root = parse(strip.to_svg())
    assert {int(el.get("data-storage")) for el in with_class(root, "storage", "reached")} == set(
        np.unique(view).tolist()
    )
    assert [int(el.get("data-storage")) for el in with_class(root, "logical")] == view.reshape(
        -1
    ).tolist()
    [target] = with_class(root, "storage", "target")
    assert int(target.get("data-storage")) == strip.target


def test_stride_zero_counts_each_reach() -> None:
    strip = StorageStrip((4, 3), (0, 1), 0, 3)
    root = parse(strip.to_svg())
    assert [el.get("data-reached") for el in with_class(root, "storage")] == ["4", "4", "4"]


def test_out_of_bounds_layout_is_refused_like_as_strided() -> None:
    with pytest.raises(RuntimeError, match="out of bounds for storage of size 10"):
        StorageStrip((2, 3), (5, 2), 3, 10)
    with pytest.raises(IndexError, match="index 2 is out of bounds for dimension 0 with size 2"):
        storage_index((2, 0), (2, 3), (3, 1), 0)
    with pytest.raises(IndexError, match="too many indices"):
        storage_index((0, 0, 0), (2, 3), (3, 1), 0)


def test_negative_index_counts_from_the_end() -> None:
    assert storage_index((-1, -1), (2, 3), (3, 1), 0) == 5


def test_from_a_live_tensor() -> None:
    base = torch.empty(24)
    base.cdata.unsafeGetTensorImpl().numpy_view()[:] = np.arange(24)  # what arange would write
    data = base.as_strided((2, 3, 4), (12, 4, 1))
    strip = StorageStrip.from_tensor(data, index=(1, 2, 2))
    assert strip.target == 22 and strip.values == [float(i) for i in range(24)]
    x = base.as_strided((2, 3), (5, 2), 3)  # seed 003's set_(storage, 3, (2, 3), (5, 2))
    strip = storage_strip(x, (1, 2))
    assert strip.storage_len == 24 and strip.offset == 3
    assert sorted(strip.reached) == [3, 5, 7, 8, 10, 12]
    assert strip.target == 12
    assert strip.values is not None and strip.values[strip.target] == 12.0


def test_repr_svg_for_jupyter() -> None:
    strip = storage_strip(sizes=(2,))
    assert strip._repr_svg_() == str(strip) == strip.to_svg()
    assert strip._repr_svg_().startswith("<svg ")
