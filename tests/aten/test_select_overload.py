"""select_overload remembers, per call shape, the overload and how to bind the rest of the
arguments (Note [The overload chosen per argument types]). These calls alternate shapes, so a
key that missed what decides a binding would hand one call another call's arguments."""

from __future__ import annotations

import pytest

from tensortrace.aten import functions as at
from tensortrace.aten.codegen import select_overload
from tensortrace.aten.generated import functions as generated
from tensortrace.c10.scalar_type import ScalarType


def test_a_single_overload_binds_each_call_by_its_own_keywords() -> None:
    ov = generated._ov_empty
    assert ov.single
    first = at.empty([2, 3], dtype=ScalarType.Double)
    second = at.empty([4])
    third = at.empty([1, 2], pin_memory=False, dtype=ScalarType.Int)
    assert (first.sizes(), first.scalar_type()) == ((2, 3), ScalarType.Double)
    assert (second.sizes(), second.scalar_type()) == ((4,), ScalarType.Float)
    assert (third.sizes(), third.scalar_type()) == ((1, 2), ScalarType.Int)
    # each keyword lands in its own parameter, whatever the order it was given in
    _, full = select_overload(ov, ([5],), {"pin_memory": None, "dtype": ScalarType.Bool}, "x")
    assert full == ([5], ScalarType.Bool, None, None, None, None)


def test_a_required_argument_is_checked_whatever_an_earlier_call_gave() -> None:
    assert at.empty(size=[3]).sizes() == (3,)
    with pytest.raises(RuntimeError, match="missing argument 'size'"):
        at.empty(dtype=ScalarType.Float)
    with pytest.raises(RuntimeError, match="missing argument 'size'"):
        at.empty()


def test_among_several_overloads_the_argument_types_still_decide() -> None:
    ov = generated._ov_add
    assert not ov.single
    t = at.ones([2])
    by_tensor, _ = select_overload(ov, (t, t), {}, "at::add")
    by_scalar, _ = select_overload(ov, (t, 2), {}, "at::add")
    assert (by_tensor.full_name, by_scalar.full_name) == ("add.Tensor", "add.Scalar")
    again, _ = select_overload(ov, (t, t), {}, "at::add")
    assert again is by_tensor
