"""nn.init, the Module hooks, nn.utils.prune, fusion, weight_norm, spectral_norm, functional_call,
parametrize and parametrizations.orthogonal free all they allocate, after a success or an error:
each program of their conformance tests runs in tensortrace alone, and once its namespace is
dropped the CPU allocator's memory_allocated must be back where it started. Reference counting
alone frees them (gc stays off, as in test_everyday_b_leaks.py), except a parametrized module:
as in torch, its Parametrized<Class> is a cycle (a class is one, and its properties' closures
hold the module), so those programs get a gc.collect() before the check."""

from __future__ import annotations

import gc
import math
import warnings
from typing import Any

import numpy as np
import pytest

import tensortrace

from . import (
    test_func_functional_call,
    test_nn_fusion,
    test_nn_init_more,
    test_nn_module_hooks,
    test_nn_orthogonal,
    test_nn_parametrize,
    test_nn_prune,
    test_nn_weight_spectral_norm,
)

SUITES = {
    "init": (test_nn_init_more.PRE, test_nn_init_more.PROGRAMS),
    "hooks": (test_nn_module_hooks.PRE, test_nn_module_hooks.PROGRAMS),
    "prune": (test_nn_prune.PRE, test_nn_prune.PROGRAMS),
    "fusion": (test_nn_fusion.PRE, test_nn_fusion.PROGRAMS),
    "norms": (test_nn_weight_spectral_norm.PRE, test_nn_weight_spectral_norm.PROGRAMS),
    "functional_call": (test_func_functional_call.PRE, test_func_functional_call.PROGRAMS),
}


def _run(source: str) -> None:
    namespace = {"torch": tensortrace, "np": np, "math": math}
    try:
        exec(source, namespace)
    except (RuntimeError, TypeError, IndexError, ValueError, AssertionError, AttributeError):
        pass
    namespace.clear()  # the functions a program defines hold the namespace: break that cycle


def test_every_program_frees_everything() -> None:
    gc.collect()
    gc.disable()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            leaks = []
            for suite, (pre, programs) in SUITES.items():
                for name, source in programs.items():
                    start = tensortrace.memory_allocated("cpu")
                    _run(pre + source)
                    if tensortrace.memory_allocated("cpu") != start:
                        leaks.append(f"{suite}.{name}")
    finally:
        gc.enable()
    assert leaks == []


@pytest.mark.parametrize("suite", [test_nn_parametrize, test_nn_orthogonal])
def test_parametrized_modules_free_everything_after_a_collection(suite: Any) -> None:
    # one collection for all the programs (one per program would cost seconds); orthogonal's
    # include the errors of geqrf / householder_product and of right_inverse
    pre, programs = suite.PRE, suite.PROGRAMS
    gc.collect()
    start = tensortrace.memory_allocated("cpu")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for source in programs.values():
            _run(pre + source)
    gc.collect()
    assert tensortrace.memory_allocated("cpu") == start
