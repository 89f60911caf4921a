"""torch.save / torch.load in torch's zip format, both ways with real torch 2.13.0.

What tensortrace saves, real torch.load reads (with its default weights_only=True); what real
torch saves, tensortrace loads: same values, shapes, strides, offsets, dtypes, shared storages.
A file naming any other global is refused before anything is imported or called.
"""

from __future__ import annotations

import io
import pickle
import zipfile
from pathlib import Path

import pytest

import tensortrace

from .harness import assert_same

torch = pytest.importorskip("torch")

PROGRAM = """
base = torch.arange(12.).reshape(3, 4)
obj = {
    "w": base,
    "col": base[:, 1],
    "t": base.T,
    "ints": [torch.tensor([1, -2, 3]), 7, "name"],
    "flags": (torch.tensor([True, False]),),
    "half": torch.ones(3, dtype=torch.float16) / 3,
    "bf16": torch.ones(2, dtype=torch.bfloat16) * 1.5,
    "i8": torch.arange(-3, 3, dtype=torch.int8),
    "u8": torch.arange(4, dtype=torch.uint8),
    "i16": torch.arange(3, dtype=torch.int16), "i32": torch.arange(3, dtype=torch.int32),
    "f64": torch.rand(2, 2, dtype=torch.float64),
    "scalar": torch.tensor(3.5),
    "empty": torch.zeros(0, 3),
    "nested": {"a": [torch.zeros(2), {"b": torch.ones(1)}]},
}
"""


def _make(module: object) -> dict:
    namespace: dict = {"torch": module}
    module.manual_seed(0)  # type: ignore[attr-defined]
    exec(PROGRAM, namespace)
    return namespace["obj"]


def _compare(ours: object, theirs: object, path: str = "obj") -> None:
    if isinstance(theirs, dict):
        assert isinstance(ours, dict) and list(ours) == list(theirs), path
        for k in theirs:
            _compare(ours[k], theirs[k], f"{path}[{k!r}]")
    elif isinstance(theirs, (list, tuple)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs), path
        for i, (o, t) in enumerate(zip(ours, theirs)):
            _compare(o, t, f"{path}[{i}]")
    else:
        assert_same(ours, theirs, path)


@pytest.mark.parametrize("target", ["path", "buffer"])
def test_tensortrace_save_torch_load(tmp_path: Path, target: str) -> None:
    ours = _make(tensortrace)
    if target == "path":
        tensortrace.save(ours, tmp_path / "model.pt")
        loaded = torch.load(tmp_path / "model.pt")  # weights_only=True by default
        names = zipfile.ZipFile(tmp_path / "model.pt").namelist()
        assert names[0] == "model/data.pkl" and "model/version" in names
    else:
        buffer = io.BytesIO()
        tensortrace.save(ours, buffer)
        buffer.seek(0)
        loaded = torch.load(buffer, weights_only=True)
    _compare(ours, loaded)  # ours vs torch's reading of it
    # views still share one storage after the round trip
    assert loaded["col"].untyped_storage().data_ptr() == loaded["w"].untyped_storage().data_ptr()


def test_torch_save_tensortrace_load(tmp_path: Path) -> None:
    theirs = _make(torch)
    torch.save(theirs, tmp_path / "theirs.pt")
    loaded = tensortrace.load(tmp_path / "theirs.pt")
    _compare(loaded, theirs)
    loaded["w"][0, 1] = 100.0  # shared storage: the column view sees the write
    assert loaded["col"][0].item() == 100.0
    assert loaded["t"][1, 0].item() == 100.0


def test_round_trip_in_tensortrace(tmp_path: Path) -> None:
    ours = _make(tensortrace)
    tensortrace.save(ours, tmp_path / "x.pt")
    again = tensortrace.load(tmp_path / "x.pt")
    buffer = io.BytesIO()
    torch.save(_make(torch), buffer)
    buffer.seek(0)
    _compare(again, torch.load(buffer))


def test_data_is_aligned(tmp_path: Path) -> None:
    tensortrace.save({"a": tensortrace.arange(10.0)}, tmp_path / "a.pt")
    raw = (tmp_path / "a.pt").read_bytes()
    with zipfile.ZipFile(tmp_path / "a.pt") as zf:
        info = zf.getinfo("a/data/0")
    name_len = int.from_bytes(raw[info.header_offset + 26 : info.header_offset + 28], "little")
    extra_len = int.from_bytes(raw[info.header_offset + 28 : info.header_offset + 30], "little")
    assert (info.header_offset + 30 + name_len + extra_len) % 64 == 0


class _Evil:
    def __reduce__(self) -> tuple:
        return (print, ("pwned",))


def test_load_refuses_other_globals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "evil.pt"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("evil/data.pkl", pickle.dumps({"x": _Evil()}, protocol=2))
        zf.writestr("evil/version", "3\n")
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        tensortrace.load(path)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        torch.load(path)
    assert "pwned" not in capsys.readouterr().out


def test_load_not_a_zip(tmp_path: Path) -> None:
    path = tmp_path / "legacy.pt"
    path.write_bytes(b"not a zip file")
    with pytest.raises(RuntimeError):
        tensortrace.load(path)


def test_load_leaks_nothing(tmp_path: Path, no_leak: None) -> None:
    tensortrace.save({"a": tensortrace.rand(4, 4)}, tmp_path / "a.pt")
    loaded = tensortrace.load(tmp_path / "a.pt")
    del loaded
