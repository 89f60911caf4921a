"""How long `import tensortrace` takes: the cost of loading the generated code from disk.

    python bench/bench_import.py            # the tensortrace on sys.path
    python bench/bench_import.py SRC_DIR    # the one under SRC_DIR (another checkout's src/)
    python bench/bench_import.py --no-valgrind  # without the instruction count

Each run is a fresh interpreter. Bytecode caching is on (into a private prefix under the temp
dir, so no checkout is written to), as it is in an installed wheel; the first run fills the
cache and is not counted. Reported: the median wall time `-X importtime` gives for the
`tensortrace` import, and the median CPU time of the thread that imports (thread_time), which
moves less when the machine is busy; beside them, the same figures for `import numpy` alone
(which `import tensortrace` includes), measured in turn with it.
Goals, both printed: issue #13, `-X importtime` at most half of the ~0.55 s that building the
operators, bindings and wrappers in memory cost (0.275 s wall); issue #14, at most 0.25 s, read
as the importing thread's CPU time. The process's CPU time is printed too, but not judged: it
also counts the OpenBLAS worker threads NumPy starts, which spin on the other cores while the
import goes on (with OPENBLAS_NUM_THREADS=1 the process's CPU equals the thread's, and the
wall time), so it grows with the number of idle cores, not with anything the import does.
Where valgrind is installed, also the CPU instructions of `import tensortrace` beyond
`import numpy` under cachegrind (PYTHONHASHSEED=0): a figure the machine's load does not move,
to compare two checkouts by (`--no-valgrind` skips it, about a minute).
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

RUNS = 7
GOAL_WALL = 0.55 / 2  # seconds of `-X importtime` wall for `import tensortrace` (issue #13)
GOAL = 0.25  # seconds of the importing thread's CPU for `import tensortrace` (issue #14)
PROBE = (
    "import time; p, t = time.process_time(), time.thread_time(); import {module}; "
    "print('cpu', time.process_time() - p, time.thread_time() - t)"
)


def measure(src: str | None, modules: tuple[str, ...]) -> dict[str, tuple[float, float, float]]:
    """module -> (median wall, median thread CPU, median process CPU) of its import, the
    modules run in turn."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "tensortrace-bench-pyc")
    if src is not None:
        env["PYTHONPATH"] = src
    walls: dict[str, list[float]] = {m: [] for m in modules}
    cpus: dict[str, list[float]] = {m: [] for m in modules}
    process_cpus: dict[str, list[float]] = {m: [] for m in modules}
    for i in range(RUNS + 1):
        for module in modules:  # interleaved, so a busy spell weighs on both alike
            done = subprocess.run(
                [sys.executable, "-X", "importtime", "-c", PROBE.format(module=module)],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            if i == 0:
                continue  # fills the bytecode cache
            top = [line for line in done.stderr.splitlines() if line.endswith(f"| {module}")]
            walls[module].append(int(top[-1].split("|")[1]) / 1e6)
            process_cpu, thread_cpu = done.stdout.split()[-2:]
            cpus[module].append(float(thread_cpu))
            process_cpus[module].append(float(process_cpu))
    return {
        m: (
            statistics.median(walls[m]),
            statistics.median(cpus[m]),
            statistics.median(process_cpus[m]),
        )
        for m in modules
    }


def instructions_beyond_numpy(src: str | None) -> float | None:
    """Instructions of `import numpy, tensortrace` minus `import numpy, sys` under
    cachegrind, or None without valgrind."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "tensortrace-bench-pyc")
    env["PYTHONHASHSEED"] = "0"
    # OpenBLAS's idle threads spin, and cachegrind counts them: with their default number the
    # numpy baseline drifts by ~20M instructions between runs, with one by ~0.1M
    env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    if src is not None:
        env["PYTHONPATH"] = src
    # the bytecode cache filled first: compiling the package would be counted (~14G)
    subprocess.run([sys.executable, "-c", "import numpy, tensortrace"], env=env, check=True)
    counts = []
    for module in ("sys", "tensortrace"):
        done = subprocess.run(
            [valgrind, "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
            + [sys.executable, "-c", f"import numpy, {module}"],
            env=env,
            capture_output=True,
            text=True,
        )
        match = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
        if done.returncode != 0 or match is None:
            return None
        counts.append(int(match[1].replace(",", "")))
    return counts[1] - counts[0]


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    src = args[0] if args else None
    found = measure(src, ("tensortrace", "numpy"))
    wall, cpu, process_cpu = found["tensortrace"]
    np_wall, np_cpu, np_process_cpu = found["numpy"]
    where = src or "sys.path"
    wall_verdict = "met" if wall <= GOAL_WALL else "not met"
    verdict = "met" if cpu <= GOAL else "not met"
    print(
        f"import tensortrace ({where}): {wall:.3f} s wall (-X importtime), {cpu:.3f} s CPU "
        f"of the importing thread, median of {RUNS} fresh interpreters\n"
        f"  goals: wall <= {GOAL_WALL:.3f} s (issue #13): {wall_verdict}; "
        f"thread CPU <= {GOAL:.2f} s (issue #14): {verdict}\n"
        f"  import numpy alone (included above): {np_wall:.3f} s wall, {np_cpu:.3f} s CPU; "
        f"tensortrace's own: {cpu - np_cpu:.3f} s CPU\n"
        f"  the process's CPU, with NumPy's OpenBLAS threads spinning (not judged): "
        f"{process_cpu:.3f} s (numpy alone {np_process_cpu:.3f} s)"
    )
    if "--no-valgrind" not in sys.argv:
        instructions = instructions_beyond_numpy(src)
        if instructions is None:
            print("  instructions: valgrind is not installed (or failed)")
        else:
            print(f"  instructions beyond numpy's (cachegrind): {instructions / 1e6:,.0f}M")


if __name__ == "__main__":
    main()
