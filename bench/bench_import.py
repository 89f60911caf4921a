"""How long `import tensortrace` takes: the cost of loading the generated code from disk.

    python bench/bench_import.py            # the tensortrace on sys.path
    python bench/bench_import.py SRC_DIR    # the one under SRC_DIR (another checkout's src/)

Each run is a fresh interpreter. Bytecode caching is on (into a private prefix under the temp
dir, so no checkout is written to), as it is in an installed wheel; the first run fills the
cache and is not counted. Reported: the median wall time `-X importtime` gives for the
`tensortrace` import, and the median CPU time of the import (process_time), which moves less
when the machine is busy. Issue #13's goal: half of the ~0.55 s that building the operators,
bindings and wrappers in memory cost.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

RUNS = 7
PROBE = (
    "import time; t = time.process_time(); import tensortrace; "
    "print('cpu', time.process_time() - t)"
)


def measure(src: str | None) -> tuple[float, float]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "tensortrace-bench-pyc")
    if src is not None:
        env["PYTHONPATH"] = src
    walls, cpus = [], []
    for i in range(RUNS + 1):
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", PROBE],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        if i == 0:
            continue  # fills the bytecode cache
        top = [line for line in done.stderr.splitlines() if line.endswith("| tensortrace")]
        walls.append(int(top[-1].split("|")[1]) / 1e6)
        cpus.append(float(done.stdout.split()[-1]))
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    src = sys.argv[1] if len(sys.argv) > 1 else None
    wall, cpu = measure(src)
    where = src or "sys.path"
    print(
        f"import tensortrace ({where}): {wall:.3f} s wall (-X importtime), {cpu:.3f} s CPU, "
        f"median of {RUNS} fresh interpreters"
    )


if __name__ == "__main__":
    main()
