"""Every conformance program runs twice: on the CPU, and with tensortrace's factories on the
emulated CUDA device (torch stays on the CPU: the values must be the same)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from . import harness

# repr() shows the device (`device='cuda:0'`), so printing is compared on the CPU only; the
# CUDA repr has tests of its own (tests/cuda/test_device.py).
# The samplers draw from CPU generators (torch.Generator() is one), which torch's own
# RandomSampler cannot do on the CUDA default device: data loading is compared on the CPU.
CPU_ONLY_MODULES = frozenset({"test_printing", "test_data_loading"})


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    module = metafunc.module
    if getattr(module, "check", None) is not harness.check:
        return
    devices = ["cpu"] if module.__name__.rsplit(".", 1)[-1] in CPU_ONLY_MODULES else ["cpu", "cuda"]
    metafunc.fixturenames.append("conformance_device")
    metafunc.parametrize("conformance_device", devices, indirect=True)


@pytest.fixture
def conformance_device(request: pytest.FixtureRequest) -> Iterator[str]:
    harness.DEVICE = request.param
    try:
        yield request.param
    finally:
        harness.DEVICE = "cpu"
