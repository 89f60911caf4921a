"""The `tensortrace` command."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tensortrace.cli import main

GOLDEN = Path(__file__).parent / "data" / "cli_seed_dispatch_layer.txt"


def test_default_traces_the_seed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--width", "200"]) == 0
    out = capsys.readouterr().out
    for name in ("THPVariable_rand", "aten::rand", "at::native::rand", "c10::alloc_cpu",
                 "THPVariable_getitem", "aten::as_strided", "TensorIteratorBase::compute_shape",
                 "at::native::add_kernel", "THPVariable_dealloc", "c10::free_cpu"):
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
    assert err == ("tensortrace: RuntimeError: The size of tensor a (3) must match the size of "
                   "tensor b (4) at non-singleton dimension 0")
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
    assert ("_t1 = torch.rand(3, 4)\n_t2 = _t1.__getitem__(0)\ndel _t1\n_t3 = torch.rand(3, 4)\n"
            "r = _t2.__add__(_t3)\ndel _t2\ndel _t3\n") in out


def _tree_lines(out: str) -> list[str]:
    """The tree's lines: all of them before the summary line (`299 events, ...`)."""
    lines = out.splitlines()
    return lines[:next(i for i, line in enumerate(lines) if re.match(r"\d+ events, ", line))]


@pytest.mark.parametrize("width", [80, 100])
def test_narrow_terminal_puts_each_frame_on_one_line(capsys: pytest.CaptureFixture[str],
                                                     width: int) -> None:
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
