"""The RNG state against torch 2.13: get_rng_state / set_rng_state, Generator.get_state /
set_state, torch.random.fork_rng.

The programs run in tensortrace and in torch (harness.py); the state itself is compared byte
for byte (CPUGeneratorImpl's 5056-byte layout), and states are handed from one library to the
other: a state torch made gives torch's draws in tensortrace, and back.
"""

from __future__ import annotations

import numpy as np
import pytest

import tensortrace

from .harness import check, torch

PROGRAMS = {
    "state_after_seed": "torch.manual_seed(7); out = torch.get_rng_state()",
    "state_after_draws": "torch.rand(5); torch.randn(3); out = torch.get_rng_state()",
    "state_after_odd_randn": "torch.randn(1); out = torch.get_rng_state()",
    "round_trip": "s = torch.get_rng_state(); a = torch.rand(4); torch.randn(7)\n"
    "torch.set_rng_state(s); out = (a, torch.rand(4), torch.get_rng_state())",
    "round_trip_randn": "torch.randn(3); s = torch.get_rng_state(); a = torch.randn(5)\n"
    "torch.set_rng_state(s); out = (a, torch.randn(5))",
    "random_module": "s = torch.random.get_rng_state(); a = torch.rand(2)\n"
    "torch.random.set_rng_state(s); out = (a, torch.rand(2), torch.random.initial_seed())",
    "state_is_a_copy": "s = torch.get_rng_state(); torch.rand(3)\n"
    "out = (s, s.dtype, s.shape, s.is_contiguous())",
    "generator_state": "g = torch.Generator().manual_seed(3); s = g.get_state()\n"
    "a = torch.rand(3, generator=g); g.set_state(s)\n"
    "out = (a, torch.rand(3, generator=g), s)",
    "generator_state_between_generators": "g = torch.Generator().manual_seed(3)\n"
    "h = torch.Generator().set_state(g.get_state())\n"
    "out = (torch.rand(3, generator=g), torch.rand(3, generator=h))",
    "fork_rng": "with torch.random.fork_rng(devices=[]):\n"
    "    a = torch.rand(3)\n"
    "out = (a, torch.rand(3))",
    "fork_rng_disabled": "with torch.random.fork_rng(devices=[], enabled=False):\n"
    "    a = torch.rand(3)\n"
    "out = (a, torch.rand(3))",
    "fork_rng_restores_on_error": "try:\n"
    "    with torch.random.fork_rng(devices=[]):\n"
    "        a = torch.rand(3)\n"
    "        raise ValueError\n"
    "except ValueError:\n"
    "    pass\n"
    "out = (a, torch.rand(3))",
    "set_rng_state_wrong_size": "torch.set_rng_state(torch.zeros(3, dtype=torch.uint8))",
    "set_rng_state_wrong_dtype": "torch.set_rng_state(torch.zeros(5056))",
    "set_rng_state_not_a_tensor": "torch.set_rng_state(5)",
    "set_state_not_a_tensor": "torch.Generator().set_state([1, 2])",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_random_state(name: str) -> None:
    check(PROGRAMS[name])


def _to_tensortrace(state: object) -> object:
    return tensortrace.tensor(state.numpy().tolist(), dtype=tensortrace.uint8)  # type: ignore[attr-defined]


@pytest.mark.parametrize("warmup", ["", "rand", "randn_odd", "randn_many"])
def test_a_state_from_torch_gives_torchs_draws(warmup: str) -> None:
    torch.manual_seed(1234)
    if warmup == "rand":
        torch.rand(1000)
    elif warmup == "randn_odd":
        torch.randn(1)
    elif warmup == "randn_many":
        torch.randn(1001)
    state = torch.get_rng_state()
    expected = (torch.rand(9).numpy(), torch.randn(5).numpy(), torch.randint(0, 100, (6,)).numpy())
    tensortrace.set_rng_state(_to_tensortrace(state))
    got = (tensortrace.rand(9), tensortrace.randn(5), tensortrace.randint(0, 100, (6,)))
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g.numpy(), e)


def test_a_state_from_tensortrace_gives_the_same_draws_in_torch() -> None:
    tensortrace.manual_seed(99)
    tensortrace.randn(3)
    state = tensortrace.get_rng_state()
    expected = tensortrace.rand(6).numpy()
    torch.set_rng_state(torch.tensor(state.tolist(), dtype=torch.uint8))
    np.testing.assert_array_equal(torch.rand(6).numpy(), expected)
