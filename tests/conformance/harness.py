"""Run the same program in tensortrace and in torch 2.13.0, and compare what comes out.

A program is Python source using the name `torch`; whatever it leaves in `out` (a tensor, a
number, a tuple or list of them) is compared: shapes, strides, storage offsets, dtypes and
values for tensors; type and message for an exception. Both sides start from manual_seed(0).
"""

from __future__ import annotations

import math
import re
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


# "cuda": tensortrace runs each program with torch.set_default_device("cuda") on the emulated
# CUDA device (the conformance_device fixture of conftest.py sets it), torch on the CPU, and the
# results must still be equal.
DEVICE = "cpu"


def run(module: Any, program: str, default_device: str | None = None) -> Outcome:
    module.manual_seed(0)
    if default_device is not None:  # the factories (and nn modules' parameters) default to it
        module.set_default_device(default_device)
    namespace: dict[str, Any] = {"torch": module, "np": np, "math": math}
    try:
        exec(program, namespace)
    except Exception as exc:  # the error itself is what gets compared
        return Outcome(error=exc)
    finally:
        if default_device is not None:
            module.set_default_device(None)
    return Outcome(value=namespace.get("out"), has_out="out" in namespace)


def _tensors_on_cpu(value: Any) -> bool:
    if isinstance(value, tensortrace.Tensor):
        return value.device.type == "cpu"
    if isinstance(value, (tuple, list)):
        return any(_tensors_on_cpu(v) for v in value)
    if isinstance(value, dict):
        return any(_tensors_on_cpu(v) for v in value.values())
    return False


# Note [Outputs that stay on the CPU under a default device]
# With a default device, torch still makes some tensors on the CPU: torch.Tensor(...) (the
# legacy constructor), torch.from_numpy, *_like of a CPU tensor, and what is computed from
# them. Which ones is torch's to say, and torch here has no CUDA: it runs the program again with
# the meta device as its default (a device that is not the CPU, as cuda is not), and a
# tensortrace output may be on the CPU only where torch's meta run left that output on the CPU.
# Every other output must be on DEVICE.
_NOT_RUN = object()


def _device_oracle(program: str) -> Any:
    """The program's `out` in torch with the meta default device (or _NOT_RUN if it raised)."""
    outcome = run(torch, program, default_device="meta")
    return _NOT_RUN if outcome.error is not None else outcome.value


def _expected_device(oracle: Any) -> str:
    if isinstance(oracle, torch.Tensor) and oracle.device.type == "cpu":
        return "cpu"
    return DEVICE


def _at(oracle: Any, key: Any) -> Any:
    try:
        return oracle[key]
    except (TypeError, IndexError, KeyError):
        return _NOT_RUN


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
    ours: Any,
    theirs: Any,
    path: str = "out",
    rtol: float = 0.0,
    atol: float = 0.0,
    oracle: Any = _NOT_RUN,
) -> None:
    """`oracle`: the same value from torch's run with the meta default device (Note [Outputs
    that stay on the CPU under a default device]), when it was run."""
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, tensortrace.Tensor), f"{path}: expected a Tensor, got {ours!r}"
        expected = _expected_device(oracle)
        assert ours.device.type == expected, f"{path}: on {ours.device}, expected {expected}"
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
            assert_same(o, t, f"{path}[{i}]", rtol, atol, _at(oracle, i))
    elif isinstance(theirs, dict):
        assert isinstance(ours, dict) and list(ours) == list(theirs), (
            f"{path}: keys {list(ours) if isinstance(ours, dict) else ours!r} != {list(theirs)}"
        )
        for key in theirs:
            assert_same(ours[key], theirs[key], f"{path}[{key!r}]", rtol, atol, _at(oracle, key))
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
    on_device = DEVICE if DEVICE != "cpu" else None
    ours, theirs = run(tensortrace, program, on_device), run(torch, program)
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
    oracle = _NOT_RUN
    if DEVICE != "cpu" and _tensors_on_cpu(ours.value):
        oracle = _device_oracle(program)
    assert_same(ours.value, theirs.value, rtol=rtol, atol=atol, oracle=oracle)
