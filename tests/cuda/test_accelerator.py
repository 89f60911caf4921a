"""torch.accelerator on the emulated CUDA device, and without one as in torch's CPU build.

torch 2.13 here is a CPU build (current_accelerator() is None), so the with-device behaviour is
checked against torch/accelerator's own code paths (they delegate to torch.cuda), and the
without-device behaviour is compared with torch directly in a subprocess with
TENSORTRACE_CUDA_DEVICES=0.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import tensortrace as torch

SRC = str(Path(__file__).resolve().parents[2] / "src")


def test_the_tutorials_device_line_picks_the_emulated_device() -> None:
    acc = torch.accelerator
    device = acc.current_accelerator().type if acc.is_available() else "cpu"
    assert device == "cuda"
    assert acc.current_accelerator() == torch.device("cuda")
    assert acc.current_accelerator().index is None
    assert acc.device_count() == torch.cuda.device_count() == 1
    assert acc.current_device_index() == torch.cuda.current_device() == 0
    x = torch.rand(3, 4, device=device)
    assert x.device == torch.device("cuda:0")


def test_memory_statistics_are_the_caching_allocators() -> None:
    acc = torch.accelerator
    before = acc.memory_allocated()
    x = torch.ones(1000, device="cuda")
    assert acc.memory_allocated() == torch.cuda.memory_allocated() == before + 4096
    assert acc.max_memory_allocated() >= acc.memory_allocated()
    assert acc.memory_reserved() == torch.cuda.memory_reserved()
    assert acc.memory_stats()["allocated_bytes.all.current"] == acc.memory_allocated()
    del x
    acc.empty_cache()
    assert acc.memory_allocated() == before
    acc.reset_peak_memory_stats()
    assert acc.max_memory_allocated() == acc.memory_allocated()


def test_device_arguments_are_checked_as_torch_checks_them() -> None:
    acc = torch.accelerator
    with pytest.raises(ValueError, match="^cpu doesn't match the current accelerator cuda.$"):
        acc.set_device_index("cpu")
    with pytest.raises(ValueError, match="specified index or an integer, but got:cuda$"):
        acc.set_device_index(torch.device("cuda"))
    acc.set_device_index(-1)  # a no-op, as documented
    acc.synchronize("cuda:0")
    with acc.device_index(0):
        assert acc.current_device_index() == 0
    with pytest.warns(FutureWarning, match="Use `current_device_index` instead."):
        assert acc.current_device_idx() == 0
    assert acc.current_stream() == torch.cuda.current_stream()


CODE = """
import json, sys, warnings
torch = __import__(sys.argv[1])
acc = torch.accelerator
out = [repr(acc.current_accelerator()), repr(acc.current_accelerator(check_available=True)),
       acc.is_available(), acc.device_count()]
for call in ("memory_stats()", "memory_allocated()", "set_device_index('cuda:0')",
             "empty_cache()", "synchronize()", "current_device_index()"):
    try:
        out.append(repr(eval("acc." + call)))
    except Exception as e:
        out.append([type(e).__name__, str(e)])
print(json.dumps(out))
"""


def _run(module: str, env: dict[str, str]) -> object:
    done = subprocess.run(
        [sys.executable, "-c", CODE, module], capture_output=True, text=True, env=env, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_without_a_device_it_answers_as_torchs_cpu_build() -> None:
    pytest.importorskip("torch")
    ours = _run("tensortrace", dict(os.environ, TENSORTRACE_CUDA_DEVICES="0", PYTHONPATH=SRC))
    assert ours == _run("torch", dict(os.environ))
    assert ours[:5] == [
        "None",
        "None",
        False,
        0,
        ["RuntimeError", "Cannot access accelerator device when none is available."],
    ]
