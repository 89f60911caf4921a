"""Per-op cost against NumPy and torch: overhead on small tensors, throughput on large ones.

    python bench/bench_ops.py            # everything
    python bench/bench_ops.py add sum    # only ops whose name contains one of the words

For each op, in one run and interleaved so all libraries share the machine's noise:
- small (4x4 float32): time per call, i.e. the fixed cost of the binding, dispatcher and
  TensorIterator, next to NumPy's and torch's;
- large (4M float32 elements, or 1024x1024 for matmul): time per call and the ratio to NumPy;
- throughput (16M elements, 4096x4096 for the 2-D cases): the same, at a size where the fixed
  cost of the Python path (the small-tensor time, about 3x that once a large op has evicted
  the caches) is a small part of the call.
Goals (issue #4): large elementwise ops and reductions within 1.2x of NumPy, matmul within 1.5x.
Large tensors run on tensortrace's intra-op threads (torch.get_num_threads(), as in PyTorch);
`OMP_NUM_THREADS=1 python bench/bench_ops.py` compares single-threaded.
An op tensortrace does not have yet is reported as missing, not skipped silently.
"""

from __future__ import annotations

import sys
import timeit
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import tensortrace

try:
    import torch
except ImportError:  # torch is optional: its column is left out
    torch = None

LARGE = 4 * 1024 * 1024
THROUGHPUT = 16 * 1024 * 1024


@dataclass
class Case:
    name: str
    kind: str  # "elementwise", "reduction", "matmul", "view", "factory"
    program: Callable[[Any, dict[str, Any]], Any]  # (library, operands) -> result
    numpy: Callable[[dict[str, Any]], Any]
    shapes: tuple[tuple[int, ...], ...] = ((4, 4), (LARGE,), (THROUGHPUT,))


def _binary(name: str, np_fn: Callable[..., Any], kind: str = "elementwise") -> Case:
    return Case(
        name,
        kind,
        lambda lib, o: getattr(lib, name)(o["a"], o["b"]),
        lambda o: np_fn(o["a"], o["b"]),
    )


def _unary(name: str, np_fn: Callable[..., Any], kind: str = "elementwise") -> Case:
    return Case(name, kind, lambda lib, o: getattr(lib, name)(o["a"]), lambda o: np_fn(o["a"]))


CASES: list[Case] = [
    _binary("add", np.add),
    _binary("sub", np.subtract),
    _binary("mul", np.multiply),
    _binary("div", np.divide),
    _binary("maximum", np.maximum),
    _binary("eq", np.equal),
    _unary("neg", np.negative),
    _unary("abs", np.abs),
    _unary("exp", np.exp),
    _unary("sqrt", np.sqrt),
    _unary("sin", np.sin),
    _unary("tanh", np.tanh),
    _unary("sum", np.sum, "reduction"),
    _unary("mean", np.mean, "reduction"),
    _unary("max", np.max, "reduction"),
    _unary("prod", np.prod, "reduction"),
    _unary("argmax", np.argmax, "reduction"),
    Case(
        "sum(dim=1)",
        "reduction",
        lambda lib, o: lib.sum(o["m"], 1),
        lambda o: np.sum(o["m"], 1),
        ((4, 4), (2048, 2048), (4096, 4096)),
    ),
    Case(
        "matmul",
        "matmul",
        lambda lib, o: lib.matmul(o["m"], o["m"]),
        lambda o: np.matmul(o["m"], o["m"]),
        ((4, 4), (1024, 1024)),
    ),
    Case("clone", "copy", lambda lib, o: o["a"].clone(), lambda o: o["a"].copy()),
    Case(
        "contiguous(t)",
        "copy",
        lambda lib, o: o["m"].t().contiguous(),
        lambda o: np.ascontiguousarray(o["m"].T),
        ((4, 4), (2048, 2048), (4096, 4096)),
    ),
]


def operands(shape: tuple[int, ...]) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    a = rng.random(shape, dtype=np.float32) + 0.5
    b = rng.random(shape, dtype=np.float32) + 0.5
    side = int(np.sqrt(np.prod(shape)))
    m = rng.random((side, side), dtype=np.float32)
    return {"a": a, "b": b, "m": m}


def convert(arrays: dict[str, np.ndarray], lib: Any) -> dict[str, Any]:
    if lib is np:
        return arrays
    if lib is tensortrace:
        return {k: _to_tensortrace(v) for k, v in arrays.items()}
    return {k: lib.from_numpy(v) for k, v in arrays.items()}


def _to_tensortrace(a: np.ndarray) -> Any:
    t = tensortrace.empty(*a.shape)
    t.cdata.numpy_view()[...] = a
    return t


def best_times(fns: dict[str, Callable[[], Any]], seconds: float = 0.2) -> dict[str, float]:
    """Per-call seconds for each fn, timed in alternation; the best of several rounds."""
    number = {}
    for name, fn in fns.items():
        t = timeit.timeit(fn, number=1)
        number[name] = max(1, int(seconds / 5 / max(t, 1e-7)))
    best = {name: float("inf") for name in fns}
    for _ in range(5):
        for name, fn in fns.items():
            best[name] = min(best[name], timeit.timeit(fn, number=number[name]) / number[name])
    return best


def run_case(case: Case, shape: tuple[int, ...]) -> dict[str, float] | str:
    arrays = operands(shape)
    libs: dict[str, Any] = {"numpy": np, "tensortrace": tensortrace}
    if torch is not None:
        libs["torch"] = torch
    fns: dict[str, Callable[[], Any]] = {}
    for name, lib in libs.items():
        ops = convert(arrays, lib)
        if lib is np:
            fns[name] = lambda ops=ops: case.numpy(ops)
            continue
        try:
            case.program(lib, ops)
        except (AttributeError, NotImplementedError, TypeError) as exc:
            if lib is tensortrace:
                return f"missing ({type(exc).__name__}: {str(exc).splitlines()[0][:60]})"
            raise
        fns[name] = lambda lib=lib, ops=ops: case.program(lib, ops)
    return best_times(fns)


def fmt(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:8.1f} us"
    return f"{seconds * 1e3:8.2f} ms"


def main(words: list[str]) -> None:
    cases = [c for c in CASES if not words or any(w in c.name for w in words)]
    goals = {"elementwise": 1.2, "reduction": 1.2, "matmul": 1.5, "copy": 1.2}
    threads = f"tensortrace threads: {tensortrace.get_num_threads()}"
    if torch is not None:
        threads += f", torch threads: {torch.get_num_threads()}"
    print(threads + " (NumPy's ufuncs run on one)")
    header = f"{'op':16s} {'size':>11s} {'numpy':>11s} {'tensortrace':>11s} {'torch':>11s}  ratio"
    print(header)
    print("-" * len(header))
    for case in cases:
        for shape in case.shapes:
            size = "x".join(str(s) for s in shape)
            result = run_case(case, shape)
            if isinstance(result, str):
                print(f"{case.name:16s} {size:>11s}  {result}")
                break
            ratio = result["tensortrace"] / result["numpy"]
            line = (
                f"{case.name:16s} {size:>11s} {fmt(result['numpy'])} "
                f"{fmt(result['tensortrace'])} "
                f"{fmt(result['torch']) if 'torch' in result else '':>11s}  {ratio:5.2f}x"
            )
            if shape == case.shapes[0]:
                line += "  (overhead)"
            else:
                goal = goals[case.kind]
                line += f"  (goal {goal}x: {'met' if ratio <= goal else 'NOT met'})"
            print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
