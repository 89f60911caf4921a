"""Every conformance program runs twice: on the CPU, and with tensortrace's default device set to
the emulated CUDA device (torch stays on the CPU: the values must be the same)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from . import harness

# repr() shows the device (`device='cuda:0'`), so printing is compared on the CPU only; the
# CUDA repr has tests of its own (tests/cuda/test_device.py).
# The samplers draw from CPU generators (torch.Generator() is one), which torch's own
# RandomSampler cannot do on the CUDA default device: data loading is compared on the CPU.
# torch.get_rng_state / set_rng_state / fork_rng(devices=[]) save and restore the CPU
# generator, while on the CUDA default device torch.rand draws from the CUDA one (and
# set_rng_state refuses a state tensor made there: "RNG state must be a torch.ByteTensor"), as
# on a CUDA machine: the CPU generator's state is compared on the CPU.
# Worker processes: torch cannot use CUDA in a forked worker ("Cannot re-initialize CUDA in
# forked subprocess") and the emulated device's memory cannot be sent between processes, so
# datasets live on the CPU, as in torch's tutorials (batches move to the device in the loop).
CPU_ONLY_MODULES = frozenset(
    {"test_printing", "test_data_loading", "test_data_workers", "test_random_state"}
)

# Note [Conformance programs not yet run on the emulated device]
# Until pytest 8 the device fixture below was only named in metafunc.fixturenames, which pytest
# no longer sets up: every [cuda] test ran on the CPU. With the fixture autouse, the programs of
# these modules still fail on the emulated device, where the harness runs them with
# torch.set_default_device("cuda"): device bugs of the runtime (a CPU-only path reached from a
# CUDA op, an output made on the CPU). They run on the CPU until each passes there; every other
# module runs on both.
CUDA_PENDING_MODULES = frozenset(
    {
        "test_amp",  # _amp_foreach_non_finite_check_and_unscale_'s CUDA errors
        "test_bad_inputs",  # device-specific: numpy() of CUDA, printing, CPU generator
        "test_distributions_a",  # reprs and validation messages print the device
        "test_nn_modules",  # Parameter's repr prints the device; module.to(double)
        "test_nn_rnn_packed",  # pack_sequence's lengths on the default device (torch too)
        "test_stats_misc",  # asarray's alias check (cuda vs cuda:0) and its grad_fn
    }
)


# The modules whose reference runs go through torch 2.13's functorch (torch.func transforms,
# autograd.Function under jvp). In the full session, after test_bad_inputs and
# test_binary_math ran (together; neither alone), torch's own transforms misbehave: its
# torch.func.grad returns zeros and autograd.Function under torch.func.jvp raises "could not
# find kernel for HigherOrderOperator custom_function_call at dispatch key AutogradCPU" (found
# by bisection; it is torch's process state, not tensortrace's). So these modules run first.
FUNCTORCH_REFERENCE_MODULES = (
    "test_forward_ad_custom_function",
    "test_func_grad",
    "test_func_jacfwd",
    "test_func_vmap",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def first(item: pytest.Item) -> bool:
        name = getattr(item.module, "__name__", "") if hasattr(item, "module") else ""
        return name.rsplit(".", 1)[-1] not in FUNCTORCH_REFERENCE_MODULES

    items.sort(key=first)  # stable: every other test keeps its order


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    module = metafunc.module
    if getattr(module, "check", None) is not harness.check:
        return
    name = module.__name__.rsplit(".", 1)[-1]
    cpu_only = name in CPU_ONLY_MODULES or name in CUDA_PENDING_MODULES
    devices = ["cpu"] if cpu_only else ["cpu", "cuda"]
    metafunc.fixturenames.append("conformance_device")
    metafunc.parametrize("conformance_device", devices, indirect=True)


@pytest.fixture(autouse=True)
def conformance_device(request: pytest.FixtureRequest) -> Iterator[str]:
    # autouse: a fixture only named in metafunc.fixturenames by pytest_generate_tests is not
    # set up by pytest >= 8 (the test ran on the CPU under its [cuda] id); an autouse fixture
    # always is, and takes the device its indirect parametrization gives (else the CPU)
    device = getattr(request, "param", "cpu")
    harness.DEVICE = device
    try:
        yield device
    finally:
        harness.DEVICE = "cpu"
