"""An int device argument is an index on the current accelerator (at::getAccelerator).

With the emulated CUDA device present, `x.to(5)` is `cuda:5`; torch's CPU-only build, the one
the conformance programs compare with, has no accelerator and refuses it. So the comparison
with torch runs tensortrace with no CUDA device (TENSORTRACE_CUDA_DEVICES=0) in a subprocess,
where both must raise the same error.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import tensortrace

torch = pytest.importorskip("torch")

SRC = str(Path(__file__).resolve().parents[2] / "src")
PROGRAMS = [
    "torch.rand(2).to(5)",
    "torch.rand(2).to(0)",
    "torch.rand(2).to(-1)",
    "torch.zeros(2, device=1)",
    "torch.rand(2).to(3, torch.float64)",
]
RUN = """
import json, sys
import {module} as torch
out = []
for program in json.loads(sys.argv[1]):
    try:
        eval(program)
        out.append(None)
    except Exception as e:
        out.append([type(e).__name__, str(e)])
print(json.dumps(out))
"""


def _errors(module: str, env: dict[str, str]) -> list[object]:
    done = subprocess.run(
        [sys.executable, "-c", RUN.format(module=module), json.dumps(PROGRAMS)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_without_an_accelerator_int_devices_fail_as_in_torch() -> None:
    env = dict(os.environ, TENSORTRACE_CUDA_DEVICES="0", PYTHONPATH=SRC)
    ours = _errors("tensortrace", env)
    theirs = _errors("torch", dict(os.environ))
    assert ours == theirs
    assert ours[0] == ["RuntimeError", "Cannot access accelerator device when none is available."]


def test_with_the_emulated_device_an_int_is_a_cuda_index() -> None:
    assert tensortrace.rand(2).to(0).device == tensortrace.device("cuda", 0)
    assert tensortrace.zeros(2, device=0).device.type == "cuda"
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        tensortrace.rand(2).to(5)
    with pytest.raises(RuntimeError, match="Device index must not be negative"):
        tensortrace.rand(2).to(-1)
