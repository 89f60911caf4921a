"""Nothing leaks: random programs of elementwise ops, some of which fail, free all they allocate.

Each program runs, its locals are dropped and gc.collect() runs; the CPU allocator's
memory_allocated must be back where it started, after a success or after an exception (the
binding's handle_th_errors unwinds the failed op's tensors, as C++ destructors would).

With the cyclic GC disabled the same must hold at once: the runtime's objects form no reference
cycles (a tensor is never a view of itself), so `del` alone frees, as refcounting does in C++.
"""

from __future__ import annotations

import gc
import random
import sys
from collections.abc import Iterator

import pytest

import tensortrace
from tensortrace.c10.storage_impl import StorageImpl
from tensortrace.c10.tensor_impl import TensorImpl

record = getattr(tensortrace, "record", None) or tensortrace.trace

STATEMENTS = [
    # succeed
    "r = x + y * 2",
    "r = x - 1.5",
    "r = 2 - i",
    "r = x / y",
    "r = i / 2",
    "r = i // 3",
    "r = i % 3",
    "r = x ** 2",
    "r = 2 ** x",
    "r = -x",
    "r = abs(i)",
    "r = x.exp().log()",
    "r = x.sqrt()",
    "r = x.sigmoid().tanh()",
    "r = x.relu()",
    "r = x.clamp(0.2, 0.8)",
    "r = i.clamp(min=1.5)",
    "r = torch.maximum(x, y)",
    "r = x == y",
    "r = i < 2",
    "r = torch.logical_and(x, i)",
    "r = ~(x > 0.5)",
    "r = torch.where(x > 0.5, x, y)",
    "r = torch.where(x > 0.5, i, 2.5)",
    "r = x.masked_fill(x > 0.5, 0.0)",
    "x.mul_(2)",
    "x[0].sub_(1)",
    "x /= 3",
    "r = x.t() * y[:, None]",
    "r = torch.mul(x, y, out=torch.empty(3, 4, dtype=torch.float64))",
    "r = x.to(torch.float16) * 3",
    "r = torch.div(i, 3, rounding_mode='floor')",
    # fail: shape mismatch, bad dtype, bad arguments
    "r = x + torch.rand(5)",
    "r = (x > 0) - (x > 0)",
    "r = i.add_(x)",
    "r = i ** -2",
    "r = i // 0",
    "r = i % 0",
    "r = x.div(x, rounding_mode='bad')",
    "r = x.masked_fill(i, 1)",
    "r = torch.where(i, x, y)",
    "r = x.clamp()",
    "r = -(x > 0)",
    "r = ~x",
    "r = x & x",
    "r = torch.maximum(x, 2)",
    "r = x.mul_(torch.rand(5, 3, 4))",
    "r = x.sub(y, alpha=True)",
    "r = i.to(torch.int8).masked_fill(i > 0, 1000)",
    "r = torch.pow(2, 3)",
    "r = x.exp_() if False else i.exp_()",
    "r = torch.add(x, y, out=torch.empty(3, 4, dtype=torch.int64))",
]


def run_program(statements: list[str]) -> None:
    namespace = {"torch": tensortrace}
    exec(
        "x = torch.rand(3, 4); y = torch.rand(4); i = (torch.rand(3, 4) * 10).to(torch.int64)",
        namespace,
    )
    for statement in statements:
        try:
            exec(statement, namespace)
        except (RuntimeError, TypeError, NotImplementedError, ValueError, IndexError):
            pass
    namespace.clear()


@pytest.mark.parametrize("seed", range(40))
def test_random_elementwise_program_frees_everything(seed: int) -> None:
    rng = random.Random(seed)
    program = rng.sample(STATEMENTS, k=8)
    gc.collect()
    start = tensortrace.memory_allocated("cpu")
    run_program(program)
    gc.collect()
    assert tensortrace.memory_allocated("cpu") == start, program


@pytest.mark.parametrize("statement", [s for s in STATEMENTS if "r = " in s])
def test_each_statement_frees_everything(statement: str) -> None:
    gc.collect()
    start = tensortrace.memory_allocated("cpu")
    run_program([statement])
    gc.collect()
    assert tensortrace.memory_allocated("cpu") == start


# views, indexing, factories and conversions: the ops most likely to tie objects into cycles
LIFETIME_STATEMENTS = [
    "x[0] = 1.0",
    "x[1, 2] = 3",
    "x[x > 0.5] = 0.0",
    "x[[0, 2]] = 2.0",
    "r = x[[0, 2]]",
    "r = x[0]",
    "r = x[1:, ::2]",
    "r = x.t().contiguous()",
    "r = x.view(12)[3:]",
    "r = x.reshape(4, 3)",
    "r = x[:, None].expand(3, 5, 4)",
    "r = x.unbind(0)",
    "r = x.split(2)",
    "r = torch.tensor([1.0, 2.0])",
    "r = torch.tensor(x.tolist())",
    "r = x.detach()",
    "r = x.numpy()",
    "r = torch.from_numpy(x.numpy())",
    "r = x.resolve_conj().resolve_neg()",
    "r = x.sum(0)",
    "r = x.max(1)",
    "r = torch.cat([x, x])",
    "r = x @ x.t()",
    "r = i.tolist()",
    "r = x[0].item()",
    "r = repr(x)",
    "r = x.view(2, 2, 3).permute(2, 0, 1)[0]",
    "r = x[5]",
    "r = x.view(5)",
    "r = x[[7]]",
    "x[0] = torch.rand(7)",
]


def runtime_objects() -> int:
    """The runtime's live TensorImpls, StorageImpls and Tensor handles, as the GC tracks them."""
    kinds = (TensorImpl, StorageImpl, tensortrace.Tensor)
    return sum(1 for o in gc.get_objects() if isinstance(o, kinds))


@pytest.fixture
def no_cyclic_gc() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def test_random_programs_free_everything_without_the_cyclic_gc(no_cyclic_gc: None) -> None:
    start_bytes = tensortrace.memory_allocated("cpu")
    start_objects = runtime_objects()
    for seed in range(150):
        program = random.Random(seed).sample(STATEMENTS + LIFETIME_STATEMENTS, k=8)
        run_program(program)
        assert tensortrace.memory_allocated("cpu") == start_bytes, program
    assert runtime_objects() == start_objects


def test_traced_random_programs_free_everything_without_the_cyclic_gc(no_cyclic_gc: None) -> None:
    start_bytes = tensortrace.memory_allocated("cpu")
    start_objects = runtime_objects()
    for seed in range(10):
        program = random.Random(1000 + seed).sample(STATEMENTS + LIFETIME_STATEMENTS, k=6)
        with record():
            run_program(program)
        assert tensortrace.memory_allocated("cpu") == start_bytes, program
    assert runtime_objects() == start_objects


@pytest.mark.parametrize("statement", ["x[0] = 1.0", "r = x[[0]]", "r = torch.tensor([1.0])"])
def test_no_tensor_is_a_view_of_itself(no_cyclic_gc: None, statement: str) -> None:
    start = tensortrace.memory_allocated("cpu")
    run_program([statement])
    assert tensortrace.memory_allocated("cpu") == start


def test_ops_returning_their_input_make_no_view() -> None:
    t = tensortrace.rand(3)
    assert tensortrace.lift_fresh(t)._base is None
    assert t.resolve_conj()._base is None and t.resolve_neg()._base is None
    assert not tensortrace.lift_fresh(t)._is_view()
    assert t[0]._base is t  # a real view still holds its base


def test_record_block_does_not_pin_the_callers_locals(no_cyclic_gc: None) -> None:
    def body() -> tuple[int, int]:
        start = tensortrace.memory_allocated("cpu")
        with record() as t:
            x = tensortrace.rand(1000)
        assert sys.getrefcount(x) == 2  # the local and getrefcount's argument: no snapshot
        del x
        freed = tensortrace.memory_allocated("cpu") - start
        names = [e.args["names"] for e in t.events if e.kind == "names"]
        assert names and ["x"] in names[-1].values()  # the survivor was still named
        return freed, len(t.events)

    freed, events = body()
    assert freed == 0 and events > 0


def test_record_block_does_not_pin_locals_after_an_exception(no_cyclic_gc: None) -> None:
    def body() -> int:
        start = tensortrace.memory_allocated("cpu")
        try:
            with record():
                x = tensortrace.rand(1000)
                raise ValueError("boom")
        except ValueError:
            pass
        del x
        return tensortrace.memory_allocated("cpu") - start

    assert body() == 0


def test_record_block_keeps_module_namespaces() -> None:
    namespace: dict[str, object] = {"torch": tensortrace}
    exec(
        "with torch.record() if hasattr(torch, 'record') else torch.trace():\n"
        "    x = torch.rand(2)\n",
        namespace,
    )
    assert "x" in namespace  # a module's f_locals is its real namespace: never cleared


def test_to_json_returns_a_copy() -> None:
    with record() as t:
        x = tensortrace.rand(2) + 1
    del x
    data = t.to_json()
    data["meta"]["pid"] = -1
    for args in data["arg_table"]:  # each distinct args object of the trace (format 2)
        args.clear()
    assert t.meta["pid"] != -1
    assert any(e.args for e in t.events)
    assert t.to_json() != data
