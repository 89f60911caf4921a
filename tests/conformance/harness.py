"""Run the same program in tensortrace and in torch 2.13.0, and compare what comes out.

A program is Python source using the name `torch`; whatever it leaves in `out` (a tensor, a
number, a tuple or list of them) is compared: shapes, strides, storage offsets, dtypes and
values for tensors; type and message for an exception. Both sides start from manual_seed(0).
"""

from __future__ import annotations

import math
import re
import types
from typing import Any

import numpy as np
import pytest

import tensortrace

torch = pytest.importorskip("torch")


class Outcome:
    def __init__(
        self, value: Any = None, error: BaseException | None = None, has_out: bool = False
    ) -> None:
        self.value = value
        self.error = error
        self.has_out = has_out  # whether the program set `out` (None is a value too)


# "cuda": tensortrace runs each program on the emulated CUDA device (the conformance_device
# fixture of conftest.py sets it), torch on the CPU, and the results must still be equal.
DEVICE = "cpu"

# torch.utils._device._device_constructors(): the factories torch.set_default_device affects
DEVICE_CONSTRUCTORS = frozenset(
    {
        "empty",
        "empty_strided",
        "ones",
        "arange",
        "eye",
        "full",
        "linspace",
        "logspace",
        "rand",
        "randn",
        "randint",
        "randperm",
        "range",
        "zeros",
        "asarray",
        "tensor",
        "as_tensor",
        "scalar_tensor",
        "bartlett_window",
        "blackman_window",
        "hamming_window",
        "hann_window",
        "kaiser_window",
        "fftfreq",  # torch.fft.fftfreq / rfftfreq (OnDevice wraps torch.fft too)
        "rfftfreq",
    }
)
# the submodules whose factories are among torch's _device_constructors
DEVICE_SUBMODULES = frozenset({"fft"})


class OnDevice:
    """The module, with its factories defaulting to `device` (torch.set_default_device)."""

    def __init__(self, module: Any, device: str) -> None:
        self._module = module
        self._device = device

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._module, name)
        if name in DEVICE_SUBMODULES and isinstance(value, types.ModuleType):
            return OnDevice(value, self._device)
        if name not in DEVICE_CONSTRUCTORS:
            return value

        def factory(*args: Any, **kwargs: Any) -> Any:
            if kwargs.get("device") is None:
                kwargs["device"] = self._device
            return value(*args, **kwargs)

        return factory


def run(module: Any, program: str) -> Outcome:
    module.manual_seed(0)
    if module is tensortrace and DEVICE != "cpu":
        module = OnDevice(module, DEVICE)
    namespace: dict[str, Any] = {"torch": module, "np": np, "math": math}
    try:
        exec(program, namespace)
    except Exception as exc:  # the error itself is what gets compared
        return Outcome(error=exc)
    return Outcome(value=namespace.get("out"), has_out="out" in namespace)


def _tensor_facts(t: Any) -> tuple[Any, ...]:
    return (
        tuple(t.shape),
        tuple(t.stride()),
        t.storage_offset(),
        str(t.dtype),
        t.is_conj(),
        t.is_neg(),
    )


def _values(t: Any, is_torch: bool) -> np.ndarray:
    if is_torch:
        arr = t.detach().resolve_conj().resolve_neg()  # numpy() refuses the math bits
        if arr.dtype == torch.bfloat16:
            arr = arr.float()
        return arr.numpy()
    arr = t.cdata.numpy_view()
    if t.is_conj():
        arr = np.conj(arr)
    if t.is_neg():
        arr = np.negative(arr)
    return arr.astype(np.float32) if arr.dtype.name == "bfloat16" else arr


def assert_same(
    ours: Any, theirs: Any, path: str = "out", rtol: float = 0.0, atol: float = 0.0
) -> None:
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, tensortrace.Tensor), f"{path}: expected a Tensor, got {ours!r}"
        assert ours.device.type == DEVICE, f"{path}: on {ours.device}, expected {DEVICE}"
        assert _tensor_facts(ours) == _tensor_facts(theirs), (
            f"{path}: (shape, stride, offset, dtype, is_conj, is_neg) {_tensor_facts(ours)} != "
            f"{_tensor_facts(theirs)}"
        )
        a, b = _values(ours, False), _values(theirs, True)
        if rtol or atol:
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=path)
        else:
            np.testing.assert_array_equal(a, b, err_msg=path)
    elif isinstance(theirs, (tuple, list)):
        assert isinstance(ours, (tuple, list)) and len(ours) == len(theirs), (
            f"{path}: {ours!r} != {theirs!r}"
        )
        for i, (o, t) in enumerate(zip(ours, theirs)):
            assert_same(o, t, f"{path}[{i}]", rtol, atol)
    elif isinstance(theirs, dict):
        assert isinstance(ours, dict) and list(ours) == list(theirs), (
            f"{path}: keys {list(ours) if isinstance(ours, dict) else ours!r} != {list(theirs)}"
        )
        for key in theirs:
            assert_same(ours[key], theirs[key], f"{path}[{key!r}]", rtol, atol)
    elif isinstance(theirs, torch.dtype):
        assert str(ours) == str(theirs), f"{path}: {ours} != {theirs}"
    elif isinstance(theirs, float) and math.isnan(theirs):
        assert isinstance(ours, float) and math.isnan(ours), f"{path}: {ours!r} != nan"
    else:
        assert type(ours).__name__ == type(theirs).__name__ and ours == theirs, (
            f"{path}: {ours!r} != {theirs!r}"
        )


# A C++ message that embeds another error's what() (unflatten's "unexpected error") carries its
# backtrace: the function and source line are compared, the frames (addresses in torch's shared
# libraries, or tensortrace's Python frames) and torch's build directory are not.
_BACKTRACE = re.compile(
    r"Exception raised from (\S+) at (?:/__w/pytorch/pytorch/)?(\S+) "
    r"\(most recent call first\):\n.*",
    re.DOTALL,
)


def normalized_message(error: BaseException) -> str:
    return _BACKTRACE.sub(
        r"Exception raised from \1 at \2 (most recent call first):\n<frames>", str(error)
    )


def check(program: str, rtol: float = 0.0, atol: float = 0.0) -> None:
    """The same result, or the same error (type and message), in both libraries."""
    ours, theirs = run(tensortrace, program), run(torch, program)
    if theirs.error is not None:
        assert ours.error is not None, (
            f"torch raised {type(theirs.error).__name__}: {theirs.error}, tensortrace returned "
            f"{ours.value!r}"
        )
        assert type(ours.error).__name__ == type(theirs.error).__name__, (
            f"{type(ours.error).__name__}: {ours.error} != "
            f"{type(theirs.error).__name__}: {theirs.error}"
        )
        assert normalized_message(ours.error) == normalized_message(theirs.error)
        return
    # a program that raises nothing must leave what it computed in `out`: with nothing to
    # compare, any result would pass
    assert theirs.has_out, f"the program leaves no `out` to compare: {program!r}"
    if ours.error is not None:
        raise AssertionError(
            f"tensortrace raised {type(ours.error).__name__}: {ours.error}; "
            f"torch returned {theirs.value!r}"
        ) from ours.error
    assert_same(ours.value, theirs.value, rtol=rtol, atol=atol)
