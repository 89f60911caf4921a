"""The `tensortrace` command."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import tensortrace
from tensortrace.cli import main

GOLDEN = Path(__file__).parent / "data" / "cli_seed_dispatch_layer.txt"


def test_default_traces_the_seed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--width", "200"]) == 0
    out = capsys.readouterr().out
    for name in (
        "THPVariable_rand",
        "aten::rand",
        "at::native::rand",
        "c10::alloc_cpu",
        "THPVariable_getitem",
        "aten::as_strided",
        "TensorIteratorBase::compute_shape",
        "at::native::add_kernel",
        "THPVariable_dealloc",
        "c10::free_cpu",
    ):
        assert name in out
    assert "3 allocations (144 B), 2 frees (96 B)" in out


def test_dispatch_layer_tree_is_stable(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--layers", "dispatch", "--no-pytorch", "--no-instants", "--width", "200"]) == 0
    out = capsys.readouterr().out
    lines = out.rstrip("\n").splitlines()[:-1]  # the last line has run-dependent event counts
    assert "\n".join(lines) + "\n" == GOLDEN.read_text()


def test_bad_expression_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["x = rand(3) + rand(4)"]) == 1
    err = capsys.readouterr().err.strip()
    assert err == (
        "tensortrace: RuntimeError: The size of tensor a (3) must match the size of "
        "tensor b (4) at non-singleton dimension 0"
    )
    assert main(["x = ("]) == 1
    assert main(["undefined_name"]) == 1
    assert "NameError" in capsys.readouterr().err


def test_unknown_layer(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--layers", "gpu"]) == 2
    assert "unknown layer" in capsys.readouterr().err


def test_writes_chrome_and_json(tmp_path: Path) -> None:
    chrome, saved = tmp_path / "c.json", tmp_path / "t.json"
    assert main(["y = rand(2) + 1", "--chrome", str(chrome), "--json", str(saved)]) == 0
    assert any(e["name"] == "aten::add" for e in json.loads(chrome.read_text())["traceEvents"])
    assert json.loads(saved.read_text())["format"] == "tensortrace-trace"


def test_code_view_of_the_seed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--code", "--layers", "python", "--no-instants"]) == 0
    out = capsys.readouterr().out
    assert (
        "_t1 = torch.rand(3, 4)\n_t2 = _t1.__getitem__(0)\ndel _t1\n_t3 = torch.rand(3, 4)\n"
        "r = _t2.__add__(_t3)\ndel _t2\ndel _t3\n"
    ) in out


def _tree_lines(out: str) -> list[str]:
    """The tree's lines: all of them before the summary line (`299 events, ...`)."""
    lines = out.splitlines()
    return lines[: next(i for i, line in enumerate(lines) if re.match(r"\d+ events, ", line))]


@pytest.mark.parametrize("width", [80, 100])
def test_narrow_terminal_puts_each_frame_on_one_line(
    capsys: pytest.CaptureFixture[str], width: int
) -> None:
    assert main(["--width", "1000", "--no-pytorch"]) == 0
    wide = _tree_lines(capsys.readouterr().out)
    assert main(["--width", str(width)]) == 0
    narrow = _tree_lines(capsys.readouterr().out)
    assert max(len(line) for line in narrow) <= width
    assert len(narrow) == len(wide)  # a wrapped frame would add lines
    assert "python_torch_functions_0.cpp" not in "\n".join(narrow)  # moved to --pytorch


def test_pytorch_counterparts_by_flag_or_width(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--width", "80", "--pytorch"]) == 0
    narrow = capsys.readouterr().out
    assert "torch/csrc/autograd/generated/python_torch_func…" in narrow
    assert main(["--width", "200"]) == 0
    assert "(2019: THPVariable_rand)" in capsys.readouterr().out


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """The command as a user runs it: its own process, its own stdout, stderr and exit status."""
    env = dict(os.environ, PYTHONPATH=str(Path(tensortrace.__file__).parents[1]))
    return subprocess.run(
        [sys.executable, "-m", "tensortrace.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_any_module_source_and_the_last_expression_is_echoed() -> None:
    done = run_cli("x = torch.rand(2)\nx + 1", "--layers", "python", "--no-instants")
    assert done.returncode == 0, done.stderr
    assert "THPVariable_add" in done.stdout
    echoed = [line for line in done.stdout.splitlines() if line.startswith("tensor([")]
    assert len(echoed) == 1 and done.stderr == ""


def test_multi_line_statements_and_expressions_on_any_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    source = "x = (torch.rand(2)\n     * 2)\nx.sum()\nif True:\n    y = x + 1\n(y\n +\n 1)\nNone"
    assert main([source, "--layers", "python", "--no-instants", "--code", "--width", "200"]) == 0
    out = capsys.readouterr().out
    assert out.count("THPVariable_add  [python]") == 2 and "THPVariable_sum  [python]" in out
    assert "tensor(" not in out  # the last expression is None: the REPL echoes nothing
    assert main(["torch.zeros(2)", "--layers", "python", "--width", "200"]) == 0
    assert "tensor([0., 0.])" in capsys.readouterr().out


def test_error_text_is_plain_one_line() -> None:
    done = run_cli("raise ValueError('[/]')")
    assert (done.returncode, done.stderr) == (1, "tensortrace: ValueError: [/]\n")
    done = run_cli("raise RuntimeError('[bold]first\\nsecond')")
    assert (done.returncode, done.stderr) == (1, "tensortrace: RuntimeError: [bold]first\n")


@pytest.mark.parametrize("option", ["--chrome", "--json"])
def test_unwritable_output_path_is_one_line(option: str, tmp_path: Path) -> None:
    missing = tmp_path / "nonexistent" / "x.json"
    done = run_cli("x = torch.rand(2)", option, str(missing))
    assert done.returncode == 1
    assert done.stderr == f"tensortrace: cannot write {missing}: No such file or directory\n"


def test_width_below_20_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    done = run_cli("--width", "0")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "tensortrace: error: argument --width: must be at least 20, got 0\n"
    for width in ("19", "-5"):
        with pytest.raises(SystemExit) as exit_info:
            main(["--width", width])
        assert exit_info.value.code == 2
        assert capsys.readouterr().err == (
            f"tensortrace: error: argument --width: must be at least 20, got {width}\n"
        )
    assert main(["x = 1", "--width", "20"]) == 0


def test_ctrl_c_stops_at_once_with_interrupted() -> None:
    env = dict(os.environ, PYTHONPATH=str(Path(tensortrace.__file__).parents[1]))
    loop = "print('ready', flush=True)\nwhile True:\n    x = torch.rand(10) + 1\n    del x"
    # a background job may inherit SIGINT ignored, and Python then installs no handler for it
    proc = subprocess.Popen(
        [sys.executable, "-m", "tensortrace.cli", loop],
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert (proc.returncode, err, out) == (130, "tensortrace: interrupted\n", "")
