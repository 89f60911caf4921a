"""The generated files on disk are what `python -m tensortrace.torchgen` writes, and are used.

If a test here fails after you changed native_functions.yaml, deprecated.yaml, a @traced
signature or tensortrace/torchgen: run `python -m tensortrace.torchgen` and commit the result.
"""

from __future__ import annotations

import importlib
import inspect
import os
import random
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import tensortrace
from tensortrace.aten import functions as at
from tensortrace.aten.tensor_body import Tensor
from tensortrace.torchgen.gen import COMMAND, outputs, stale_files
from tensortrace.torchgen.loader import load

SRC = Path(tensortrace.__file__).resolve().parent.parent


def test_checked_in_files_match_the_generator() -> None:
    stale = stale_files(outputs())
    assert not stale, (
        f"generated files out of date: {[str(p) for p in stale]}; run `{COMMAND}` and commit them"
    )


def test_the_runtime_imports_the_files_on_disk() -> None:
    for package in ("tensortrace.aten.generated", "tensortrace.csrc.generated"):
        for name, module in load(package).items():
            assert Path(module.__file__ or "").is_file(), (package, name)


def _traced_functions() -> list[object]:
    found = []
    for module in list(sys.modules.values()):
        if not getattr(module, "__name__", "").startswith("tensortrace"):
            continue
        for value in list(vars(module).values()):
            if hasattr(value, "__traced_site__"):
                found.append(value)
    for name in dir(Tensor):
        value = getattr(Tensor, name)
        if hasattr(value, "__traced_site__"):
            found.append(value)
    for name in dir(tensortrace.Tensor):
        value = inspect.getattr_static(tensortrace.Tensor, name)
        # under TypeError_to_NotImplemented_ and handle_th_errors
        value = getattr(value, "__wrapped__", value)
        if hasattr(value, "__traced_site__"):
            found.append(value)
    return found


def test_every_traced_function_has_a_source_file_on_disk() -> None:
    functions = _traced_functions()
    assert len(functions) > 1000
    sample = random.Random(13).sample(functions, 200) + [at.add, Tensor.add, tensortrace.add]
    for fn in sample:
        path = inspect.getsourcefile(fn)  # type: ignore[arg-type]
        assert path is not None and Path(path).is_file(), fn
        # and the wrapper's own code (what a debugger steps through) is a file too
        assert Path(fn.__code__.co_filename).is_file(), fn  # type: ignore[attr-defined]


def test_a_stale_yaml_is_generated_in_memory_not_bound_wrong(tmp_path: Path) -> None:
    """Note [Stale generated files]: add an op to a copy of the package's YAML without
    regenerating; the import warns, builds the bindings in memory, and the new op works."""
    pkg = tmp_path / "tensortrace"
    subprocess.run(["cp", "-r", str(SRC / "tensortrace"), str(pkg)], check=True)
    yaml_path = pkg / "aten" / "native_functions.yaml"
    yaml_path.write_text(
        yaml_path.read_text()
        + (
            "\n- func: my_abs(Tensor self) -> Tensor\n"
            "  variants: function, method\n"
            "  dispatch:\n"
            "    CompositeExplicitAutograd: abs\n"
        )
    )
    program = (
        "import warnings\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    import tensortrace as torch\n"
        "assert any('out of date' in str(x.message) for x in w), w\n"
        "x = torch.tensor([1.0, -2.0])\n"
        "assert torch.my_abs(x).tolist() == [1.0, 2.0]\n"
        "assert x.my_abs().tolist() == [1.0, 2.0]\n"
        "print('ok')\n"
    )
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True)
    assert done.stdout.strip() == "ok", done.stderr


def test_a_signature_the_generator_never_saw_still_traces() -> None:
    from tensortrace.trace import traced

    @traced("native", "demo::unseen", "aten/src/ATen/native/Demo.cpp")
    def unseen(a_never_seen_name: int, *, another_unseen: int = 2) -> int:
        return a_never_seen_name * another_unseen

    with tensortrace.record() if hasattr(tensortrace, "record") else tensortrace.trace() as t:
        assert unseen(3) == 6
    (root,) = t.roots()
    assert root.args == {"a_never_seen_name": 3, "another_unseen": 2}


def test_the_generator_module_is_importable_without_side_effects() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        importlib.import_module("tensortrace.torchgen.gen")


@pytest.mark.parametrize("name", ["add", "rand", "where"])
def test_generated_functions_carry_their_schemas(name: str) -> None:
    assert f"{name}." in (getattr(at, name).__doc__ or "") or name in (
        getattr(at, name).__doc__ or ""
    )


def test_the_schemas_written_parsed_are_what_the_yaml_says() -> None:
    """operators.py holds each schema already parsed: it must be parse_schema of its `func:`."""
    from tensortrace.aten.function_schema import parse_schema
    from tensortrace.aten.generated import operators

    differ = [
        op.schema.full_name
        for op in operators.OPERATORS
        if op.schema != parse_schema(op.entry["func"])
    ]
    assert differ == []
