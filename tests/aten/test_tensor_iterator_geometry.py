"""TensorIterator's geometry cache (Note [TensorIterator's geometry cache]).

A build that hits the cache must leave the iterator exactly as a fresh build would. The pairs
below differ in one input of the key each: the first build is stored, then the second must not
take its result (it is compared with a build of its own on an empty cache). A test fails if the
key misses one of its inputs.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tensortrace as torch
from tensortrace.aten import tensor_iterator_geometry as geometry_cache
from tensortrace.aten.scalar_ops import wrapped_scalar_tensor
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIterator
from tensortrace.aten.tensor_iterator_config import BinaryOpConfig, TensorIteratorConfig
from tensortrace.c10.scalar_type import ScalarType
from tensortrace.c10.storage_impl import StorageImpl
from tensortrace.c10.tensor_impl import TensorImpl

Build = Callable[[], TensorIterator]
SRC = str(Path(__file__).resolve().parents[2] / "src")


def at(t: torch.Tensor | None) -> Tensor:
    return Tensor() if t is None else t.cdata  # the at::Tensor under the Python handle


def tensor_state(t: Tensor) -> Any:
    impl = t.impl_.target_
    if impl is None:
        return None
    return (impl.sizes_, impl.strides_, impl.data_type_.scalar_type, str(impl.device_opt_))


def state(it: TensorIterator) -> dict[str, Any]:
    """Everything a build leaves on the iterator and its operands (tensors by geometry)."""
    return {
        "shape": list(it.shape_),
        "perm": list(it.perm_),
        "common_dtype": it.common_dtype_,
        "common_device": str(it.common_device_),
        "same_shape": it.all_ops_same_shape_,
        "scalars": it.all_ops_are_scalars_,
        "coalesced": it.has_coalesced_dimensions_,
        "num_outputs": it.num_outputs_,
        "operands": [
            (
                list(op.stride_bytes),
                op.target_dtype,
                op.current_dtype,
                str(op.device),
                op.is_output,
                op.is_const,
                op.will_resize,
                op.is_read_write,
                tensor_state(op.tensor),
                tensor_state(op.original_tensor),
            )
            for op in it.operands_
        ],
    }


def fresh(build: Build) -> dict[str, Any]:
    geometry_cache.CACHE.clear()
    return state(build())


def assert_second_is_not_taken_from_first(first: Build, second: Build) -> None:
    """`second` after `first` is stored: the same state as `second` on an empty cache."""
    expected = fresh(second)
    geometry_cache.CACHE.clear()
    first()
    assert geometry_cache.CACHE, "the first build was stored"
    assert state(second()) == expected
    assert state(second()) == expected  # and from its own entry


def binary(a: Any, b: Any, out: Any = None) -> Build:
    return lambda: TensorIterator.binary_op(at(out() if out else None), at(a()), at(b()))


def reduce(x: Any, dims: list[int] | None, keepdim: bool = False) -> Build:
    """The iterator of make_reduction: the result viewed with stride 0 along the reduced dims."""
    from tensortrace.aten.native.reduce_ops_utils import make_reduction

    def build() -> TensorIterator:
        t = x()
        result = t.sum(dims, keepdim=keepdim) if dims is not None else t.sum()
        return make_reduction(at(t), at(result), dims, keepdim, at(t).scalar_type())

    return build


@pytest.fixture(autouse=True)
def _empty_cache() -> Any:
    geometry_cache.CACHE.clear()
    yield
    geometry_cache.CACHE.clear()


def test_a_second_build_of_the_same_geometry_is_a_hit() -> None:
    a, b, c, d = (at(torch.rand(2, 3)) for _ in range(4))  # (rand's own builds are stored too)
    geometry_cache.CACHE.clear()
    expected = state(TensorIterator.binary_op(Tensor(), a, b))
    entries = dict(geometry_cache.CACHE)
    assert len(entries) == 1
    assert state(TensorIterator.binary_op(Tensor(), c, d)) == expected
    assert geometry_cache.CACHE == entries  # nothing new stored: the build was a hit


def test_a_hit_allocates_its_own_output() -> None:
    build = binary(lambda: torch.rand(2, 3), lambda: torch.rand(2, 3))
    first, second = build(), build()
    assert not first.output().is_same(second.output())
    assert first.output().data_ptr() != second.output().data_ptr()


CASES: dict[str, tuple[Build, Build]] = {
    "sizes": (
        binary(lambda: torch.rand(2, 3), lambda: torch.rand(2, 3)),
        binary(lambda: torch.rand(3, 2), lambda: torch.rand(3, 2)),
    ),
    "broadcast": (
        binary(lambda: torch.rand(2, 3), lambda: torch.rand(2, 3)),
        binary(lambda: torch.rand(2, 3), lambda: torch.rand(1, 3)),
    ),
    "strides": (
        binary(lambda: torch.rand(3, 3), lambda: torch.rand(3, 3)),
        binary(lambda: torch.rand(3, 3).t(), lambda: torch.rand(3, 3)),
    ),
    "non-contiguous": (
        binary(lambda: torch.rand(2, 4), lambda: torch.rand(2, 4)),
        binary(lambda: torch.rand(2, 8)[:, ::2], lambda: torch.rand(2, 4)),
    ),
    "dtype": (
        binary(lambda: torch.rand(2, 3), lambda: torch.rand(2, 3)),
        binary(lambda: torch.rand(2, 3), lambda: torch.rand(2, 3, dtype=torch.float64)),
    ),
    "zero-size": (
        binary(lambda: torch.rand(2, 3), lambda: torch.rand(2, 3)),
        binary(lambda: torch.rand(0, 3), lambda: torch.rand(0, 3)),
    ),
    "0-dim": (
        binary(lambda: torch.rand(1), lambda: torch.rand(1)),
        binary(lambda: torch.rand(()), lambda: torch.rand(())),
    ),
    "out= defined": (
        binary(lambda: torch.rand(2, 3), lambda: torch.rand(2, 3)),
        binary(lambda: torch.rand(2, 3), lambda: torch.rand(2, 3), lambda: torch.empty(2, 3)),
    ),
    "out= to resize": (
        binary(lambda: torch.rand(2, 3), lambda: torch.rand(2, 3), lambda: torch.empty(2, 3)),
        binary(lambda: torch.rand(2, 3), lambda: torch.rand(2, 3), lambda: torch.empty(0)),
    ),
    "out= of another dtype": (
        binary(lambda: torch.rand(2, 3), lambda: torch.rand(2, 3), lambda: torch.empty(2, 3)),
        binary(
            lambda: torch.rand(2, 3),
            lambda: torch.rand(2, 3),
            lambda: torch.empty(2, 3, dtype=torch.float64),
        ),
    ),
    "device": (
        binary(lambda: torch.rand(2, 3), lambda: torch.rand(()).double()),
        binary(lambda: torch.rand(2, 3, device="cuda"), lambda: torch.rand(()).double()),
    ),
    "reduced dims": (
        reduce(lambda: torch.rand(3, 4), [0]),
        reduce(lambda: torch.rand(3, 4), [1]),
    ),
    "keepdim": (
        reduce(lambda: torch.rand(3, 4), [1]),
        reduce(lambda: torch.rand(3, 4), [1], keepdim=True),
    ),
    "full reduction of a transposed input": (
        reduce(lambda: torch.rand(3, 4), None),
        reduce(lambda: torch.rand(4, 3).t(), None),
    ),
    "config flags": (
        binary(lambda: torch.rand(2, 3), lambda: torch.rand(2, 3)),
        lambda: TensorIterator.comparison_op(Tensor(), at(torch.rand(2, 3)), at(torch.rand(2, 3))),
    ),
    "config flags of one op": (
        lambda: TensorIterator.unary_op(Tensor(), at(torch.rand(2, 3))),
        lambda: TensorIterator.unary_float_op(Tensor(), at(torch.rand(2, 3))),
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_key_tells_apart(name: str) -> None:
    first, second = CASES[name]
    assert_second_is_not_taken_from_first(first, second)


def test_the_key_tells_apart_a_wrapped_number() -> None:
    """A wrapped Python float (what `t + 2.5` passes to add, a float64 0-dim tensor) with a
    float64 0-dim tensor computes in float64, no cast: stored. Two wrapped floats compute in
    the default dtype, float32."""
    one_wrapped = lambda: TensorIterator.binary_op(  # noqa: E731
        Tensor(), wrapped_scalar_tensor(2.5), at(torch.tensor(1.5).double())
    )
    two_wrapped = lambda: TensorIterator.binary_op(  # noqa: E731
        Tensor(), wrapped_scalar_tensor(2.5), wrapped_scalar_tensor(1.5)
    )
    assert_second_is_not_taken_from_first(one_wrapped, two_wrapped)
    assert two_wrapped().common_dtype_ != one_wrapped().common_dtype_


def test_the_key_tells_apart_the_device_index() -> None:
    """With two emulated CUDA devices, an add on cuda:1 after one on cuda:0."""
    program = (
        "import tensortrace as torch\n"
        "a = torch.rand(2, device='cuda:0'); b = torch.rand(2, device='cuda:1')\n"
        "print((a + a).device, (b + b).device, (a + a).device)\n"
    )
    env = {**os.environ, "TENSORTRACE_CUDA_DEVICES": "2", "PYTHONPATH": SRC}
    done = subprocess.run(
        [sys.executable, "-c", program], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.stdout.split() == ["cuda:0", "cuda:1", "cuda:0"], done.stderr


def test_the_key_tells_apart_the_default_dtype() -> None:
    """Where promotion reads the default dtype and no operand needs a cast, a build is stored:
    integer inputs computed in float without promoting the inputs, and two wrapped numbers."""

    def int_to_float() -> TensorIterator:
        config = (
            TensorIteratorConfig()
            .check_all_same_dtype(False)
            .promote_integer_inputs_to_float(True)
            .add_output(Tensor())
            .add_const_input(at(torch.ones(2, dtype=torch.int32)))
        )
        return config.build()

    def wrapped_numbers() -> TensorIterator:
        return TensorIterator.binary_op(
            Tensor(), wrapped_scalar_tensor(2.5), wrapped_scalar_tensor(1.5)
        )

    for build in (int_to_float, wrapped_numbers):
        geometry_cache.CACHE.clear()
        torch.set_default_dtype(torch.float64)
        try:
            as_float64 = state(build())
        finally:
            torch.set_default_dtype(torch.float32)
        as_float32 = state(build())
        assert as_float64["common_dtype"] == torch.float64.scalar_type
        assert as_float32 == fresh(build)
        assert as_float32["common_dtype"] == torch.float32.scalar_type


def test_the_key_tells_apart_an_output_that_is_an_input() -> None:
    """An in-place op cannot resize its output; an out= tensor of the same geometry can."""
    b = torch.rand(2, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.add(torch.rand(1, 3), b, out=torch.rand(1, 3))  # stored: the output resizes
    with pytest.raises(RuntimeError, match=r"output with shape \[1, 3\] doesn't match"):
        torch.rand(1, 3).add_(b)


def test_overlap_checks_run_on_a_hit() -> None:
    x = torch.rand(5)
    torch.add(torch.rand(4), torch.rand(4), out=torch.rand(4))  # the geometry, stored
    with pytest.raises(RuntimeError, match="unsupported operation"):
        torch.add(x[:-1], x[:-1], out=x[1:])
    with pytest.raises(RuntimeError, match="unsupported operation"):
        torch.add(torch.rand(4), torch.rand(4), out=torch.rand(1).expand(4))


def test_errors_on_a_hit_are_those_of_a_miss() -> None:
    for _ in range(2):  # the second time, anything stored by the first is there
        with pytest.raises(RuntimeError, match="The size of tensor a \\(3\\) must match"):
            torch.rand(2, 3) + torch.rand(2, 4)
        with pytest.raises(RuntimeError, match="result type Float can't be cast"):
            torch.add(torch.rand(2), torch.rand(2), out=torch.empty(2, dtype=torch.int64))


def test_an_out_resize_warns_on_every_build() -> None:
    for _ in range(3):
        out = torch.rand(3, 4)
        with pytest.warns(UserWarning, match="was resized"):
            torch.add(torch.rand(2, 3), torch.rand(2, 3), out=out)
        assert out.shape == (2, 3)


def test_an_output_computed_in_a_temporary_is_not_stored() -> None:
    a, b = at(torch.rand(2, 3)), at(torch.rand(2, 3))
    out = at(torch.empty(2, 3, dtype=torch.float64))
    # computed in float32, then cast to the float64 out (the copy that casts builds an
    # iterator of its own, which is stored)
    TensorIterator.binary_op(out, a, b)
    assert geometry_cache.geometry_key(BinaryOpConfig(out, a, b)) not in geometry_cache.CACHE


def test_a_hit_promotes_its_inputs_as_a_miss_does() -> None:
    a = at(torch.rand(2, 3))
    for _ in range(2):  # a miss, then a hit
        ints = at(torch.arange(6, dtype=torch.int32).reshape(2, 3))
        it = TensorIterator.binary_op(Tensor(), a, ints)
        promoted = it.operands_[2]
        assert promoted.original_tensor.is_same(ints)  # the int32 input, kept to restore
        assert promoted.tensor.scalar_type() == ScalarType.Float  # computed on a float copy
        assert not promoted.tensor.is_same(ints)
        assert promoted.tensor.numpy_view().tolist() == [[0, 1, 2], [3, 4, 5]]
    assert geometry_cache.geometry_key(BinaryOpConfig(Tensor(), a, ints)) in geometry_cache.CACHE


def test_the_cache_keeps_no_tensor_alive() -> None:
    torch.rand(3, 4).sum(0)
    torch.rand(3, 4) + torch.rand(4)
    assert geometry_cache.CACHE
    # walk the keys and entries down to their leaves (not into classes and modules)
    containers = (tuple, list, dict, geometry_cache.Geometry)
    todo: list[Any] = [geometry_cache.CACHE]
    while todo:
        obj = todo.pop()
        assert not isinstance(obj, (Tensor, torch.Tensor, TensorImpl, StorageImpl, np.ndarray))
        if isinstance(obj, containers):
            todo.extend(gc.get_referents(obj))


def test_a_traced_build_runs_every_step_with_a_warm_cache() -> None:
    a = torch.rand(4, 4)
    a.sum()
    a.sum()  # a hit
    with torch.record() as t:
        a.sum()
    names = [e.name for e in t.events if e.ph == "B" and e.name.startswith("TensorIteratorBase")]
    assert names == [
        "TensorIteratorBase::build",
        "TensorIteratorBase::mark_outputs",
        "TensorIteratorBase::compute_shape",
        "TensorIteratorBase::compute_types",
        "TensorIteratorBase::fast_set_up",
        "TensorIteratorBase::compute_strides",
        "TensorIteratorBase::reorder_dimensions",
        "TensorIteratorBase::allocate_or_resize_outputs",
        "TensorIteratorBase::coalesce_dimensions",
    ]


def outcome(build: Build) -> Any:
    """A build's state, or the error it raises."""
    try:
        return state(build())
    except RuntimeError as e:
        return (type(e).__name__, str(e))


def config_build(flags: Callable[[TensorIteratorConfig], Any], *tensors: Any, outputs: int = 1):
    """A build of a config with `flags` set, over tensors made anew on each call."""

    def build() -> TensorIterator:
        config = TensorIteratorConfig()
        flags(config)
        for i, make in enumerate(tensors):
            t = at(make())
            config.add_output(t) if i < outputs else config.add_const_input(t)
        return config.build()

    return build


def f32(*shape: int) -> Any:
    return lambda: torch.rand(*shape)


def undefined() -> None:
    return None


def no_dtype_check(c: TensorIteratorConfig) -> Any:
    return c.check_all_same_dtype(False)


# (flags of the first build, flags of the second, its tensors, number of outputs): the two
# differ in one setter; the first is stored, and the second must build as on its own
FLAG_CASES: dict[str, tuple[Any, Any, tuple[Any, ...], int]] = {
    "check_all_same_dtype": (
        no_dtype_check,
        lambda c: c,
        (undefined, f32(2), lambda: torch.rand(2).double()),
        1,
    ),
    "static_dtype": (
        lambda c: no_dtype_check(c).declare_static_dtype(torch.bool.scalar_type),
        lambda c: no_dtype_check(c).declare_static_dtype(torch.int32.scalar_type),
        (undefined, f32(2)),
        1,
    ),
    "static_shape": (
        lambda c: no_dtype_check(c).resize_outputs(False).declare_static_shape([6]),
        lambda c: no_dtype_check(c).resize_outputs(False).declare_static_shape([1]),
        (lambda: torch.rand(6),),
        1,
    ),
    "resize_outputs": (
        lambda c: c,
        lambda c: c.resize_outputs(False),
        (lambda: torch.empty(0), f32(2, 3)),
        1,
    ),
    "is_reduction": (
        lambda c: c.set_check_mem_overlap(False).resize_outputs(False).is_reduction(True),
        lambda c: c.set_check_mem_overlap(False).resize_outputs(False),
        (lambda: torch.empty(1, 1).expand(1, 3), f32(2, 3)),
        1,
    ),
    "num_outputs": (lambda c: c, lambda c: c, (f32(2, 3), f32(2, 3), f32(2, 3)), 2),
    "check_all_same_device": (
        lambda c: c.check_all_same_device(False),
        lambda c: c,
        (undefined, lambda: torch.rand(2, device="cuda"), f32(2)),
        1,
    ),
    "allow_cpu_scalars": (
        lambda c: c.allow_cpu_scalars(True),
        lambda c: c,
        (undefined, lambda: torch.rand(2, device="cuda"), lambda: torch.rand(())),
        1,
    ),
    "enforce_safe_casting_to_output": (
        lambda c: c.promote_inputs_to_common_dtype(True),
        lambda c: c.promote_inputs_to_common_dtype(True).enforce_safe_casting_to_output(True),
        (lambda: torch.empty(2, dtype=torch.int64), f32(2)),
        1,
    ),
    "enforce_linear_iteration": (
        lambda c: c,
        lambda c: c.enforce_linear_iteration(True),
        (undefined, lambda: torch.rand(3, 4).t()),
        1,
    ),
    "promote_inputs_to_common_dtype": (
        no_dtype_check,
        lambda c: c.promote_inputs_to_common_dtype(True),
        (undefined, f32(2), lambda: torch.rand(2).double()),
        1,
    ),
    "cast_common_dtype_to_outputs": (
        lambda c: c.promote_inputs_to_common_dtype(True),
        lambda c: c.promote_inputs_to_common_dtype(True).cast_common_dtype_to_outputs(True),
        (lambda: torch.empty(2, dtype=torch.float64), f32(2)),
        1,
    ),
    "promote_integer_inputs_to_float": (
        no_dtype_check,
        lambda c: no_dtype_check(c).promote_integer_inputs_to_float(True),
        (undefined, lambda: torch.ones(2, dtype=torch.int32)),
        1,
    ),
}


@pytest.mark.parametrize("flag", list(FLAG_CASES))
def test_the_key_tells_apart_each_config_flag(flag: str) -> None:
    first_flags, second_flags, tensors, outputs = FLAG_CASES[flag]
    first = config_build(first_flags, *tensors, outputs=outputs if flag != "num_outputs" else 1)
    second = config_build(second_flags, *tensors, outputs=outputs)
    expected = outcome(second)
    geometry_cache.CACHE.clear()
    first()
    assert outcome(second) == expected
    assert outcome(second) == expected
    assert outcome(first) != expected  # the flag matters to these operands


def test_the_key_tells_apart_the_device_type() -> None:
    """cpu and meta tensors: the same sizes, strides, dtype, and device index (none)."""
    cpu = binary(lambda: torch.rand(2, 3), lambda: torch.rand(2, 3))
    meta = binary(
        lambda: torch.empty(2, 3, device="meta"), lambda: torch.empty(2, 3, device="meta")
    )
    assert_second_is_not_taken_from_first(cpu, meta)
    assert state(meta())["common_device"] == "meta"
