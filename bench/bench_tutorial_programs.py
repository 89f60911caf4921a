"""Time each tutorial-shaped program of tests/conformance/test_tutorial_programs_a.py in
tensortrace and in torch 2.13, and print the ratios (issue #15, item 3).

    python bench/bench_tutorial_programs.py              # every program
    python bench/bench_tutorial_programs.py norm dist    # only names containing a word
    python bench/bench_tutorial_programs.py --profile NAME   # cProfile one program's hot path

Each program runs once to warm up, then `REPEAT` times in each library, interleaved, and the best
time counts (stdout is captured and thrown away, as in the tests). Programs slower than 20x
torch are listed at the end: those are the ones whose hot path to profile.
"""

from __future__ import annotations

import cProfile
import pstats
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "conformance"))

import torch  # noqa: E402  - the comparison needs it
from program_harness import run_program  # noqa: E402

import tensortrace  # noqa: E402

REPEAT = 5
LIMIT = 20.0


def load_programs() -> dict[str, str]:
    import importlib.util

    path = ROOT / "tests" / "conformance" / "test_tutorial_programs_a.py"
    source = path.read_text().replace("from .program_harness import", "from program_harness import")
    spec = importlib.util.spec_from_loader("tutorial_programs_a", loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    exec(compile(source, str(path), "exec"), module.__dict__)
    return module.PROGRAMS


def best_time(module: object, source: str) -> float:
    return min(run_program(module, source).seconds for _ in range(REPEAT))


def main(argv: list[str]) -> None:
    programs = load_programs()
    if argv[:1] == ["--profile"]:
        source = programs[argv[1]]
        run_program(tensortrace, source)
        profiler = cProfile.Profile()
        profiler.enable()
        run_program(tensortrace, source)
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
        return
    names = [n for n in sorted(programs) if not argv or any(w in n for w in argv)]
    print(f"{'program':32s} {'tensortrace':>12s} {'torch':>10s} {'ratio':>7s}")
    slow: list[tuple[str, float]] = []
    total_ours = total_theirs = 0.0
    for name in names:
        source = programs[name]
        run_program(tensortrace, source)
        run_program(torch, source)
        ours, theirs = best_time(tensortrace, source), best_time(torch, source)
        ratio = ours / theirs if theirs > 0 else float("inf")
        total_ours += ours
        total_theirs += theirs
        print(f"{name:32s} {ours * 1e3:10.2f}ms {theirs * 1e3:8.2f}ms {ratio:6.1f}x")
        if ratio > LIMIT:
            slow.append((name, ratio))
    print(
        f"{'total':32s} {total_ours * 1e3:10.2f}ms {total_theirs * 1e3:8.2f}ms "
        f"{total_ours / total_theirs:6.1f}x"
    )
    print(f"\nslower than {LIMIT:.0f}x torch: {len(slow)} of {len(names)}")
    for name, ratio in sorted(slow, key=lambda item: -item[1]):
        print(f"  {name}: {ratio:.1f}x")


if __name__ == "__main__":
    main(sys.argv[1:])
