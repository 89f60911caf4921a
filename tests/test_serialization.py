"""torch.save / torch.load of whole models: the "Save and Load the Model" tutorial, both ways.

A Module pickles as its class (by torch's name, torch.nn.modules.linear.Linear) plus its
__dict__, a Parameter as torch._utils._rebuild_parameter, so data.pkl is byte for byte the one
real torch 2.13 writes; weights_only=True (the default) refuses a whole model with torch's
error, weights_only=False rebuilds it. Tests that need real torch skip when it is absent.
"""

from __future__ import annotations

import io
import pickle
import pickletools
import warnings
import zipfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import tensortrace
from tensortrace import nn


@pytest.fixture
def real_torch() -> ModuleType:
    return pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _no_safe_globals() -> Iterator[None]:
    tensortrace.serialization.clear_safe_globals()
    yield
    tensortrace.serialization.clear_safe_globals()


class TinyNet(nn.Module):
    """A custom Module defined here: pickled by reference to tests.test_serialization."""

    def __init__(self) -> None:
        super().__init__()
        self.flatten = nn.Flatten()
        self.stack = nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 2))
        self.register_buffer("scale", tensortrace.tensor([2.0, 0.5]))
        self.label = "tiny"

    def forward(self, x: Any) -> Any:
        return self.stack(self.flatten(x)) * self.scale


def _sequential(lib: Any) -> Any:
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 2))


def _saved(lib: Any, obj: Any) -> bytes:
    buffer = io.BytesIO()
    lib.save(obj, buffer)
    return buffer.getvalue()


def _numpy(t: Any) -> np.ndarray:
    return t.detach().cpu().numpy()


# ---- tensortrace alone -------------------------------------------------------------------------
def test_whole_sequential_round_trip() -> None:
    model = _sequential(tensortrace)
    loaded = tensortrace.load(io.BytesIO(_saved(tensortrace, model)), weights_only=False)
    assert type(loaded) is nn.Sequential and repr(loaded) == repr(model)
    assert all(type(p) is nn.Parameter and p.requires_grad for p in loaded.parameters())
    x = tensortrace.rand(5, 3)
    np.testing.assert_array_equal(_numpy(loaded(x)), _numpy(model(x)))


def test_custom_module_round_trip(tmp_path: Path) -> None:
    tensortrace.manual_seed(1)
    model = TinyNet()
    model.eval()
    tensortrace.save(model, tmp_path / "tiny.pth")
    loaded = tensortrace.load(tmp_path / "tiny.pth", weights_only=False)
    assert type(loaded) is TinyNet and loaded.label == "tiny" and loaded.training is False
    assert list(loaded.state_dict()) == list(model.state_dict())
    x = tensortrace.rand(3, 2, 2)
    np.testing.assert_array_equal(_numpy(loaded(x)), _numpy(model(x)))
    # the Parameters are the model's, not copies: training the loaded one changes its output
    loaded.stack[0].weight.data.zero_()
    assert not np.array_equal(_numpy(loaded(x)), _numpy(model(x)))


def test_shared_parameter_and_views_stay_shared() -> None:
    lin = nn.Linear(2, 2)
    obj = {"a": lin, "b": lin, "w": lin.weight, "row": lin.weight.data[1]}
    loaded = tensortrace.load(io.BytesIO(_saved(tensortrace, obj)), weights_only=False)
    assert loaded["a"] is loaded["b"] and loaded["w"] is loaded["a"].weight
    loaded["w"].data[1, 0] = 42.0  # the row view shares the parameter's storage
    assert loaded["row"][0].item() == 42.0


def test_tutorial_sequence(tmp_path: Path) -> None:
    """docs: beginner/basics/saveloadrun_tutorial, on a small model."""
    model = _sequential(tensortrace)
    tensortrace.save(model.state_dict(), tmp_path / "model_weights.pth")
    fresh = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    fresh.load_state_dict(tensortrace.load(tmp_path / "model_weights.pth", weights_only=True))
    fresh.eval()
    tensortrace.save(model, tmp_path / "model.pth")
    whole = tensortrace.load(tmp_path / "model.pth", weights_only=False)
    x = tensortrace.rand(2, 3)
    np.testing.assert_array_equal(_numpy(fresh(x)), _numpy(model(x)))
    np.testing.assert_array_equal(_numpy(whole(x)), _numpy(model(x)))


def test_weights_only_refuses_a_whole_model(tmp_path: Path) -> None:
    tensortrace.save(_sequential(tensortrace), tmp_path / "model.pth")
    with pytest.raises(pickle.UnpicklingError) as info:
        tensortrace.load(tmp_path / "model.pth")  # weights_only=None means True
    message = str(info.value)
    assert message.startswith("Weights only load failed. This file can still be loaded")
    assert "GLOBAL torch.nn.modules.container.Sequential was not an allowed global" in message
    with pytest.raises(RuntimeError, match="explicit pickle_module"):
        tensortrace.load(tmp_path / "model.pth", pickle_module=pickle, weights_only=True)
    # a pickle_module without weights_only means weights_only=False (_default_to_weights_only)
    assert type(tensortrace.load(tmp_path / "model.pth", pickle_module=pickle)) is nn.Sequential


def test_safe_globals_allow_a_whole_model(tmp_path: Path) -> None:
    model = _sequential(tensortrace)
    tensortrace.save(model, tmp_path / "model.pth")
    classes = [nn.Sequential, nn.Linear, nn.ReLU]
    with tensortrace.serialization.safe_globals(classes):
        assert set(tensortrace.serialization.get_safe_globals()) == set(classes)
        loaded = tensortrace.load(tmp_path / "model.pth", weights_only=True)
    assert tensortrace.serialization.get_safe_globals() == []
    assert repr(loaded) == repr(model)
    tensortrace.serialization.add_safe_globals([nn.Sequential])
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL torch.nn.modules.linear.Linear"):
        tensortrace.load(tmp_path / "model.pth", weights_only=True)


def test_failed_load_leaks_nothing(tmp_path: Path, no_leak: None) -> None:
    # the tensor's storage is read before the unpickler meets the Module's global
    obj = {"w": tensortrace.rand(64, 64), "model": nn.Linear(8, 8)}
    tensortrace.save(obj, tmp_path / "mixed.pth")
    del obj
    with pytest.raises(pickle.UnpicklingError):
        tensortrace.load(tmp_path / "mixed.pth")
    renamed = io.BytesIO()  # weights_only=False: a name tensortrace lacks
    with zipfile.ZipFile(tmp_path / "mixed.pth") as src, zipfile.ZipFile(renamed, "w") as dst:
        for name in src.namelist():
            data = src.read(name)
            dst.writestr(name, data.replace(b"\nLinear\n", b"\nLinea_\n"))
    renamed.seek(0)
    with pytest.raises(AttributeError, match="Linea_"):
        tensortrace.load(renamed, weights_only=False)


def test_cuda_tensors_keep_their_device_or_follow_map_location() -> None:
    x = tensortrace.arange(6.0, device="cuda").reshape(2, 3)
    raw = _saved(tensortrace, {"x": x, "col": x[:, 1]})
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        assert "'cuda:0'" in _disassembled(zf.read("archive/data.pkl"))
    for map_location, device in [
        (None, "cuda:0"),
        ("cpu", "cpu"),
        (tensortrace.device("cpu"), "cpu"),
        ({"cuda:0": "cpu"}, "cpu"),
        (lambda storage, location: storage, "cpu"),  # the storage as read: on the CPU
        (lambda storage, location: None, "cuda:0"),  # None: the default restore
    ]:
        loaded = tensortrace.load(io.BytesIO(raw), map_location=map_location)
        assert str(loaded["x"].device) == device and str(loaded["col"].device) == device
        np.testing.assert_array_equal(_numpy(loaded["col"]), [1.0, 4.0])
    with pytest.raises(RuntimeError, match="torch.cuda.device_count\\(\\) is"):
        tensortrace.load(io.BytesIO(raw), map_location="cuda:7")


def _disassembled(pkl: bytes) -> str:
    out = io.StringIO()
    pickletools.dis(pkl, out=out)
    return out.getvalue()


# ---- against real torch 2.13 -------------------------------------------------------------------
def test_data_pkl_is_torchs_byte_for_byte(real_torch: ModuleType) -> None:
    ours, theirs = (
        _saved(tensortrace, _sequential(tensortrace)),
        _saved(real_torch, _sequential(real_torch)),
    )
    with zipfile.ZipFile(io.BytesIO(ours)) as a, zipfile.ZipFile(io.BytesIO(theirs)) as b:
        assert sorted(a.namelist()) == sorted(b.namelist())
        assert _disassembled(a.read("archive/data.pkl")) == _disassembled(
            b.read("archive/data.pkl")
        )
        for name in a.namelist():
            if name.startswith("archive/data/"):
                assert a.read(name) == b.read(name), name


def test_torch_model_loads_in_tensortrace(tmp_path: Path, real_torch: ModuleType) -> None:
    theirs = _sequential(real_torch)
    real_torch.save(theirs, tmp_path / "model.pth")
    ours = tensortrace.load(tmp_path / "model.pth", weights_only=False)
    assert type(ours) is nn.Sequential and repr(ours) == repr(theirs)
    assert all(type(p) is nn.Parameter for p in ours.parameters())
    x = np.random.default_rng(0).random((4, 3), dtype=np.float32)
    np.testing.assert_allclose(
        _numpy(ours(tensortrace.tensor(x))), _numpy(theirs(real_torch.tensor(x))), rtol=1e-6
    )
    state = tmp_path / "model_weights.pth"
    real_torch.save(theirs.state_dict(), state)
    fresh = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    fresh.load_state_dict(tensortrace.load(state, weights_only=True))
    np.testing.assert_array_equal(
        _numpy(fresh(tensortrace.tensor(x))), _numpy(ours(tensortrace.tensor(x)))
    )


def test_tensortrace_model_loads_in_torch(tmp_path: Path, real_torch: ModuleType) -> None:
    ours = _sequential(tensortrace)
    tensortrace.save(ours, tmp_path / "model.pth")
    theirs = real_torch.load(tmp_path / "model.pth", weights_only=False)
    assert type(theirs) is real_torch.nn.Sequential and repr(theirs) == repr(ours)
    assert all(type(p) is real_torch.nn.Parameter for p in theirs.parameters())
    x = np.random.default_rng(1).random((4, 3), dtype=np.float32)
    np.testing.assert_allclose(
        _numpy(theirs(real_torch.tensor(x))), _numpy(ours(tensortrace.tensor(x))), rtol=1e-6
    )
    # a tensor on the emulated GPU is tagged cuda:0, which a CPU-only torch maps with map_location
    tensortrace.save({"x": tensortrace.ones(2, device="cuda")}, tmp_path / "cuda.pth")
    with pytest.raises(RuntimeError, match="torch.cuda.is_available\\(\\) is False"):
        real_torch.load(tmp_path / "cuda.pth")
    assert real_torch.load(tmp_path / "cuda.pth", map_location="cpu")["x"].tolist() == [1.0, 1.0]


@pytest.mark.parametrize("writer", ["tensortrace", "torch"])
def test_weights_only_errors_are_torchs(
    tmp_path: Path, real_torch: ModuleType, writer: str
) -> None:
    lib = tensortrace if writer == "tensortrace" else real_torch
    lib.save({"model": _sequential(lib)}, tmp_path / "model.pth")
    errors = []
    for reader in (tensortrace, real_torch):
        with pytest.raises(Exception) as info:
            reader.load(tmp_path / "model.pth")
        errors.append((type(info.value), str(info.value)))
    assert errors[0] == errors[1]
    with pytest.raises(RuntimeError) as ours:
        tensortrace.load(tmp_path / "model.pth", pickle_module=pickle, weights_only=True)
    with pytest.raises(RuntimeError) as theirs:
        real_torch.load(tmp_path / "model.pth", pickle_module=pickle, weights_only=True)
    assert str(ours.value) == str(theirs.value)


def test_parameter_with_attributes_and_hook_warning(real_torch: ModuleType) -> None:
    messages = []
    for lib in (tensortrace, real_torch):
        p = lib.nn.Parameter(lib.ones(2))
        p.tag = "embedding"  # state: _rebuild_parameter_with_state
        t = lib.ones(3, requires_grad=True)

        def hook(grad: Any) -> Any:
            return grad

        p.register_hook(hook)  # a Parameter pickles its .data: no hook, no warning
        t.register_hook(hook)  # a tensor's hooks are dropped, with a warning
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            raw = _saved(lib, {"p": p, "t": t})
        messages.append([str(w.message).replace(repr(hook), "<hook>") for w in caught])
        for reader in (tensortrace, real_torch):
            back = reader.load(io.BytesIO(raw), weights_only=True)
            assert type(back["p"]) is reader.nn.Parameter and back["p"].tag == "embedding"
            assert back["t"].requires_grad and back["t"].is_leaf
    assert messages[0] == messages[1] and len(messages[0]) == 1
